import { and, asc, eq } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { checkoutSessions, orderLines, orders, paymentAttempts, stores } from '@/db/schema';
import { OPEN_ATTEMPT_STATUSES, type PaymentAttemptStatus } from '@/db/schema';
import { checkoutSessionView, withAmountDiscount } from '../checkout/view';
import { settleRedemption } from '../coupons/redemptions';
import { storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { customerFor } from '../customers/service';
import { recordEvent, type EventTimes } from '../webhooks/events';
import type { ChargeResult } from '../gateway/types';
import { customerNameOf, newInvoiceId } from '../invoices/issue';
import { orderReceipt } from '../mail/outbox';
import { payOrders } from './pay-orders';
import { disputeTestCardPayment } from '../disputes/test-cards';
import { ownedBy } from '../kit/scope';
import { countPayment, type PaymentOutcome } from '../observability/metrics';

export type AttemptRow = typeof paymentAttempts.$inferSelect;
export type SessionRow = typeof checkoutSessions.$inferSelect;
type OrderRow = typeof orders.$inferSelect;

export function isOpen(status: PaymentAttemptStatus): boolean {
  return OPEN_ATTEMPT_STATUSES.includes(status);
}

/**
 * Gateway answers that are about what was typed, not a refusal by the bank: the attempt fails but
 * the session stays payable (within its attempt limit). Only `card_declined` fails the session.
 */
const RETRYABLE_DECLINES = new Set(['unsupported_test_card', 'invalid_card_number', 'invalid_expiry', 'expired_card', 'invalid_cvc']);

export function declineFailsSession(code: string | null): boolean {
  return !RETRYABLE_DECLINES.has(code ?? 'card_declined');
}

/** The outcome to record: a gateway result, or `null` when the gateway never received the charge. */
export type AttemptOutcome = ChargeResult | null;

export interface SettleDeps {
  db: Database;
  /** Wall clock; the session's store clock is derived from it (test clocks). */
  clock: Clock;
  /** For the session as the API shows it, in its events; the operator, the seller on the invoice. */
  config: Pick<Config, 'publicBaseUrl' | 'authSecret' | 'operator' | 'ledger' | 'taxRates'>;
}

/**
 * Records an attempt's outcome and everything that follows from it, in one transaction with the
 * session row locked, exactly once: the attempt is re-read under the lock and only an attempt
 * that is still open changes. The submitting request, a retried submit, the 3-D Secure return
 * and the background reconciler may all settle the same attempt at once; one wins, the others
 * read its result.
 */
export async function settleAttempt(deps: SettleDeps, attemptId: string, outcome: AttemptOutcome): Promise<{ attempt: AttemptRow; session: SessionRow }> {
  // Counted once committed, and only by the caller that settled it.
  let settled: PaymentOutcome | undefined;
  const result = await deps.db.transaction(async (tx) => {
    const [attemptRef] = await tx.select().from(paymentAttempts).where(eq(paymentAttempts.id, attemptId));
    if (!attemptRef) throw new Error(`payment attempt ${attemptId} vanished`);
    const [locked] = await tx
      .select({ session: checkoutSessions, offset: stores.testClockOffsetSeconds })
      .from(checkoutSessions)
      .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
      .where(and(eq(checkoutSessions.id, attemptRef.checkoutSessionId), ownedBy(checkoutSessions, attemptRef)))
      .for('update', { of: checkoutSessions });
    if (!locked) throw new Error(`checkout session of attempt ${attemptId} vanished`);
    // Re-read under the session lock: whoever settled it first decided.
    const [attempt] = await tx.select().from(paymentAttempts).where(eq(paymentAttempts.id, attemptId));
    if (!attempt || !isOpen(attempt.status)) return { attempt: attempt!, session: locked.session };

    // The hold of a redemption ends with the attempt: redeemed if paid, else given back.
    const ends = outcome === null || outcome.status !== 'requires_action';
    if (ends && attempt.redemptionHeld && locked.session.discount !== null) await settleRedemption(tx, locked.session.discount, outcome?.status === 'succeeded');

    const wallNow = deps.clock.now();
    const storeNow = storeClock(deps.clock, { livemode: locked.session.livemode, testClockOffsetSeconds: locked.offset }).now();
    const times = { now: storeNow, wallNow };
    const session = locked.session;

    if (outcome === null) {
      settled = 'abandoned';
      const [updated] = await tx.update(paymentAttempts).set({ status: 'abandoned', updatedAt: wallNow }).where(eq(paymentAttempts.id, attemptId)).returning();
      return { attempt: updated!, session };
    }
    const card = { cardBrand: outcome.brand, cardLast4: outcome.last4, gatewayPaymentId: outcome.paymentId ?? null };
    if (outcome.status === 'requires_action') {
      settled = 'requires_action';
      const [updated] = await tx
        .update(paymentAttempts)
        .set({ status: 'requires_action', ...card, updatedAt: wallNow })
        .where(eq(paymentAttempts.id, attemptId))
        .returning();
      return { attempt: updated!, session };
    }
    if (outcome.status === 'declined') {
      settled = 'declined';
      const [updated] = await tx
        .update(paymentAttempts)
        .set({ status: 'declined', failureCode: outcome.code, ...card, updatedAt: wallNow })
        .where(eq(paymentAttempts.id, attemptId))
        .returning();
      if (!declineFailsSession(outcome.code)) return { attempt: updated!, session };
      // Status stays `open` until expires_at; only payment_status moves.
      const [failed] = await tx.update(checkoutSessions).set({ paymentStatus: 'failed', failureCode: outcome.code }).where(eq(checkoutSessions.id, session.id)).returning();
      await recordEvent(tx, { storeId: session.storeId, livemode: session.livemode, type: 'checkout.session.payment_failed', object: checkoutSessionView(await withAmountDiscount(tx, failed!), deps), ...times });
      return { attempt: updated!, session: failed! };
    }

    settled = 'succeeded';
    const [updated] = await tx
      .update(paymentAttempts)
      .set({ status: 'succeeded', failureCode: null, ...card, updatedAt: wallNow })
      .where(eq(paymentAttempts.id, attemptId))
      .returning();
    const completed = await fulfil(tx, deps, session, times, { brand: outcome.brand, last4: outcome.last4, paymentId: outcome.paymentId });
    return { attempt: updated!, session: completed };
  });
  if (settled) countPayment(settled);
  if (settled === 'succeeded') await disputeTestCardPayment(deps, { orderId: result.session.orderId, livemode: result.attempt.livemode, cardLast4: result.attempt.cardLast4 });
  return result;
}

/**
 * Money has moved (or, for a total of 0, none had to: `payment` null, no card): the session completes, the customer is created or matched, and the order is
 * paid through the one settle seam (./pay-orders.ts: license keys, invoice, receipt). This runs
 * even when the session passed its deadline meanwhile (a charge in flight at expiry, or reconciled
 * later): the customer paid, so they get what they paid for.
 */
export async function fulfil(tx: Transaction, deps: SettleDeps, session: SessionRow, times: EventTimes, payment: { brand: string; last4: string; paymentId: string } | null): Promise<SessionRow> {
  const now = times.now;
  const [order] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.id, session.orderId), ownedBy(orders, session)))
    .for('update');
  if (!order) throw new Error(`order ${session.orderId} of checkout session ${session.id} vanished`);

  // The session's customer_email, else the address typed on the hosted page (kept on the order
  // when the attempt began, so a later reconciliation still knows it).
  const email = (session.customerEmail ?? order.customerEmail)?.toLowerCase() ?? null;
  const customerId = email ? await customerFor(tx, session, email, times) : null;
  const paid: OrderRow = {
    ...order,
    status: 'paid',
    paidAt: now,
    customerId,
    customerEmail: email,
    cardBrand: payment?.brand ?? null,
    cardLast4: payment?.last4 ?? null,
    gatewayPaymentId: payment?.paymentId ?? null,
    invoiceId: newInvoiceId(order.livemode),
  };
  const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, order.id)).orderBy(asc(orderLines.position));

  const [completed] = await tx
    .update(checkoutSessions)
    // The address typed on the hosted page becomes the session's too: whoever fulfils from the
    // session sees whom to write to.
    .set({ status: 'complete', paymentStatus: 'paid', completedAt: now, customerId, customerEmail: session.customerEmail ?? email, failureCode: null })
    .where(eq(checkoutSessions.id, session.id))
    .returning();
  const receipt = email
    ? orderReceipt(
        { id: order.id, storeId: order.storeId, livemode: order.livemode, customerEmail: email, language: order.language },
        {
          lines: lines.map(({ description, quantity, amountSubtotal, amountDiscount }) => ({ description, quantity, amountSubtotal, amountDiscount })),
          discount: order.discount === null ? null : { label: order.discount.label, amount: order.amountDiscount },
          amountSubtotal: order.amountSubtotal,
          amountTax: order.amountTax,
          amountTotal: order.amountTotal,
          card: payment && { brand: payment.brand, last4: payment.last4 },
        },
        times,
        paid.invoiceId!,
      )
    : null;
  await payOrders(tx, deps, [
    {
      order: paid,
      written: 'pending',
      lines,
      invoice: { customerName: await customerNameOf(tx, session, customerId), subscriptionChargeId: null, suppliedFrom: now, suppliedUntil: now },
      receipt,
      events: [{ storeId: session.storeId, livemode: session.livemode, type: 'checkout.session.completed', object: checkoutSessionView({ ...completed!, amountDiscount: order.amountDiscount }, deps), ...times }],
      times,
    },
  ]);
  return completed!;
}
