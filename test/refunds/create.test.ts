import { describe, expect, it } from 'vitest';
import { expectError, expectIdenticalMissing, rawApiRequest } from '../products/support';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { epoch, insertOrder, readOrder, T0 } from '../orders/fixtures';

const api = useTestApi();
const store = useTestStore(api);

const REFUNDS = '/api/v1/refunds';
const refund = (body: unknown, withKey = store.key) => api.request('POST', REFUNDS, { key: withKey, body });
const getOrder = (id: string) => api.request('GET', `/api/v1/orders/${id}`, { key: store.key });

describe('POST /api/v1/refunds', () => {
  it('without amount refunds the whole order: 201 refund, every field; the order is refunded and lists it', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 2500 }] });
    api.clock.advance(30);
    const response = await refund({ order_id: order.id });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^re_test_[0-9A-Za-z]{24}$/),
      object: 'refund',
      livemode: false,
      order_id: order.id,
      amount: 2500,
      currency: 'eur',
      status: 'succeeded',
      // The fixture's order has no invoice, so nothing to credit (test/invoices covers credit notes).
      credit_note_id: null,
      created: epoch(T0) + 30,
    });
    const read = await getOrder(order.id);
    expect(read.body).toMatchObject({ status: 'refunded', amount_total: 2500, amount_refunded: 2500, refunds: [response.body] });
  });

  it('partial refunds up to what remains: paid → partially_refunded → refunded, listed oldest first', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const first = await refund({ order_id: order.id, amount: 300 });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: 300, status: 'succeeded' });
    expect((await getOrder(order.id)).body).toMatchObject({ status: 'partially_refunded', amount_refunded: 300 });

    api.clock.advance(1);
    const rest = await refund({ order_id: order.id });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: 700, status: 'succeeded' });
    const read = await getOrder(order.id);
    expect(read.body).toMatchObject({ status: 'refunded', amount_refunded: 1000 });
    expect(read.body.refunds).toEqual([first.body, rest.body]);
  });

  it('an amount above what remains → 400 parameter_invalid on amount, and nothing is refunded', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    expect((await refund({ order_id: order.id, amount: 600 })).status).toBe(201);
    const response = await refund({ order_id: order.id, amount: 401 });
    expectError(response, 400, 'parameter_invalid', 'amount');
    expect(response.body.error.message).toContain('400');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 600 });
    expect((await refund({ order_id: order.id, amount: 400 })).status).toBe(201);
  });

  it('a fully refunded order → 409 order_already_processed, with or without amount', async () => {
    const order = await insertOrder(api, store);
    expect((await refund({ order_id: order.id })).status).toBe(201);
    expectError(await refund({ order_id: order.id }), 409, 'order_already_processed');
    expectError(await refund({ order_id: order.id, amount: 1 }), 409, 'order_already_processed');
  });

  it('a pending (unpaid) order → 400 parameter_invalid on order_id', async () => {
    const order = await insertOrder(api, store, { status: 'pending' });
    expectError(await refund({ order_id: order.id }), 400, 'parameter_invalid', 'order_id');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'pending', amountRefunded: 0 });
  });

  it.each([
    ['0', 0],
    ['negative', -100],
    ['a float', 10.5],
    ['a numeric string', '100'],
    ['null', null],
  ])('amount %s → 400 parameter_invalid on amount', async (_name, amount) => {
    const order = await insertOrder(api, store);
    expectError(await refund({ order_id: order.id, amount }), 400, 'parameter_invalid', 'amount');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
  });

  it.each([
    ['a missing order_id', {}, 'order_id'],
    ['an unknown field', { order_id: 'ord_test_x', currency: 'eur' }, 'currency'],
  ])('%s → 400 parameter_invalid', async (_name, body, param) => {
    expectError(await refund(body), 400, 'parameter_invalid', param);
  });

  it('unknown, another store’s and the other environment’s order → 404 resource_missing on order_id, byte-identical, nothing refunded', async () => {
    const other = await createStore(api.services);
    const order = await insertOrder(api, store);
    const body = { order_id: order.id };
    const foreign = await rawApiRequest(api, 'POST', REFUNDS, other.keys.sk_test, body);
    const otherEnvironment = await rawApiRequest(api, 'POST', REFUNDS, store.keys.sk_live, body);
    const unknown = await rawApiRequest(api, 'POST', REFUNDS, store.key, { order_id: 'ord_test_000000000000000000000000' });
    expectIdenticalMissing([foreign, otherEnvironment, unknown], 'order_id');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
  });

  it('without a key → 401 missing_api_key; with a publishable key → 401 wrong_key_type; nothing refunded', async () => {
    const order = await insertOrder(api, store);
    expectError(await api.request('POST', REFUNDS, { body: { order_id: order.id } }), 401, 'missing_api_key');
    expectError(await refund({ order_id: order.id }, store.keys.pk_test), 401, 'wrong_key_type');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
  });
});

describe('POST /api/v1/refunds under concurrency', () => {
  it('ten concurrent partial refunds never exceed the total: exactly the ones that fit succeed', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1999 }] });
    const responses = await Promise.all(Array.from({ length: 10 }, () => refund({ order_id: order.id, amount: 500 })));
    const created = responses.filter((response) => response.status === 201);
    expect(created).toHaveLength(3);
    for (const response of responses.filter((r) => r.status !== 201)) expectError(response, 400, 'parameter_invalid', 'amount');
    const read = await getOrder(order.id);
    expect(read.body).toMatchObject({ status: 'partially_refunded', amount_refunded: 1500 });
    expect(read.body.refunds).toHaveLength(3);
  });

  it('five concurrent full refunds: one refunds the whole order, the others get 409 order_already_processed', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1200 }] });
    const responses = await Promise.all(Array.from({ length: 5 }, () => refund({ order_id: order.id })));
    expect(responses.filter((response) => response.status === 201).map((response) => response.body.amount)).toEqual([1200]);
    for (const response of responses.filter((r) => r.status !== 201)) expectError(response, 409, 'order_already_processed');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'refunded', amountRefunded: 1200 });
  });
});
