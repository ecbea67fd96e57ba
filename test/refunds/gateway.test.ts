import { describe, expect, it } from 'vitest';
import { GatewayRejectedError, GatewayTimeoutError, type PaymentGateway, type RefundRequest, type RefundResult } from '@/server/gateway/types';
import { ApiError } from '@/server/errors';
import { createRefund } from '@/server/orders/refunds/service';
import { OPERATOR } from '@/server/audit/service';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { insertOrder, readOrder } from '../orders/fixtures';

/**
 * The gateway side of a refund, through the service with the gateway injected (inject,
 * never patch): what the gateway is asked, and how each of its answers is recorded.
 */
const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });

/** The real test gateway, with every refund request it receives recorded. */
function recordingGateway(): { gateway: PaymentGateway; requests: RefundRequest[] } {
  const requests: RefundRequest[] = [];
  const simulator = api.services.gateways.test;
  return {
    requests,
    gateway: {
      ...simulator,
      refund: (request) => {
        requests.push(request);
        return simulator.refund(request);
      },
    },
  };
}

function gatewayAnswering(refund: (request: RefundRequest) => Promise<RefundResult>): PaymentGateway {
  return { ...api.services.gateways.test, refund };
}

const deps = (gateway: PaymentGateway) => ({ db: api.services.db, clock: api.clock, wallClock: api.clock, gateway, actor: OPERATOR });

describe('refunds through the gateway (deterministic idempotency keys)', () => {
  it('each refund of an order goes to the order’s payment with the key refund:<refund id>:1', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const { gateway, requests } = recordingGateway();
    const first = await createRefund(deps(gateway), scope(), { order_id: order.id, amount: 100 });
    const second = await createRefund(deps(gateway), scope(), { order_id: order.id });
    expect(requests).toEqual([
      { idempotencyKey: `refund:${first.id}:1`, paymentId: order.gatewayPaymentId, amount: 100 },
      { idempotencyKey: `refund:${second.id}:1`, paymentId: order.gatewayPaymentId, amount: 900 },
    ]);
  });

  it('a refund the gateway answers failed is recorded as failed and releases its amount', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const failing = gatewayAnswering(async () => ({ refundId: 'gw_re_failed', status: 'failed' }));
    const refund = await createRefund(deps(failing), scope(), { order_id: order.id, amount: 400 });
    expect(refund).toMatchObject({ amount: 400, status: 'failed' });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
    // The next refund is a new refund with a key of its own.
    const { gateway, requests } = recordingGateway();
    const next = await createRefund(deps(gateway), scope(), { order_id: order.id });
    expect(next).toMatchObject({ amount: 1000, status: 'succeeded' });
    expect(next.id).not.toBe(refund.id);
    expect(requests.map((request) => request.idempotencyKey)).toEqual([`refund:${next.id}:1`]);
  });

  it('a refund the gateway refuses outright (GatewayRejectedError) is recorded as failed and releases its amount', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const rejecting = gatewayAnswering(async () => {
      throw new GatewayRejectedError('no credentials');
    });
    expect(await createRefund(deps(rejecting), scope(), { order_id: order.id })).toMatchObject({ amount: 1000, status: 'failed' });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
  });

  it('a pending answer keeps the amount reserved: the order counts it as refunded', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const pending = gatewayAnswering(async () => ({ refundId: 'gw_re_pending', status: 'pending' }));
    expect(await createRefund(deps(pending), scope(), { order_id: order.id, amount: 250 })).toMatchObject({ status: 'pending' });
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 250 });
  });

  it('a gateway timeout → 500 payment_outcome_unknown; the refund stays pending with its amount reserved, never over-refundable', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const timingOut = gatewayAnswering(async () => {
      throw new GatewayTimeoutError();
    });
    const error = await createRefund(deps(timingOut), scope(), { order_id: order.id }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('payment_outcome_unknown');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 1000 });
    const read = await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key });
    expect(read.body.refunds).toEqual([expect.objectContaining({ amount: 1000, status: 'pending' })]);
  });
});
