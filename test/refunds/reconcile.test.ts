import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiError } from '@/server/errors';
import { GatewayTimeoutError, type PaymentGateway, type RefundLookup, type RefundRequest } from '@/server/gateway/types';
import { createLiveGateway } from '@/server/gateway/live';
import { startRefundReconcileJob } from '@/server/orders/refunds/jobs';
import { PENDING_REFUND_POLL_MS, reconcilePendingRefunds } from '@/server/orders/refunds/reconcile';
import { createRefund } from '@/server/orders/refunds/service';
import { OPERATOR } from '@/server/audit/service';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createStripeReplay, STRIPE_BASE_URL, STRIPE_KEY } from '../gateway/stripe-api';
import { insertOrder, readOrder, T0 } from '../orders/fixtures';

/**
 * A refund whose gateway answer never came ("reconciled later, never charged twice",
 * for money going back): server/orders/refunds/reconcile.ts asks again under the refund's own key, so
 * the customer is refunded exactly once and the reservation is never left for good.
 */
const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });

const simulator = () => api.services.gateways.test;

/** The simulator, each refund request and look-up recorded, answering refunds as `answer` says. */
function gateway(answer: (request: RefundRequest) => Promise<Awaited<ReturnType<PaymentGateway['refund']>>>) {
  const requests: RefundRequest[] = [];
  const lookups: RefundLookup[] = [];
  const wrapped: PaymentGateway = {
    ...simulator(),
    refund: (request) => {
      requests.push(request);
      return answer(request);
    },
    retrieveRefund: (lookup) => {
      lookups.push(lookup);
      return simulator().retrieveRefund(lookup);
    },
  };
  return { gateway: wrapped, requests, lookups };
}

const refundedButAnswerLost = () =>
  gateway(async (request) => {
    await simulator().refund(request);
    throw new GatewayTimeoutError();
  });
const neverReached = () =>
  gateway(async () => {
    throw new GatewayTimeoutError();
  });

async function timedOutRefund(orderAmount: number, via: PaymentGateway) {
  const order = await insertOrder(api, store, { lines: [{ unitAmount: orderAmount }] });
  const error = await createRefund({ db: api.services.db, clock: api.clock, wallClock: api.clock, gateway: via, actor: OPERATOR }, scope(), { order_id: order.id }).catch((caught: unknown) => caught);
  expect((error as ApiError).code).toBe('payment_outcome_unknown');
  const read = await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key });
  const [refund] = read.body.refunds as { id: string; status: string }[];
  expect(refund).toMatchObject({ status: 'pending' });
  return { order, refundId: refund!.id };
}

const reconcile = (test: PaymentGateway, limit?: number) => reconcilePendingRefunds({ db: api.services.db, clock: api.clock, gateways: { ...api.services.gateways, test } }, { limit });

async function refundOf(orderId: string) {
  const read = await api.request('GET', `/api/v1/orders/${orderId}`, { key: store.key });
  return (read.body.refunds as { id: string; status: string; amount: number }[])[0]!;
}

describe('refunds left pending by a gateway timeout are reconciled', () => {
  it('the gateway refunded but its answer was lost: a minute later it is found by its key and recorded succeeded, once, without being sent again', async () => {
    const lost = refundedButAnswerLost();
    const { order, refundId } = await timedOutRefund(1000, lost.gateway);
    const later = gateway((request) => simulator().refund(request));

    // Its own request may still be waiting: a young pending refund is left alone.
    api.clock.set(new Date(T0.getTime() + 30_000));
    expect(await reconcile(later.gateway)).toBe(0);
    expect(later.lookups).toEqual([]);

    api.clock.set(new Date(T0.getTime() + 61_000));
    expect(await reconcile(later.gateway)).toBe(1);
    expect(later.lookups).toContainEqual({ idempotencyKey: `refund:${refundId}:1`, paymentId: order.gatewayPaymentId });
    // Sent again it would be safe only while the gateway remembers the key (Stripe: 24 h); it is not sent.
    expect(later.requests).toEqual([]);
    expect(await refundOf(order.id)).toMatchObject({ id: refundId, status: 'succeeded', amount: 1000 });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 1000 });
    // The simulator holds one refund of 1000 (a second would have been refused as over the total).
    expect((await simulator().refund({ idempotencyKey: 'refund:probe:1', paymentId: order.gatewayPaymentId!, amount: 1 })).status).toBe('failed');

    // Settled: later passes leave it alone.
    expect(await reconcile(later.gateway)).toBe(0);
    expect(later.lookups.filter((lookup) => lookup.paymentId === order.gatewayPaymentId)).toHaveLength(1);
  });

  it('the first request never reached the gateway: the look-up finds nothing and the reconciler makes the refund under the same key', async () => {
    const { order, refundId } = await timedOutRefund(700, neverReached().gateway);
    api.clock.set(new Date(T0.getTime() + 61_000));
    const later = gateway((request) => simulator().refund(request));
    expect(await reconcile(later.gateway)).toBe(1);
    expect(later.requests.filter((request) => request.paymentId === order.gatewayPaymentId)).toEqual([{ idempotencyKey: `refund:${refundId}:1`, paymentId: order.gatewayPaymentId, amount: 700 }]);
    expect(await refundOf(order.id)).toMatchObject({ id: refundId, status: 'succeeded', amount: 700 });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 700 });
  });

  it('still no answer: it stays pending with its amount reserved, and is asked again on the next pass', async () => {
    const { order } = await timedOutRefund(500, neverReached().gateway);
    api.clock.set(new Date(T0.getTime() + 61_000));
    const silent = neverReached();
    expect(await reconcile(silent.gateway)).toBe(0);
    expect(await reconcile(silent.gateway)).toBe(0);
    expect(silent.requests.filter((request) => request.paymentId === order.gatewayPaymentId)).toHaveLength(2);
    expect(await refundOf(order.id)).toMatchObject({ status: 'pending' });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 500 });
  });

  it('the gateway answers failed: two passes racing release the reservation exactly once', async () => {
    const { order, refundId } = await timedOutRefund(800, neverReached().gateway);
    api.clock.set(new Date(T0.getTime() + 61_000));
    // Failed for this order's refund; other tests' refunds still pending get no answer.
    const failing = gateway(async (request) => {
      if (request.paymentId !== order.gatewayPaymentId) throw new GatewayTimeoutError();
      return { refundId: 'gw_re_failed', status: 'failed' };
    });
    const settled = await Promise.all([reconcile(failing.gateway), reconcile(failing.gateway)]);
    expect(settled.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(await refundOf(order.id)).toMatchObject({ id: refundId, status: 'failed' });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
  });

  it('refunds the gateway still cannot answer about are asked about after the others: a batch of two still reaches the third', async () => {
    const silent = neverReached().gateway;
    const stuck = [await timedOutRefund(100, silent), await timedOutRefund(200, silent)];
    api.clock.set(new Date(T0.getTime() + 1_000));
    const answerable = await timedOutRefund(300, silent);
    api.clock.set(new Date(T0.getTime() + 70_000));
    const later = gateway(async (request) => {
      if (request.paymentId !== answerable.order.gatewayPaymentId) throw new GatewayTimeoutError();
      return simulator().refund(request);
    });
    expect(await reconcile(later.gateway, 2)).toBe(0);
    expect(later.requests.map((request) => request.paymentId).sort()).toEqual(stuck.map(({ order }) => order.gatewayPaymentId).sort());
    // The two just asked about go last: the next batch of two starts with the third.
    expect(await reconcile(later.gateway, 2)).toBe(1);
    expect(later.requests[2]!.paymentId).toBe(answerable.order.gatewayPaymentId);
    expect(await refundOf(answerable.order.id)).toMatchObject({ id: answerable.refundId, status: 'succeeded' });
    for (const { order } of stuck) expect(await refundOf(order.id)).toMatchObject({ status: 'pending' });
  });

  it('runs in the background (server/background-tasks.ts): a stale pending refund is settled without anyone asking', async () => {
    const { order, refundId } = await timedOutRefund(400, neverReached().gateway);
    api.clock.set(new Date(T0.getTime() + 61_000));
    const errors: unknown[] = [];
    const test = gateway((request) => simulator().refund(request)).gateway;
    const reconciler = startRefundReconcileJob({ ...api.services, clock: api.clock, gateways: { ...api.services.gateways, test } }, { intervalMs: 20, onError: (error) => errors.push(error) });
    try {
      await vi.waitFor(async () => expect(await refundOf(order.id)).toMatchObject({ id: refundId, status: 'succeeded' }), { timeout: 20_000, interval: 20 });
    } finally {
      await reconciler.stop();
    }
    expect(errors).toEqual([]);
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 400 });
  });
});

describe('live refunds (msw replay of Stripe)', () => {
  const stripe = createStripeReplay();
  const server = setupServer(...stripe.handlers);
  // Anything but the acquirer and this file's own API fails the test.
  beforeAll(() =>
    server.listen({
      onUnhandledRequest: (request, print) => {
        if (!request.url.startsWith(api.baseUrl)) print.error();
      },
    }),
  );
  afterAll(() => server.close());
  const live = createLiveGateway({ secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 15_000 });
  // Test-mode refunds other tests left pending get no answer here, so they never count.
  const reconcileLive = (gatewayLive: PaymentGateway = live) => reconcilePendingRefunds({ db: api.services.db, clock: api.clock, gateways: { test: neverReached().gateway, live: gatewayLive } });
  const at = (ms: number) => api.clock.set(new Date(T0.getTime() + ms));
  const refundCallsFor = (gatewayRefundId: string) => stripe.calls.filter((call) => call.path === `/v1/refunds/${gatewayRefundId}`);

  async function liveRefund(amount: number, refundAmount?: number, via: PaymentGateway = live) {
    const order = await insertOrder(api, store, { livemode: true, lines: [{ unitAmount: amount }] });
    const deps = { db: api.services.db, clock: api.clock, wallClock: api.clock, gateway: via, actor: OPERATOR };
    const created = await createRefund(deps, { storeId: store.id, livemode: true }, { order_id: order.id, ...(refundAmount ? { amount: refundAmount } : {}) }).catch((error: unknown) => error);
    return { order, created };
  }
  const liveRefundRow = async (orderId: string) => {
    const read = await api.request('GET', `/api/v1/orders/${orderId}`, { key: store.keys.sk_live });
    return (read.body.refunds as { id: string; status: string; amount: number }[])[0]!;
  };

  it('answered pending: asked about by its gateway id every 10 minutes until it fails, which releases the reservation', async () => {
    stripe.answerRefundsWith('pending');
    const { order } = await liveRefund(1200).finally(() => stripe.answerRefundsWith('succeeded'));
    const pending = [...stripe.refunds.values()].at(-1)!;
    expect(await liveRefundRow(order.id)).toMatchObject({ status: 'pending', amount: 1200 });

    at(61_000);
    expect(await reconcileLive()).toBe(0);
    expect(refundCallsFor(pending.id)).toHaveLength(1);
    at(61_000 + PENDING_REFUND_POLL_MS - 1_000);
    expect(await reconcileLive()).toBe(0);
    expect(refundCallsFor(pending.id)).toHaveLength(1);

    stripe.finishRefund(pending.id, 'failed');
    at(61_000 + PENDING_REFUND_POLL_MS);
    expect(await reconcileLive()).toBe(1);
    expect(refundCallsFor(pending.id)).toHaveLength(2);
    expect(await liveRefundRow(order.id)).toMatchObject({ status: 'failed' });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
    // Never re-sent: the acquirer had it all along.
    expect(stripe.calls.filter((call) => call.method === 'POST' && call.form.get('payment_intent') === order.gatewayPaymentId)).toHaveLength(1);
    at(61_000 + 3 * PENDING_REFUND_POLL_MS);
    expect(await reconcileLive()).toBe(0);
    expect(refundCallsFor(pending.id)).toHaveLength(2);
  });

  it('answered pending, then succeeded: the partial refund stays counted', async () => {
    stripe.answerRefundsWith('pending');
    const { order } = await liveRefund(1000, 400).finally(() => stripe.answerRefundsWith('succeeded'));
    stripe.finishRefund([...stripe.refunds.values()].at(-1)!.id, 'succeeded');
    at(61_000);
    expect(await reconcileLive()).toBe(1);
    expect(await liveRefundRow(order.id)).toMatchObject({ status: 'succeeded', amount: 400 });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 400 });
  });

  it('made at Stripe, answer lost, and found only after Stripe forgot the key (24 h): recorded once, never refunded twice', async () => {
    const lostAnswer: PaymentGateway = {
      ...live,
      refund: async (request) => {
        await live.refund(request);
        throw new GatewayTimeoutError();
      },
    };
    at(0);
    const { order, created } = await liveRefund(900, undefined, lostAnswer);
    expect((created as ApiError).code).toBe('payment_outcome_unknown');
    // Stripe is unreachable for a day meanwhile.
    at(25 * 3600_000);
    stripe.forgetIdempotencyKeys();
    expect(await reconcileLive()).toBe(1);
    expect(await liveRefundRow(order.id)).toMatchObject({ status: 'succeeded', amount: 900 });
    expect([...stripe.refunds.values()].filter((refund) => refund.payment_intent === order.gatewayPaymentId)).toHaveLength(1);
  });
});
