import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { orders, refunds, stores } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import { storeClock, type Clock } from '../clock';
import { GatewayRejectedError, GatewayTimeoutError, type Gateways } from '../gateway/types';
import { refundGatewayKey, settleRefund } from './service';

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
 * Refunds whose gateway answer never arrived (a timeout, or a crash between the reservation and
 * the answer) are sent again under their own key: the gateway answers with the refund it made, or
 * makes it if the first request never reached it, so the customer is refunded exactly once and
 * the amount is never left reserved for good. Each is settled once (settleRefund), however many
 * passes and requests race. A refund the gateway answered `pending` is the acquirer's to finish
 * and is not asked again. Returns how many this pass settled.
 */
export async function reconcilePendingRefunds(deps: RefundReconcileDeps, options: { limit?: number } = {}): Promise<number> {
  const waiting = await deps.db
    .select({
      id: refunds.id,
      storeId: refunds.storeId,
      livemode: refunds.livemode,
      amount: refunds.amount,
      createdAt: refunds.createdAt,
      paymentId: orders.gatewayPaymentId,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
    })
    .from(refunds)
    .innerJoin(orders, eq(orders.id, refunds.orderId))
    .innerJoin(stores, eq(stores.id, refunds.storeId))
    .where(and(eq(refunds.status, 'pending'), isNull(refunds.gatewayRefundId)))
    // Least recently asked about first: refunds the gateway cannot answer about yet never crowd out the others.
    .orderBy(sql`${refunds.checkedAt} asc nulls first`, asc(refunds.createdAt))
    .limit(options.limit ?? 50);
  let settled = 0;
  for (const refund of waiting) {
    // Refunds are stamped with their store's clock (the test clock in test mode): age on the same.
    const now = storeClock(deps.clock, refund).now();
    if (now.getTime() - refund.createdAt.getTime() < STALE_AFTER_MS || refund.paymentId === null) continue;
    const scope = { storeId: refund.storeId, livemode: refund.livemode };
    let result;
    try {
      result = await deps.gateways[refund.livemode ? 'live' : 'test'].refund({
        idempotencyKey: refundGatewayKey(refund.id),
        paymentId: refund.paymentId,
        amount: refund.amount,
      });
    } catch (error) {
      if (!(error instanceof GatewayRejectedError)) {
        // Still no answer: asked again on a later pass, after the others.
        if (!(error instanceof GatewayTimeoutError)) console.error(`refund reconciliation: asking about ${refund.id} failed:`, error);
        await deps.db.update(refunds).set({ checkedAt: deps.clock.now() }).where(eq(refunds.id, refund.id));
        continue;
      }
      result = { status: 'failed' as const, refundId: null };
    }
    if ((await settleRefund(deps.db, scope, refund.id, result)).settled) settled += 1;
  }
  return settled;
}

/** Runs reconcilePendingRefunds every `intervalMs` (server/background-tasks.ts). */
export function startRefundReconciler(deps: RefundReconcileDeps, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): PeriodicTask {
  return startPeriodic('refund reconciliation', () => reconcilePendingRefunds(deps), { intervalMs: options.intervalMs ?? 30_000, onError: options.onError });
}
