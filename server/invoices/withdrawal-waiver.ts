/**
 * The customer's waiver of the right of withdrawal, as an invoice records it from its order. The
 * invoice keeps that copy for good, and the order shows its waiver in the same shape.
 */
import type { orders, WithdrawalWaiver } from '@/db/schema';
import { epochSeconds } from '../clock';

export function withdrawalWaiverView(order: Pick<typeof orders.$inferSelect, 'withdrawalWaiverAcceptedAt' | 'withdrawalWaiverTextVersion'>): WithdrawalWaiver | null {
  if (order.withdrawalWaiverAcceptedAt === null || order.withdrawalWaiverTextVersion === null) return null;
  return { accepted_at: epochSeconds(order.withdrawalWaiverAcceptedAt), text_version: order.withdrawalWaiverTextVersion };
}
