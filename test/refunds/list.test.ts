import { describe, expect, it } from 'vitest';
import { refunds } from '@/db/schema';
import { newId } from '@/server/ids';
import { seedOrder } from '../portal/factories';
import { expectError, expectIdenticalMissing, rawApiRequest } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf, type Store } from '../support/lists';
import { useTestApi } from '../support/server';

const api = useTestApi();
const REFUNDS = '/api/v1/refunds';
const seed = () => ({ db: api.services.db, now: api.clock.now() });
const keyOf = (store: Store, livemode: boolean) => (livemode ? store.keys.sk_live : store.keys.sk_test);

/** A refund row of `orderId` at the clock's now, as the refund service leaves it. */
async function insertRefund(store: Store, orderId: string, options: { livemode?: boolean; status?: 'succeeded' | 'pending' | 'failed'; amount?: number } = {}) {
  const livemode = options.livemode ?? false;
  const [row] = await api.services.db
    .insert(refunds)
    .values({ id: newId('re', livemode), storeId: store.id, livemode, orderId, amount: options.amount ?? 100, status: options.status ?? 'succeeded', createdAt: api.clock.now() })
    .returning();
  return row!;
}

async function read(store: Store, id: string, livemode = false) {
  const response = await api.request('GET', `${REFUNDS}/${id}`, { key: keyOf(store, livemode) });
  expect(response.status).toBe(200);
  return response.body;
}

describeListContract(api, {
  path: REFUNDS,
  async make(store, { livemode }) {
    const order = await seedOrder(seed(), store, { livemode });
    return read(store, (await insertRefund(store, order.id, { livemode })).id, livemode);
  },
});

describe('GET /api/v1/refunds/{id}', () => {
  it('answers the refund as the create did, every field', async () => {
    const store = await createStore(api.services);
    const order = await seedOrder(seed(), store, { lines: [{ description: 'Ebook', unitAmount: 1000 }] });
    const created = await api.request('POST', REFUNDS, { key: store.keys.sk_test, body: { order_id: order.id, amount: 250 } });
    expect(created.status).toBe(201);
    const response = await api.request('GET', `${REFUNDS}/${created.body.id}`, { key: store.keys.sk_test });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created.body);
    expect(response.body).toEqual({
      id: created.body.id,
      object: 'refund',
      livemode: false,
      order_id: order.id,
      amount: 250,
      currency: 'eur',
      status: created.body.status,
      credit_note_id: null,
      created: Math.floor(api.clock.now().getTime() / 1000),
    });
  });

  it('an unknown id, one of another store and one of the other environment answer the identical 404', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const foreign = await insertRefund(other, (await seedOrder(seed(), other)).id);
    const live = await insertRefund(store, (await seedOrder(seed(), store, { livemode: true })).id, { livemode: true });
    const responses = await Promise.all([`${foreign.id.slice(0, -4)}zzzz`, foreign.id, live.id].map((id) => rawApiRequest(api, 'GET', `${REFUNDS}/${id}`, store.keys.sk_test)));
    expectIdenticalMissing(responses, 'id');
  });
});

describe('GET /api/v1/refunds: filters', () => {
  it('order_id: only that order’s refunds; a malformed id is 400 naming order_id', async () => {
    const store = await createStore(api.services);
    const order = await seedOrder(seed(), store);
    const mine = [await insertRefund(store, order.id), await insertRefund(store, order.id)];
    await insertRefund(store, (await seedOrder(seed(), store)).id);
    const response = await listOf(api, REFUNDS, store.keys.sk_test, `order_id=${order.id}`);
    expect(response.body.data.map((refund: { id: string }) => refund.id).sort()).toEqual(mine.map((refund) => refund.id).sort());
    expectError(await listOf(api, REFUNDS, store.keys.sk_test, 'order_id=re_test_1'), 400, 'parameter_invalid', 'order_id');
  });

  it('status: each of the three; anything else is 400 naming status', async () => {
    const store = await createStore(api.services);
    const order = await seedOrder(seed(), store);
    const byStatus = {
      succeeded: await insertRefund(store, order.id, { status: 'succeeded' }),
      pending: await insertRefund(store, order.id, { status: 'pending' }),
      failed: await insertRefund(store, order.id, { status: 'failed' }),
    };
    for (const [status, refund] of Object.entries(byStatus)) {
      expect((await listOf(api, REFUNDS, store.keys.sk_test, `status=${status}`)).body.data).toEqual([await read(store, refund.id)]);
    }
    expectError(await listOf(api, REFUNDS, store.keys.sk_test, 'status=refunded'), 400, 'parameter_invalid', 'status');
    expect((await listOf(api, REFUNDS, store.keys.sk_test, `status=pending&order_id=${order.id}`)).body.data).toEqual([await read(store, byStatus.pending.id)]);
  });
});
