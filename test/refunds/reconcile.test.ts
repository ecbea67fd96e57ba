import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/server/errors';
import { GatewayTimeoutError, type PaymentGateway, type RefundRequest } from '@/server/gateway/types';
import { reconcilePendingRefunds, startRefundReconciler } from '@/server/refunds/reconcile';
import { createRefund } from '@/server/refunds/service';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { insertOrder, readOrder, T0 } from '../orders/fixtures';

/**
 * A refund whose gateway answer never came (issue 3: "reconciled later, never charged twice",
 * for money going back): server/refunds/reconcile.ts asks again under the refund's own key, so
 * the customer is refunded exactly once and the reservation is never left for good.
 */
const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });

const simulator = () => api.services.gateways.test;

/** The simulator, each refund request recorded, answering as `answer` says. */
function gateway(answer: (request: RefundRequest) => Promise<Awaited<ReturnType<PaymentGateway['refund']>>>) {
  const requests: RefundRequest[] = [];
  const wrapped: PaymentGateway = {
    ...simulator(),
    refund: (request) => {
      requests.push(request);
      return answer(request);
    },
  };
  return { gateway: wrapped, requests };
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
  const error = await createRefund({ db: api.services.db, clock: api.clock, gateway: via }, scope(), { order_id: order.id }).catch((caught: unknown) => caught);
  expect((error as ApiError).code).toBe('payment_outcome_unknown');
  const read = await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key });
  const [refund] = read.body.refunds as { id: string; status: string }[];
  expect(refund).toMatchObject({ status: 'pending' });
  return { order, refundId: refund!.id };
}

const reconcile = (test: PaymentGateway, limit?: number) =>
  reconcilePendingRefunds({ db: api.services.db, clock: api.clock, gateways: { ...api.services.gateways, test } }, { limit });

async function refundOf(orderId: string) {
  const read = await api.request('GET', `/api/v1/orders/${orderId}`, { key: store.key });
  return (read.body.refunds as { id: string; status: string; amount: number }[])[0]!;
}

describe('refunds left pending by a gateway timeout are reconciled', () => {
  it('the gateway refunded but its answer was lost: a minute later the same key is sent again and the refund is recorded succeeded, once', async () => {
    const lost = refundedButAnswerLost();
    const { order, refundId } = await timedOutRefund(1000, lost.gateway);
    const later = gateway((request) => simulator().refund(request));

    // Its own request may still be waiting: a young pending refund is left alone.
    api.clock.set(new Date(T0.getTime() + 30_000));
    expect(await reconcile(later.gateway)).toBe(0);
    expect(later.requests).toEqual([]);

    api.clock.set(new Date(T0.getTime() + 61_000));
    expect(await reconcile(later.gateway)).toBe(1);
    expect(later.requests).toEqual([{ idempotencyKey: `refund:${refundId}:1`, paymentId: order.gatewayPaymentId, amount: 1000 }]);
    expect(await refundOf(order.id)).toMatchObject({ id: refundId, status: 'succeeded', amount: 1000 });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 1000 });
    // The simulator holds one refund of 1000 (a second would have been refused as over the total).
    expect((await simulator().refund({ idempotencyKey: 'refund:probe:1', paymentId: order.gatewayPaymentId!, amount: 1 })).status).toBe('failed');

    // Settled: later passes leave it alone.
    expect(await reconcile(later.gateway)).toBe(0);
    expect(later.requests).toHaveLength(1);
  });

  it('the first request never reached the gateway: the reconciler makes the refund', async () => {
    const { order, refundId } = await timedOutRefund(700, neverReached().gateway);
    api.clock.set(new Date(T0.getTime() + 61_000));
    const later = gateway((request) => simulator().refund(request));
    expect(await reconcile(later.gateway)).toBe(1);
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
    const reconciler = startRefundReconciler({ ...api.services, clock: api.clock, gateways: { ...api.services.gateways, test } }, { intervalMs: 20, onError: (error) => errors.push(error) });
    try {
      await vi.waitFor(async () => expect(await refundOf(order.id)).toMatchObject({ id: refundId, status: 'succeeded' }), { timeout: 5_000, interval: 20 });
    } finally {
      await reconciler.stop();
    }
    expect(errors).toEqual([]);
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 400 });
  });
});
