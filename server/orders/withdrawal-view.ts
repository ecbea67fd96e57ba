import type { orders, withdrawals } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { Withdrawal, WithdrawalWaiver } from './withdrawal-schemas';

export type WithdrawalRow = typeof withdrawals.$inferSelect;

export function withdrawalView(row: WithdrawalRow | undefined): Withdrawal | null {
  if (!row) return null;
  return { status: row.status, requested_at: epochSeconds(row.requestedAt), refund_due_by: epochSeconds(row.refundDueBy), reason: row.reason };
}

export function withdrawalWaiverView(order: Pick<typeof orders.$inferSelect, 'withdrawalWaiverAcceptedAt' | 'withdrawalWaiverTextVersion'>): WithdrawalWaiver | null {
  if (order.withdrawalWaiverAcceptedAt === null || order.withdrawalWaiverTextVersion === null) return null;
  return { accepted_at: epochSeconds(order.withdrawalWaiverAcceptedAt), text_version: order.withdrawalWaiverTextVersion };
}
