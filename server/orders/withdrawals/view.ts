import type { withdrawals } from '@/db/schema';
import { epochSeconds } from '../../clock';
import type { Withdrawal } from './object';

export type WithdrawalRow = typeof withdrawals.$inferSelect;

export function withdrawalView(row: WithdrawalRow | undefined): Withdrawal | null {
  if (!row) return null;
  return { status: row.status, requested_at: epochSeconds(row.requestedAt), refund_due_by: epochSeconds(row.refundDueBy), reason: row.reason };
}
