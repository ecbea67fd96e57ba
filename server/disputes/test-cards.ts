/**
 * Test mode's disputes: a checkout or a subscription's first charge paid with one of these cards
 * (each pays like 4242 4242 4242 4242) is disputed in full in the next transaction, before the page
 * answers, so a merchant can try the whole flow. Renewals never are (billing never calls this). Test mode takes only the
 * published test cards, so a test payment's last four digits tell which card paid.
 */
import type { Database } from '@/db/client';
import { orders, type DisputeReason } from '@/db/schema';
import type { Clock } from '../clock';
import { ApiError } from '../errors';
import { locateInAnyStore, openDispute } from './service';

export const TEST_DISPUTE_CARDS: Readonly<Record<string, DisputeReason>> = {
  '4000000000000259': 'fraudulent',
  '4000000000002685': 'product_not_received',
};

const REASON_BY_LAST4 = new Map(Object.entries(TEST_DISPUTE_CARDS).map(([number, reason]) => [number.slice(-4), reason]));

/**
 * Opens the dispute of a test order just paid with a dispute card; nothing for any other payment
 * (told apart by its card without a query, since every payment passes here).
 */
export async function disputeTestCardPayment(
  deps: { db: Database; clock: Clock; config: { ledger: { disputeFee: number } } },
  payment: { orderId: string; livemode: boolean; cardLast4: string | null },
): Promise<void> {
  const reason = payment.cardLast4 === null ? undefined : REASON_BY_LAST4.get(payment.cardLast4);
  if (payment.livemode || !reason) return;
  const found = await locateInAnyStore(deps.db, orders, payment.orderId, deps.clock);
  if (!found) return;
  try {
    await deps.db.transaction((tx) => openDispute(tx, found.scope, payment.orderId, { reason }, { fee: deps.config.ledger.disputeFee, times: found.times }));
  } catch (error) {
    // Refunded in full in the meantime (or disputed by a concurrent settle): nothing is left to dispute, and the payment stands.
    if (!(error instanceof ApiError)) throw error;
  }
}
