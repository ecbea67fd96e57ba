import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { orders, refunds, stores } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import { storeClock, type Clock } from '../clock';
import { GatewayRejectedError, GatewayTimeoutError, type Gateways, type RefundResult } from '../gateway/types';
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
 * A refund the gateway accepted as `pending` finishes at the acquirer's pace (hours, sometimes
 * days): it is asked about this often, not on every pass.
 */
export const PENDING_REFUND_POLL_MS = 10 * 60_000;

type WaitingRefund = {
  id: string;
  storeId: string;
  livemode: boolean;
  amount: number;
  createdAt: Date;
  gatewayRefundId: string | null;
  paymentId: string | null;
  testClockOffsetSeconds: number;
};

/**
 * What became of one pending refund, from the gateway: looked up by its key (or its gateway id)
 * first; a refund the gateway never received is sent again under the same key. Never sent twice:
 * the look-up comes first because an acquirer forgets keys after a while (Stripe: 24 h). Null
 * while there is no answer yet.
 */
async function askGateway(deps: RefundReconcileDeps, refund: WaitingRefund & { paymentId: string }): Promise<RefundResult | { status: 'failed'; refundId: null } | null> {
  const gateway = deps.gateways[refund.livemode ? 'live' : 'test'];
  const idempotencyKey = refundGatewayKey(refund.id);
  try {
    const found = await gateway.retrieveRefund({ idempotencyKey, paymentId: refund.paymentId, ...(refund.gatewayRefundId ? { refundId: refund.gatewayRefundId } : {}) });
    if (found || refund.gatewayRefundId) return found;
  } catch (error) {
    // A refused look-up (e.g. no credentials) falls through: the refund itself then says whether it can be made.
    if (!(error instanceof GatewayRejectedError) || refund.gatewayRefundId) return unanswered(refund, error);
  }
  try {
    return await gateway.refund({ idempotencyKey, paymentId: refund.paymentId, amount: refund.amount });
  } catch (error) {
    // Refused before any money moved: a known outcome.
    if (error instanceof GatewayRejectedError) return { status: 'failed', refundId: null };
    return unanswered(refund, error);
  }
}

function unanswered(refund: WaitingRefund, error: unknown): null {
  if (!(error instanceof GatewayTimeoutError)) console.error(`refund reconciliation: asking about ${refund.id} failed:`, error);
  return null;
}

/**
 * Refunds whose gateway answer never arrived (a timeout, or a crash between the reservation and
 * the answer) are looked up and, if the gateway never got them, sent again under their own key,
 * so the customer is refunded exactly once and the amount is never left reserved for good.
 * Refunds the gateway answered `pending` are asked about every PENDING_REFUND_POLL_MS until they
 * succeed or fail (a failure releases the reservation). Each is settled once (settleRefund),
 * however many passes and requests race. Returns how many this pass settled.
 */
export async function reconcilePendingRefunds(deps: RefundReconcileDeps, options: { limit?: number } = {}): Promise<number> {
  const pollBefore = new Date(deps.clock.now().getTime() - PENDING_REFUND_POLL_MS);
  const waiting = await deps.db
    .select({
      id: refunds.id,
      storeId: refunds.storeId,
      livemode: refunds.livemode,
      amount: refunds.amount,
      createdAt: refunds.createdAt,
      gatewayRefundId: refunds.gatewayRefundId,
      paymentId: orders.gatewayPaymentId,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
    })
    .from(refunds)
    .innerJoin(orders, eq(orders.id, refunds.orderId))
    .innerJoin(stores, eq(stores.id, refunds.storeId))
    .where(
      and(
        eq(refunds.status, 'pending'),
        or(isNull(refunds.gatewayRefundId), isNull(refunds.checkedAt), lte(refunds.checkedAt, pollBefore)),
      ),
    )
    // Least recently asked about first: refunds the gateway cannot answer about yet never crowd out the others.
    .orderBy(sql`${refunds.checkedAt} asc nulls first`, asc(refunds.createdAt))
    .limit(options.limit ?? 50);
  let settled = 0;
  for (const refund of waiting) {
    // Refunds are stamped with their store's clock (the test clock in test mode): age on the same.
    const now = storeClock(deps.clock, refund).now();
    const { paymentId } = refund;
    if (now.getTime() - refund.createdAt.getTime() < STALE_AFTER_MS || paymentId === null) continue;
    const result = await askGateway(deps, { ...refund, paymentId });
    if (result === null || result.status === 'pending') {
      // Asked again on a later pass, after the others.
      await deps.db.update(refunds).set({ checkedAt: deps.clock.now() }).where(eq(refunds.id, refund.id));
      if (result === null) continue;
    }
    if ((await settleRefund(deps.db, { storeId: refund.storeId, livemode: refund.livemode }, refund.id, result)).settled && result.status !== 'pending') settled += 1;
  }
  return settled;
}

/** Runs reconcilePendingRefunds every `intervalMs` (server/background-tasks.ts). */
export function startRefundReconciler(deps: RefundReconcileDeps, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): PeriodicTask {
  return startPeriodic('refund reconciliation', () => reconcilePendingRefunds(deps), { intervalMs: options.intervalMs ?? 30_000, onError: options.onError });
}
