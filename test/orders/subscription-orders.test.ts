import { beforeEach, describe, expect, it } from 'vitest';
import { claimDueCharges, settleCharges } from '@/server/billing/charges';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { epoch, expectError, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';
import { advanceClock } from '../billing/support';
import { subscribe } from '../subscriptions/support';

/** Every collected payment is an order: a subscription's first charge and each renewal too. */
const api = useTestApi({ subscriptionsEnabled: true });
beforeEach(() => api.clock.set(T0));

const ORDERS = '/api/v1/orders';
const monthly = (n: number) => periodBoundary(T0, 'month', 1, n);
const ORDER_ID = /^ord_test_[0-9A-Za-z]{24}$/;

async function newStore(name?: string) {
  const store = await createStore(api.services, name === undefined ? { subscriptions: true } : { subscriptions: true, name });
  return { id: store.id, key: store.keys.sk_test, liveKey: store.keys.sk_live };
}

async function eventsAbout(key: string, type: string, objectId: string) {
  const response = await api.request('GET', `/api/v1/events?type=${type}&object_id=${objectId}`, { key });
  expect(response.status).toBe(200);
  return response.body.data;
}

describe('orders of subscription charges', () => {
  it('the first charge is an order `subscription_create`: every field, its invoice, order.paid', async () => {
    const store = await newStore();
    const { subscription } = await subscribe(api, store.key);
    const list = await listOf(api, ORDERS, store.key, `subscription_id=${subscription.id}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: expect.stringMatching(ORDER_ID),
        object: 'order',
        livemode: false,
        status: 'paid',
        currency: 'eur',
        discount: null,
        amount_discount: 0,
        amount_subtotal: 990,
        amount_tax: 0,
        amount_total: 990,
        amount_refunded: 0,
        customer_id: subscription.customer_id,
        customer_email: 'ada@example.com',
        lines: [
          {
            object: 'order_line',
            product_id: null,
            price_id: null,
            description: 'Pro plan',
            quantity: 1,
            unit_amount: 990,
            amount_discount: 0,
            amount_subtotal: 990,
            amount_tax: 0,
            amount_total: 990,
            tax_rate: 0,
            tax_inclusive: false,
          },
        ],
        refunds: [],
        license_keys: [],
        invoice_id: expect.stringMatching(/^in_test_[0-9A-Za-z]{24}$/),
        withdrawal_waiver: null,
        withdrawal: null,
        billing_reason: 'subscription_create',
        subscription_id: subscription.id,
        dispute_id: null,
        customer_details: null,
        tax_country: null,
        tax_treatment: null,
        tax_evidence: null,
        evidence_conflict: null,
        created: epoch(T0),
        paid_at: epoch(T0),
      },
    ]);
    const order = list.body.data[0];
    expect(subscription.customer_id).toMatch(/^cus_test_/);
    const invoice = await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key: store.key });
    expect(invoice.body).toMatchObject({ order_id: order.id, subscription_id: subscription.id, amount_total: 990, customer_email: 'ada@example.com' });
    const paid = await eventsAbout(store.key, 'order.paid', order.id);
    expect(paid).toHaveLength(1);
    expect(paid[0].data.object).toEqual(order);
    const receipt = await api.request('GET', '/api/v1/test_helpers/emails?template=receipt', { key: store.key });
    expect(receipt.body.data[0].related).toEqual({ order_id: null, subscription_id: subscription.id, invoice_id: order.invoice_id, credit_note_id: null, payout_id: null, dispute_id: null });
  });

  it('a renewal is an order `subscription_cycle` with its invoice for the period, refunded in part then in full with credit notes', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id);
    await advanceClock(api, store.key, epoch(monthly(1)) - epoch(T0));

    const list = await listOf(api, ORDERS, store.key, `billing_reason=subscription_cycle&subscription_id=${sub.id}`);
    expect(list.body.data).toHaveLength(1);
    const order = list.body.data[0];
    expect(order).toEqual({
      id: expect.stringMatching(ORDER_ID),
      object: 'order',
      livemode: false,
      status: 'paid',
      currency: 'eur',
      discount: null,
      amount_discount: 0,
      amount_subtotal: 990,
      amount_tax: 0,
      amount_total: 990,
      amount_refunded: 0,
      customer_id: null,
      customer_email: 'ada@example.com',
      lines: [expect.objectContaining({ description: 'Pro plan', quantity: 1, unit_amount: 990, amount_total: 990, tax_rate: 0 })],
      refunds: [],
      license_keys: [],
      invoice_id: expect.stringMatching(/^in_test_/),
      withdrawal_waiver: null,
      withdrawal: null,
      billing_reason: 'subscription_cycle',
      subscription_id: sub.id,
      dispute_id: null,
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      tax_evidence: null,
      evidence_conflict: null,
      created: epoch(monthly(1)),
      paid_at: epoch(monthly(1)),
    });
    expect((await api.request('GET', `${ORDERS}/${order.id}`, { key: store.key })).body).toEqual(order);
    const invoices = await listOf(api, '/api/v1/invoices', store.key, `order_id=${order.id}`);
    expect(invoices.body.data).toEqual([expect.objectContaining({ id: order.invoice_id, order_id: order.id, subscription_id: sub.id, amount_total: 990, issued_at: epoch(monthly(1)) })]);
    expect((await eventsAbout(store.key, 'order.paid', order.id)).map((event: any) => event.data.object.billing_reason)).toEqual(['subscription_cycle']);

    const partial = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id, amount: 400 } });
    expect(partial.status).toBe(201);
    expect(partial.body).toMatchObject({ object: 'refund', order_id: order.id, amount: 400, status: 'succeeded', credit_note_id: expect.stringMatching(/^cn_test_/) });
    const rest = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id } });
    expect(rest.body).toMatchObject({ amount: 590, status: 'succeeded' });

    const refunded = await api.request('GET', `${ORDERS}/${order.id}`, { key: store.key });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: 990, billing_reason: 'subscription_cycle', subscription_id: sub.id });
    const notes = await listOf(api, '/api/v1/credit_notes', store.key, `order_id=${order.id}`);
    expect(notes.body.data.map((note: any) => [note.invoice_id, note.amount_total]).sort()).toEqual([
      [order.invoice_id, 400],
      [order.invoice_id, 590],
    ]);
    expect(await eventsAbout(store.key, 'order.refunded', order.id)).toHaveLength(2);
    const mails = await api.request('GET', '/api/v1/test_helpers/emails?template=refund', { key: store.key });
    expect(mails.body.data.map((mail: any) => mail.related.order_id)).toEqual([order.id, order.id]);
    expectError(await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id } }), 409, 'order_already_processed');
  });

  it('lists filter by billing_reason and subscription_id; a bad value is 400 parameter_invalid', async () => {
    const store = await newStore();
    const one = await createSubscription(api.services, store.id);
    const two = await createSubscription(api.services, store.id);
    await advanceClock(api, store.key, epoch(monthly(1)) - epoch(T0));
    const cycle = await listOf(api, ORDERS, store.key, 'billing_reason=subscription_cycle');
    expect(cycle.body.data.map((order: any) => order.subscription_id).sort()).toEqual([one.id, two.id].sort());
    expect((await listOf(api, ORDERS, store.key, 'billing_reason=purchase')).body.data).toEqual([]);
    expect((await listOf(api, ORDERS, store.key, `subscription_id=${one.id}`)).body.data.map((order: any) => order.subscription_id)).toEqual([one.id]);
    expect((await listOf(api, ORDERS, store.key)).body.data).toHaveLength(2);
    expectError(await listOf(api, ORDERS, store.key, 'billing_reason=renewal'), 400, 'parameter_invalid', 'billing_reason');
    expectError(await listOf(api, ORDERS, store.key, 'subscription_id=ord_test_x'), 400, 'parameter_invalid', 'subscription_id');
  });

  it('two stores and both environments see only their own subscription orders', async () => {
    const [a, b] = [await newStore('A'), await newStore('B')];
    const subA = await createSubscription(api.services, a.id);
    const subB = await createSubscription(api.services, b.id);
    const liveA = await createSubscription(api.services, a.id, { livemode: true });
    api.clock.set(monthly(1));
    // The live renewal, settled as the gateway would answer a live acquirer's approval.
    const { claimed } = await claimDueCharges(api.services, { kind: 'store', storeId: a.id, livemode: true, now: monthly(1) }, 10);
    expect(claimed.map((row) => row.charge.subscriptionId)).toEqual([liveA.id]);
    await settleCharges(api.services, [{ charge: claimed[0]!.charge, outcome: { status: 'succeeded', paymentId: 'pay_live_1', brand: 'visa', last4: '4242' } }]);
    api.clock.set(T0);
    await advanceClock(api, a.key, epoch(monthly(1)) - epoch(T0));
    await advanceClock(api, b.key, epoch(monthly(1)) - epoch(T0));

    const testA = (await listOf(api, ORDERS, a.key)).body.data;
    const testB = (await listOf(api, ORDERS, b.key)).body.data;
    const live = (await listOf(api, ORDERS, a.liveKey)).body.data;
    expect(testA.map((order: any) => order.subscription_id)).toEqual([subA.id]);
    expect(testB.map((order: any) => order.subscription_id)).toEqual([subB.id]);
    expect(live.map((order: any) => [order.subscription_id, order.livemode, order.billing_reason])).toEqual([[liveA.id, true, 'subscription_cycle']]);
    expect(live[0].id).toMatch(/^ord_live_[0-9A-Za-z]{24}$/);
    expect((await listOf(api, ORDERS, b.liveKey)).body.data).toEqual([]);
    for (const [key, id] of [
      [b.key, testA[0].id],
      [a.liveKey, testA[0].id],
      [a.key, live[0].id],
    ]) {
      expectError(await api.request('GET', `${ORDERS}/${id}`, { key }), 404, 'resource_missing', 'id');
      expectError(await api.request('POST', '/api/v1/refunds', { key, body: { order_id: id } }), 404, 'resource_missing', 'order_id');
    }
    expect((await listOf(api, ORDERS, b.key, `subscription_id=${subA.id}`)).body.data).toEqual([]);
  });
});
