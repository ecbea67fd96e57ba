/**
 * The buyer's IP address and user agent at payment, kept on the order (and on a subscription's
 * first charge) as evidence should the cardholder dispute the payment, and erased
 * BUYER_DATA_DAYS after the payment on the store's clock: card networks take no dispute later.
 */
import { and, eq, isNotNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { orders, stores, subscriptionCharges } from '@/db/schema';
import { storeNowSql } from '../clock';
import type { Scope } from '../kit/scope';

/** How long after the payment the buyer's address and user agent are kept. */
export const BUYER_DATA_DAYS = 540;
const DAY_MS = 86_400_000;

/** Whether a payment at `paidAt` is past the time its buyer's address and user agent are kept, at `now` (the store's clock). */
export function buyerDataExpired(paidAt: Date, now: Date): boolean {
  return now.getTime() >= paidAt.getTime() + BUYER_DATA_DAYS * DAY_MS;
}

/**
 * Erases the address and user agent of every payment past BUYER_DATA_DAYS (of one store's scope
 * with `only`): on the orders and on the subscription charges that recorded them. An attempt that
 * paid nothing is dated by itself: a declined checkout by its order's creation, a declined first
 * charge by its own time. Answers how many rows it erased.
 */
export async function eraseExpiredBuyerData(db: Database, wallNow: Date, only?: Scope): Promise<number> {
  const within = (table: typeof orders | typeof subscriptionCharges) =>
    and(eq(stores.id, table.storeId), only === undefined ? undefined : and(eq(table.storeId, only.storeId), eq(table.livemode, only.livemode)));
  const cutoff = (table: typeof orders | typeof subscriptionCharges) => sql`${storeNowSql(wallNow, table.livemode, stores.testClockOffsetSeconds)} - ${BUYER_DATA_DAYS} * interval '1 day'`;
  const erased = { buyerIp: null, buyerUserAgent: null };
  return db.transaction(async (tx) => {
    const fromOrders = await tx
      .update(orders)
      .set(erased)
      .from(stores)
      .where(and(within(orders), or(isNotNull(orders.buyerIp), isNotNull(orders.buyerUserAgent)), lte(sql`coalesce(${orders.paidAt}, ${orders.createdAt})`, cutoff(orders))))
      .returning({ id: orders.id });
    const paidOrAttemptedAt = sql`coalesce((select ${orders.paidAt} from ${orders} where ${orders.id} = ${subscriptionCharges.orderId}), ${subscriptionCharges.scheduledAt})`;
    const fromCharges = await tx
      .update(subscriptionCharges)
      .set(erased)
      .from(stores)
      .where(and(within(subscriptionCharges), or(isNotNull(subscriptionCharges.buyerIp), isNotNull(subscriptionCharges.buyerUserAgent)), lte(paidOrAttemptedAt, cutoff(subscriptionCharges))))
      .returning({ id: subscriptionCharges.id });
    return fromOrders.length + fromCharges.length;
  });
}
