/**
 * Test mode's disputes: a checkout or a subscription's first charge paid with one of these cards
 * (each pays like 4242 4242 4242 4242) is disputed in full in the next transaction, before the page
 * answers, so a merchant can try the whole flow. Renewals never are. Test mode takes only the
 * published test cards, so a test payment's last four digits tell which card paid.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { orders, stores, type DisputeReason } from '@/db/schema';
import { storeClock, type Clock } from '../clock';
import { openDispute } from './service';

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
  const [order] = await deps.db
    .select({ storeId: orders.storeId, status: orders.status, disputeId: orders.disputeId, billingReason: orders.billingReason, offset: stores.testClockOffsetSeconds })
    .from(orders)
    .innerJoin(stores, eq(stores.id, orders.storeId))
    .where(and(eq(orders.id, payment.orderId), eq(orders.livemode, false)));
  if (order?.status !== 'paid' || order.disputeId !== null || order.billingReason === 'subscription_cycle') return;
  const times = { now: storeClock(deps.clock, { livemode: false, testClockOffsetSeconds: order.offset }).now(), wallNow: deps.clock.now() };
  await deps.db.transaction((tx) => openDispute(tx, { storeId: order.storeId, livemode: false }, payment.orderId, { reason }, { fee: deps.config.ledger.disputeFee, times }));
}
