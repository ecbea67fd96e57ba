import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { orders, refunds, stores } from '@/db/schema';
import { storeClock, type Clock } from '../../clock';
import { GatewayTimeoutError, type Gateways } from '../../gateway/types';
import { DEFAULT_LEASE_MS } from '../../config';
import { forEachLeased } from '../../kit/lease';
import { refundGatewayKey, refundOnce, settleRefund, type RefundOutcome } from './service';
import { errorField, log } from '../../observability/log';

export interface RefundReconcileDeps {
  db: Database;
  clock: Clock;
  gateways: Gateways;
}

/**
 * A pending refund younger than this may still have its own request waiting for the gateway:
 * well above the gateway timeout, as for payment attempts (server/payments/reconcile.ts).
 */
const STALE_AFTER_MS = 60_000;

/**
 * A refund the gateway accepted as `pending` finishes at the acquirer's pace (hours, sometimes
 * days): it is asked about this often, not on every pass.
 */
export const PENDING_REFUND_POLL_MS = 10 * 60_000;

/**
 * Refunds whose gateway answer never arrived (a timeout, or a crash between the reservation and
 * the answer) are looked up and, if the gateway never got them, sent again under their own key,
 * so the customer is refunded exactly once and the amount is never left reserved for good.
 * Refunds the gateway answered `pending` are asked about every PENDING_REFUND_POLL_MS until they
 * succeed or fail (a failure releases the reservation). Each is leased while it is asked about
 * (server/kit/lease.ts), so passes of several processes never send one at once, and settled once
 * (settleRefund), however many passes and requests race. Returns how many this pass settled.
 */
export async function reconcilePendingRefunds(deps: RefundReconcileDeps, options: { limit?: number; leaseMs?: number } = {}): Promise<number> {
  const pollBefore = new Date(deps.clock.now().getTime() - PENDING_REFUND_POLL_MS);
  const pass = {
    where: and(eq(refunds.status, 'pending'), or(isNull(refunds.gatewayRefundId), isNull(refunds.checkedAt), lte(refunds.checkedAt, pollBefore))),
    // Least recently asked about first: refunds the gateway cannot answer about yet never crowd out the others.
    orderBy: [sql`${refunds.checkedAt} asc nulls first`, asc(refunds.createdAt)],
    limit: options.limit ?? 50,
    now: () => deps.clock.now(),
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
  };
  return forEachLeased(deps.db, refunds, pass, async (refund) => {
    const [context] = await deps.db
      .select({ paymentId: orders.gatewayPaymentId, testClockOffsetSeconds: stores.testClockOffsetSeconds })
      .from(orders)
      .innerJoin(stores, eq(stores.id, orders.storeId))
      .where(eq(orders.id, refund.orderId));
    // Refunds are stamped with their store's clock (the test clock in test mode): age on the same.
    const clock = storeClock(deps.clock, { livemode: refund.livemode, testClockOffsetSeconds: context?.testClockOffsetSeconds ?? 0 });
    const paymentId = context?.paymentId ?? null;
    if (clock.now().getTime() - refund.createdAt.getTime() < STALE_AFTER_MS || paymentId === null) return false;
    let result: RefundOutcome | null;
    try {
      const gateway = deps.gateways[refund.livemode ? 'live' : 'test'];
      result = await refundOnce(gateway, { idempotencyKey: refundGatewayKey(refund.id), paymentId, amount: refund.amount }, refund.gatewayRefundId ?? undefined);
    } catch (error) {
      if (!(error instanceof GatewayTimeoutError)) log.error({ err: errorField(error) }, `refund reconciliation: asking about ${refund.id} failed`);
      result = null;
    }
    if (result === null || result.status === 'pending') {
      // Asked again on a later pass, after the others.
      await deps.db.update(refunds).set({ checkedAt: deps.clock.now() }).where(eq(refunds.id, refund.id));
      if (result === null) return false;
    }
    const times = { now: clock.now(), wallNow: deps.clock.now() };
    return (await settleRefund(deps.db, { storeId: refund.storeId, livemode: refund.livemode }, refund.id, result, times)).settled && result.status !== 'pending';
  });
}
