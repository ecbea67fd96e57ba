import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorRefunds, stores } from '@/db/schema';
import { billDueSubscriptions, type BillingEngineDeps } from '@/server/billing/engine';
import { reconcileSubscriptionCharges } from '@/server/billing/reconcile';
import { GatewayRejectedError, GatewayTimeoutError, type PaymentGateway } from '@/server/gateway/types';
import { PENDING_REFUND_POLL_MS, reconcilePendingRefunds } from '@/server/orders/refunds/reconcile';
import { openPortal } from '@/server/portal/page';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { CARDS, createSubscription } from '../support/subscriptions';
import { createdPortal, tokenOf } from '../portal/support';
import { advanceClock, chargesOf, eventsOf, recurringLedger, retrieveSubscription } from './support';

const api = useTestApi({ subscriptionsEnabled: true });
beforeEach(() => api.clock.set(T0));

const RENEWAL = epoch(periodBoundary(T0, 'month', 1, 1)) - epoch(T0);

/** The services with a test gateway whose recurring calls time out, after (`reached`) or before reaching the simulator. */
function timingOut(reached: boolean): BillingEngineDeps {
  const simulator = api.services.gateways.test;
  const gateway: PaymentGateway = {
    ...simulator,
    async chargeRecurring(request) {
      if (reached) await simulator.chargeRecurring(request);
      throw new GatewayTimeoutError();
    },
  };
  return { ...api.services, gateways: { ...api.services.gateways, test: gateway } };
}

/** A store whose subscription's renewal is due now (the store's clock moved past it, nothing billed yet). */
async function dueSubscription(card: string = CARDS.approved) {
  const store = await createStore(api.services, { subscriptions: true });
  const sub = await createSubscription(api.services, store.id, { card, metadata: { order: 'R-1' } });
  await api.services.db.update(stores).set({ testClockOffsetSeconds: RENEWAL }).where(eq(stores.id, store.id));
  return { key: store.keys.sk_test, storeId: store.id, sub };
}

const storeScope = (storeId: string) => ({ kind: 'store' as const, storeId, livemode: false, now: new Date(T0.getTime() + RENEWAL * 1000) });

describe('open charges are reconciled, never charged twice', () => {
  it('a timeout after the gateway charged: the charge stays unknown and is not claimed again; the reconciler records the gateway’s charge', async () => {
    const { key, storeId, sub } = await dueSubscription();
    expect(await billDueSubscriptions(timingOut(true), storeScope(storeId))).toBe(0);
    expect((await chargesOf(api.services.db, sub.id)).map((charge) => charge.status)).toEqual(['succeeded', 'unknown']);
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'active', current_period_start: epoch(T0) });

    // Billing passes skip a subscription whose charge is in flight.
    await advanceClock(api, key, 1);
    expect(await chargesOf(api.services.db, sub.id)).toHaveLength(2);

    // Too young: its worker might still be waiting for the gateway.
    expect(await reconcileSubscriptionCharges(api.services)).toBe(0);
    api.clock.advance(61);
    expect(await reconcileSubscriptionCharges(api.services)).toBe(1);
    const ledger = await recurringLedger(api.services.db, sub.recurringId);
    expect(ledger.map((charge) => charge.idempotencyKey)).toEqual([`subscription:${sub.id}:2:0`]);
    expect((await chargesOf(api.services.db, sub.id))[1]).toMatchObject({ status: 'succeeded', gatewayPaymentId: ledger[0]!.paymentId });
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'active', current_period_start: RENEWAL + epoch(T0) });
    expect((await eventsOf(api.services.db, sub.id)).map((event) => event.type)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
  });

  it('a charge the gateway never received is re-issued under the same key, once, however many reconcilers race', async () => {
    const { key, storeId, sub } = await dueSubscription();
    await billDueSubscriptions(timingOut(false), storeScope(storeId));
    expect(await recurringLedger(api.services.db, sub.recurringId)).toEqual([]);

    api.clock.advance(61);
    const settled = await Promise.all([1, 2, 3].map(() => reconcileSubscriptionCharges(api.services)));
    expect(settled.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect((await recurringLedger(api.services.db, sub.recurringId)).map((charge) => charge.idempotencyKey)).toEqual([`subscription:${sub.id}:2:0`]);
    expect((await chargesOf(api.services.db, sub.id)).map((charge) => charge.status)).toEqual(['succeeded', 'succeeded']);
    expect((await eventsOf(api.services.db, sub.id)).map((event) => event.type)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'active', failure_count: 0 });
  });

  it('advance_clock answers only after a charge another worker has at the gateway is settled', async () => {
    const { key, storeId, sub } = await dueSubscription();
    const simulator = api.services.gateways.test;
    let called!: () => void;
    const gatewayCalled = new Promise<void>((resolve) => (called = resolve));
    const slow: PaymentGateway = {
      ...simulator,
      async chargeRecurring(request) {
        called();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return simulator.chargeRecurring(request);
      },
    };
    const background = billDueSubscriptions({ ...api.services, gateways: { ...api.services.gateways, test: slow } }, storeScope(storeId));
    await gatewayCalled;
    const statuses = await advanceClock(api, key, 1)
      .then(() => chargesOf(api.services.db, sub.id))
      .finally(() => background);
    expect(statuses.map((charge) => charge.status)).toEqual(['succeeded', 'succeeded']);
    expect(await background).toBe(1);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(1);
  });

  it('a gateway that refuses the call before any money moved: a failed renewal (processing_error), retried like a decline', async () => {
    const { key, storeId, sub } = await dueSubscription();
    const refusing: PaymentGateway = {
      ...api.services.gateways.test,
      chargeRecurring: () => Promise.reject(new GatewayRejectedError('no credentials')),
    };
    expect(await billDueSubscriptions({ ...api.services, gateways: { ...api.services.gateways, test: refusing } }, storeScope(storeId))).toBe(1);
    expect((await chargesOf(api.services.db, sub.id))[1]).toMatchObject({ status: 'declined', failureCode: 'processing_error', cardLast4: null, gatewayPaymentId: null });
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'past_due', failure_count: 1 });
    expect(await recurringLedger(api.services.db, sub.recurringId)).toEqual([]);
    // The retry a day later goes through the real gateway and succeeds.
    await advanceClock(api, key, 24 * 60 * 60);
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'active', failure_count: 0 });
  });

  it('a re-issued charge the gateway refuses before any money moved is a failed renewal (processing_error), not an open charge for ever', async () => {
    const { key, storeId, sub } = await dueSubscription();
    await billDueSubscriptions(timingOut(false), storeScope(storeId));
    api.clock.advance(61);
    const refusing: PaymentGateway = {
      ...api.services.gateways.test,
      chargeRecurring: () => Promise.reject(new GatewayRejectedError('no credentials')),
    };
    expect(await reconcileSubscriptionCharges({ ...api.services, gateways: { ...api.services.gateways, test: refusing } })).toBe(1);
    expect((await chargesOf(api.services.db, sub.id))[1]).toMatchObject({ status: 'declined', failureCode: 'processing_error', gatewayPaymentId: null });
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'past_due', failure_count: 1 });
    expect(await recurringLedger(api.services.db, sub.recurringId)).toEqual([]);
  });

  /** GET `path` with the store's key, which must answer 200; its `data`. */
  async function listed(key: string, path: string) {
    const response = await api.request('GET', path, { key });
    expect(response.status).toBe(200);
    return response.body.data;
  }

  it('a renewal the gateway took after a cancel is an order refunded in full, once, with its invoice and credit note; the cancel stands', async () => {
    const { key, storeId, sub } = await dueSubscription();
    await billDueSubscriptions(timingOut(true), storeScope(storeId));
    const canceled = await api.request('DELETE', `/api/v1/subscriptions/${sub.id}`, { key, body: { reason: 'customer left' } });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled' });

    api.clock.advance(61);
    expect(await reconcileSubscriptionCharges(api.services)).toBe(1);
    expect(await reconcileSubscriptionCharges(api.services)).toBe(0);

    const charges = await chargesOf(api.services.db, sub.id);
    expect(charges.map((charge) => charge.status)).toEqual(['succeeded', 'succeeded']);
    const [order] = await listed(key, `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`);
    expect(order).toMatchObject({
      id: charges[1]!.orderId,
      status: 'refunded',
      billing_reason: 'subscription_cycle',
      subscription_id: sub.id,
      amount_total: sub.amount,
      amount_refunded: sub.amount,
      invoice_id: expect.stringMatching(/^in_test_/),
    });
    const refunds = await listed(key, `/api/v1/refunds?order_id=${order.id}`);
    expect(refunds).toEqual([expect.objectContaining({ object: 'refund', order_id: order.id, amount: sub.amount, status: 'succeeded', credit_note_id: expect.stringMatching(/^cn_test_/) })]);
    const [note] = await listed(key, `/api/v1/credit_notes?order_id=${order.id}`);
    expect(note).toMatchObject({ id: refunds[0].credit_note_id, invoice_id: order.invoice_id, amount_total: sub.amount });

    // Paid back once, under the refund's own key.
    const [taken] = await recurringLedger(api.services.db, sub.recurringId);
    const paidBack = await api.services.db.select().from(simulatorRefunds).where(eq(simulatorRefunds.paymentId, taken!.paymentId));
    expect(paidBack.map(({ amount, status, idempotencyKey }) => ({ amount, status, idempotencyKey }))).toEqual([
      { amount: sub.amount, status: 'succeeded', idempotencyKey: `refund:${refunds[0].id}:1` },
    ]);

    // The subscription stays canceled in the period it had paid for, and announces no payment.
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'canceled', current_period_start: epoch(T0) });
    expect((await eventsOf(api.services.db, sub.id)).map((event) => event.type)).toEqual(['subscription.canceled']);
    // The order announces itself like any order paid and refunded.
    const orderEvents = await listed(key, `/api/v1/events?object_id=${order.id}`);
    expect(orderEvents.map((event: { type: string }) => event.type).sort()).toEqual(['order.paid', 'order.refunded']);
    const refundEvents = await listed(key, `/api/v1/events?object_id=${refunds[0].id}`);
    expect(refundEvents.map((event: { type: string }) => event.type).sort()).toEqual(['refund.created', 'refund.updated']);
    const mails = await listed(key, '/api/v1/test_helpers/emails?template=refund');
    expect(mails).toEqual([expect.objectContaining({ template: 'refund', to: sub.customerEmail })]);
    // The customer's portal shows the payment refunded, with its invoice (the first, seeded here, has no order).
    const portal = await createdPortal(api, key, { subscription_id: sub.id });
    const page = await openPortal(api.services, tokenOf(portal.url));
    expect(page!.subscriptions[0]!.payments.map(({ status, invoiceId }) => ({ status, invoiceId }))).toEqual([
      { status: 'refunded', invoiceId: order.invoice_id },
      { status: 'succeeded', invoiceId: null },
    ]);
  });

  /** A renewal the gateway took after a cancel, settled through `refunds` (the gateway the pay-back meets). */
  async function takenAfterCancel(refunds: Partial<Pick<PaymentGateway, 'refund' | 'retrieveRefund'>>) {
    const { key, storeId, sub } = await dueSubscription();
    await billDueSubscriptions(timingOut(true), storeScope(storeId));
    expect((await api.request('DELETE', `/api/v1/subscriptions/${sub.id}`, { key, body: {} })).status).toBe(200);
    api.clock.advance(61);
    const gateway: PaymentGateway = { ...api.services.gateways.test, ...refunds };
    await reconcileSubscriptionCharges({ ...api.services, gateways: { ...api.services.gateways, test: gateway } });
    const [taken] = await recurringLedger(api.services.db, sub.recurringId);
    const paidBack = async () => api.services.db.select().from(simulatorRefunds).where(eq(simulatorRefunds.paymentId, taken!.paymentId));
    const order = async () => (await listed(key, `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`))[0];
    const refund = async () => (await listed(key, `/api/v1/refunds?order_id=${(await order()).id}`))[0];
    return { sub, paidBack, order, refund };
  }

  const reconcileRefunds = (gateways = api.services.gateways) => reconcilePendingRefunds({ db: api.services.db, clock: api.clock, gateways });

  it('a pay-back the gateway did not answer stays a pending refund, committed with the order, and the refunds reconciler finishes it once', async () => {
    const { paidBack, order, refund } = await takenAfterCancel({ refund: () => Promise.reject(new GatewayTimeoutError()) });
    expect(await order()).toMatchObject({ status: 'refunded', amount_refunded: expect.any(Number) });
    expect(await refund()).toMatchObject({ status: 'pending', credit_note_id: null });
    expect(await paidBack()).toEqual([]);
    api.clock.advance(61);
    expect(await reconcileRefunds()).toBe(1);
    expect(await refund()).toMatchObject({ status: 'succeeded', credit_note_id: expect.stringMatching(/^cn_test_/) });
    expect(await paidBack()).toHaveLength(1);
    api.clock.advance(61);
    expect(await reconcileRefunds()).toBe(0);
    expect(await paidBack()).toHaveLength(1);
  });

  it('a pay-back made but whose answer was lost is found by its key, not made again', async () => {
    const simulator = api.services.gateways.test;
    let sent = 0;
    const { paidBack, refund } = await takenAfterCancel({
      refund: async (request) => {
        sent += 1;
        await simulator.refund(request);
        throw new GatewayTimeoutError();
      },
    });
    expect(sent).toBe(1);
    expect(await refund()).toMatchObject({ status: 'pending' });
    api.clock.advance(61);
    expect(await reconcileRefunds()).toBe(1);
    expect(sent).toBe(1);
    expect(await refund()).toMatchObject({ status: 'succeeded' });
    expect(await paidBack()).toHaveLength(1);
  });

  it('a pay-back the gateway has pending stays pending until it succeeds', async () => {
    const { refund } = await takenAfterCancel({ refund: async () => ({ refundId: 'gw_re_pending', status: 'pending' }) });
    expect(await refund()).toMatchObject({ status: 'pending' });
    api.clock.advance(61);
    const stillPending: PaymentGateway = { ...api.services.gateways.test, retrieveRefund: async () => ({ refundId: 'gw_re_pending', status: 'pending' }) };
    expect(await reconcileRefunds({ ...api.services.gateways, test: stillPending })).toBe(0);
    expect(await refund()).toMatchObject({ status: 'pending' });
    api.clock.advance(PENDING_REFUND_POLL_MS / 1000 + 1);
    const done: PaymentGateway = { ...api.services.gateways.test, retrieveRefund: async () => ({ refundId: 'gw_re_pending', status: 'succeeded' }) };
    expect(await reconcileRefunds({ ...api.services.gateways, test: done })).toBe(1);
    expect(await refund()).toMatchObject({ status: 'succeeded', credit_note_id: expect.stringMatching(/^cn_test_/) });
  });

  it('a reconciled decline moves the subscription like any decline (past_due)', async () => {
    const { key, storeId, sub } = await dueSubscription(CARDS.declinesRecurring);
    await billDueSubscriptions(timingOut(true), storeScope(storeId));
    api.clock.advance(61);
    expect(await reconcileSubscriptionCharges(api.services)).toBe(1);
    expect(await retrieveSubscription(api, key, sub.id)).toMatchObject({ status: 'past_due', failure_count: 1 });
    expect((await eventsOf(api.services.db, sub.id)).map((event) => event.type)).toEqual(['subscription.payment_failed', 'subscription.past_due', 'subscription.updated']);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(1);
  });
});
