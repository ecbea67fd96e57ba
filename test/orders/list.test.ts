import { describe, expect, it } from 'vitest';
import { seedCustomer, seedOrder } from '../portal/factories';
import { expectError } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf, type Store } from '../support/lists';
import { useTestApi } from '../support/server';

const api = useTestApi();
const ORDERS = '/api/v1/orders';
const seed = () => ({ db: api.services.db, now: api.clock.now() });
const keyOf = (store: Store, livemode: boolean) => (livemode ? store.keys.sk_live : store.keys.sk_test);

async function read(store: Store, id: string, livemode = false) {
  const response = await api.request('GET', `${ORDERS}/${id}`, { key: keyOf(store, livemode) });
  expect(response.status).toBe(200);
  return response.body;
}

describeListContract(api, {
  path: ORDERS,
  async make(store, { livemode }) {
    const customer = await seedCustomer(seed(), store, { livemode });
    const order = await seedOrder(seed(), store, {
      livemode,
      customer,
      lines: [
        { description: 'Ebook', unitAmount: 1999, licenseKeys: 1 },
        { description: 'Course', unitAmount: 500 },
      ],
      refunds: [300],
    });
    return read(store, order.id, livemode);
  },
});

describe('GET /api/v1/orders: filters', () => {
  it('each order of a page carries its own lines, refunds and license keys', async () => {
    const store = await createStore(api.services);
    const first = await seedOrder(seed(), store, { lines: [{ description: 'A', unitAmount: 1000, licenseKeys: 2 }], refunds: [100, 200] });
    const second = await seedOrder(seed(), store, {
      lines: [
        { description: 'B', unitAmount: 700 },
        { description: 'C', unitAmount: 800, licenseKeys: 1 },
      ],
    });
    const third = await seedOrder(seed(), store, { status: 'pending' });
    const response = await listOf(api, ORDERS, store.keys.sk_test);
    const byId = new Map(response.body.data.map((order: { id: string }) => [order.id, order]));
    for (const order of [first, second, third]) expect(byId.get(order.id)).toEqual(await read(store, order.id));
    expect((byId.get(first.id) as { refunds: unknown[] }).refunds).toHaveLength(2);
    expect((byId.get(second.id) as { license_keys: string[] }).license_keys).toEqual(second.licenseKeys);
  });

  it('status: each of the four; anything else is 400 naming status', async () => {
    const store = await createStore(api.services);
    const pending = await seedOrder(seed(), store, { status: 'pending' });
    const paid = await seedOrder(seed(), store);
    const partially = await seedOrder(seed(), store, { refunds: [500] });
    const refunded = await seedOrder(seed(), store, { refunds: [1999] });
    const ids = async (query: string) => (await listOf(api, ORDERS, store.keys.sk_test, query)).body.data.map((order: { id: string }) => order.id);
    expect(await ids('status=pending')).toEqual([pending.id]);
    expect(await ids('status=paid')).toEqual([paid.id]);
    expect(await ids('status=partially_refunded')).toEqual([partially.id]);
    expect(await ids('status=refunded')).toEqual([refunded.id]);
    expectError(await listOf(api, ORDERS, store.keys.sk_test, 'status=complete'), 400, 'parameter_invalid', 'status');
  });

  it('customer_id: only that customer’s orders; a malformed id is 400, another store’s customer matches nothing', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store);
    const bob = await seedCustomer(seed(), store);
    const adaOrders = [await seedOrder(seed(), store, { customer: ada }), await seedOrder(seed(), store, { customer: ada })];
    await seedOrder(seed(), store, { customer: bob });
    const response = await listOf(api, ORDERS, store.keys.sk_test, `customer_id=${ada.id}`);
    expect(response.body.data.map((order: { id: string }) => order.id).sort()).toEqual(adaOrders.map((order) => order.id).sort());
    expect(response.body.data.every((order: { customer_id: string }) => order.customer_id === ada.id)).toBe(true);
    expectError(await listOf(api, ORDERS, store.keys.sk_test, 'customer_id=ada'), 400, 'parameter_invalid', 'customer_id');
    const other = await createStore(api.services);
    expect((await listOf(api, ORDERS, other.keys.sk_test, `customer_id=${ada.id}`)).body.data).toEqual([]);
  });

  it('customer_email: exact and case-insensitive; not an address is 400 naming customer_email', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const order = await seedOrder(seed(), store, { customer: ada });
    await seedOrder(seed(), store, { customer: await seedCustomer(seed(), store, { email: 'ada@example.co' }) });
    const ids = async (email: string) => (await listOf(api, ORDERS, store.keys.sk_test, `customer_email=${encodeURIComponent(email)}`)).body.data.map((o: { id: string }) => o.id);
    expect(await ids('ADA@Example.com')).toEqual([order.id]);
    expect(await ids('da@example.com')).toEqual([]);
    expectError(await listOf(api, ORDERS, store.keys.sk_test, 'customer_email=ada'), 400, 'parameter_invalid', 'customer_email');
  });

  it('filters combine, with each other, the created range and paging', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store);
    const made = [];
    for (let i = 0; i < 4; i += 1) {
      made.push(await seedOrder(seed(), store, { customer: ada }));
      await seedOrder(seed(), store, { customer: ada, status: 'pending' });
      api.clock.advance(1);
    }
    const first = await listOf(api, ORDERS, store.keys.sk_test, `customer_id=${ada.id}&status=paid&limit=2`);
    expect(first.body.data.map((o: { id: string }) => o.id)).toEqual([made[3]!.id, made[2]!.id]);
    expect(first.body.has_more).toBe(true);
    const second = await listOf(api, ORDERS, store.keys.sk_test, `customer_id=${ada.id}&status=paid&limit=2&starting_after=${made[2]!.id}`);
    expect(second.body.data.map((o: { id: string }) => o.id)).toEqual([made[1]!.id, made[0]!.id]);
    expect(second.body.has_more).toBe(false);
  });
});
