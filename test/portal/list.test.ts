import { describe, expect, it } from 'vitest';
import { seedCustomer, seedOrder } from './factories';
import { SESSIONS } from './support';
import { epoch, expectError, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf, type Store } from '../support/lists';
import { useTestApi } from '../support/server';

const api = useTestApi();
const seed = () => ({ db: api.services.db, now: api.clock.now() });
const keyOf = (store: Store, livemode: boolean) => (livemode ? store.keys.sk_live : store.keys.sk_test);

async function create(store: Store, body: Record<string, unknown>, livemode = false) {
  const response = await api.request('POST', SESSIONS, { key: keyOf(store, livemode), body });
  expect(response.status).toBe(201);
  return response.body;
}

/** Made one second apart, so newest first is the order of creation reversed. */
async function createInTurn(store: Store, body: Record<string, unknown>) {
  const session = await create(store, body);
  api.clock.advance(1);
  return session;
}

async function read(store: Store, id: string, livemode = false) {
  const response = await api.request('GET', `${SESSIONS}/${id}`, { key: keyOf(store, livemode) });
  expect(response.status).toBe(200);
  return response.body;
}

describeListContract(api, {
  path: SESSIONS,
  async make(store, { livemode }) {
    const customer = await seedCustomer(seed(), store, { livemode });
    const session = await create(store, { customer_id: customer.id, metadata: { ref: 'list' } }, livemode);
    return read(store, session.id, livemode);
  },
});

const ids = async (store: Store, query: string) => (await listOf(api, SESSIONS, store.keys.sk_test, query)).body.data.map((s: { id: string }) => s.id);

describe('GET /api/v1/portal/sessions: items and filters', () => {
  it('items never carry the url, not even right after the create that answered it', async () => {
    const store = await createStore(api.services);
    const customer = await seedCustomer(seed(), store);
    const created = await create(store, { customer_id: customer.id });
    expect(created.url).toEqual(expect.any(String));
    const [item] = (await listOf(api, SESSIONS, store.keys.sk_test)).body.data;
    expect(item).not.toHaveProperty('url');
    const { url: _url, ...withoutUrl } = created;
    expect(item).toEqual(withoutUrl);
  });

  it('status: active, expired (by the store clock) and revoked; anything else is 400 naming status', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const customer = await seedCustomer(seed(), store);
    const now = epoch(T0);
    const short = await createInTurn(store, { customer_id: customer.id, expires_at: now + 300 });
    const long = await createInTurn(store, { customer_id: customer.id, expires_at: now + 3600 });
    const revoked = await createInTurn(store, { customer_id: customer.id });
    expect((await api.request('DELETE', `${SESSIONS}/${revoked.id}`, { key: store.keys.sk_test })).status).toBe(200);
    expect(await ids(store, 'status=active')).toEqual([long.id, short.id]);
    expect(await ids(store, 'status=expired')).toEqual([]);
    expect(await ids(store, 'status=revoked')).toEqual([revoked.id]);
    api.clock.advance(296);
    expect(await ids(store, 'status=active')).toEqual([long.id, short.id]);
    api.clock.advance(1);
    expect(await ids(store, 'status=active')).toEqual([long.id]);
    expect(await ids(store, 'status=expired')).toEqual([short.id]);
    expect((await listOf(api, SESSIONS, store.keys.sk_test, 'status=expired')).body.data[0].status).toBe('expired');
    expectError(await listOf(api, SESSIONS, store.keys.sk_test, 'status=open'), 400, 'parameter_invalid', 'status');
  });

  it('scope and customer_id; bad values are 400 naming the parameter', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store);
    const bob = await seedCustomer(seed(), store);
    const order = await seedOrder(seed(), store, { customer: ada });
    const byCustomer = await createInTurn(store, { customer_id: ada.id });
    const byOrder = await createInTurn(store, { order_id: order.id });
    const bobs = await createInTurn(store, { customer_id: bob.id });
    expect(await ids(store, 'scope=order')).toEqual([byOrder.id]);
    expect(await ids(store, 'scope=customer')).toEqual([bobs.id, byCustomer.id]);
    expect(await ids(store, `customer_id=${ada.id}`)).toEqual([byOrder.id, byCustomer.id]);
    expect(await ids(store, `customer_id=${ada.id}&scope=customer`)).toEqual([byCustomer.id]);
    expectError(await listOf(api, SESSIONS, store.keys.sk_test, 'scope=store'), 400, 'parameter_invalid', 'scope');
    expectError(await listOf(api, SESSIONS, store.keys.sk_test, 'customer_id=ord_test_1'), 400, 'parameter_invalid', 'customer_id');
  });
});
