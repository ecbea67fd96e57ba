import { describe, expect, it } from 'vitest';
import { seedCustomer } from '../portal/factories';
import { expectError, expectIdenticalMissing, rawApiRequest } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf, type Store } from '../support/lists';
import { useTestApi } from '../support/server';

const api = useTestApi();
const CUSTOMERS = '/api/v1/customers';
const seed = () => ({ db: api.services.db, now: api.clock.now() });

async function read(store: Store, id: string, livemode = false) {
  const response = await api.request('GET', `${CUSTOMERS}/${id}`, { key: livemode ? store.keys.sk_live : store.keys.sk_test });
  expect(response.status).toBe(200);
  return response.body;
}

describeListContract(api, {
  path: CUSTOMERS,
  async make(store, { livemode }) {
    const customer = await seedCustomer(seed(), store, { livemode, name: 'Ada' });
    return read(store, customer.id, livemode);
  },
});

describe('GET /api/v1/customers: filters and deleted customers', () => {
  it('email: exact and case-insensitive; not an address is 400 naming email', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    await seedCustomer(seed(), store, { email: 'ada@example.org' });
    const list = await listOf(api, CUSTOMERS, store.keys.sk_test, `email=${encodeURIComponent('Ada@EXAMPLE.com')}`);
    expect(list.body).toEqual({ object: 'list', data: [await read(store, ada.id)], has_more: false, url: CUSTOMERS, livemode: false });
    expect((await listOf(api, CUSTOMERS, store.keys.sk_test, 'email=nobody@example.com')).body.data).toEqual([]);
    expectError(await listOf(api, CUSTOMERS, store.keys.sk_test, 'email=ada'), 400, 'parameter_invalid', 'email');
  });

  it('a deleted customer is not listed, and as a cursor answers like an unknown id', async () => {
    const store = await createStore(api.services);
    const kept = await seedCustomer(seed(), store);
    api.clock.advance(1);
    const deleted = await seedCustomer(seed(), store, { email: 'gone@example.com' });
    expect((await api.request('DELETE', `${CUSTOMERS}/${deleted.id}`, { key: store.keys.sk_test })).status).toBe(200);
    expect((await listOf(api, CUSTOMERS, store.keys.sk_test)).body.data).toEqual([await read(store, kept.id)]);
    expect((await listOf(api, CUSTOMERS, store.keys.sk_test, 'email=gone@example.com')).body.data).toEqual([]);
    const unknown = `${deleted.id.slice(0, -4)}zzzz`;
    const responses = await Promise.all([unknown, deleted.id].map((cursor) => rawApiRequest(api, 'GET', `${CUSTOMERS}?starting_after=${cursor}`, store.keys.sk_test)));
    expectIdenticalMissing(responses, 'starting_after');
  });

  it('a new customer of a deleted one’s email is listed once, under the email filter too', async () => {
    const store = await createStore(api.services);
    const old = await seedCustomer(seed(), store, { email: 'back@example.com' });
    expect((await api.request('DELETE', `${CUSTOMERS}/${old.id}`, { key: store.keys.sk_test })).status).toBe(200);
    const again = await seedCustomer(seed(), store, { email: 'back@example.com' });
    expect((await listOf(api, CUSTOMERS, store.keys.sk_test, 'email=back@example.com')).body.data).toEqual([await read(store, again.id)]);
  });
});
