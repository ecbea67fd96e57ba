import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { customers } from '@/db/schema';
import { expectError, expectIdenticalMissing, rawApiRequest } from '../products/support';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { epoch, insertCustomer, insertOrder, T0 } from '../orders/fixtures';

const api = useTestApi();
const store = useTestStore(api);

const CUSTOMERS = '/api/v1/customers';
const get = (id: string, withKey = store.key) => api.request('GET', `${CUSTOMERS}/${id}`, { key: withKey });
const remove = (id: string, withKey = store.key) => api.request('DELETE', `${CUSTOMERS}/${id}`, { key: withKey });

async function readRow(id: string) {
  const [row] = await api.services.db.select().from(customers).where(eq(customers.id, id));
  return row!;
}

describe('GET /api/v1/customers/{id}', () => {
  it('answers the customer, every field', async () => {
    const customer = await insertCustomer(api, store, { email: 'Ada@Example.com', name: 'Ada Lovelace' });
    const response = await get(customer.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: customer.id,
      object: 'customer',
      livemode: false,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      created: epoch(T0),
    });
    expect(customer.id).toMatch(/^cus_test_[0-9A-Za-z]{24}$/);
  });

  it('a customer without a name answers name null; a live one livemode true with the live key', async () => {
    const customer = await insertCustomer(api, store, { livemode: true });
    const response = await get(customer.id, store.keys.sk_live);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: customer.id, livemode: true, name: null });
  });

  it('unknown, another store’s and the other environment’s customer → 404 resource_missing, byte-identical', async () => {
    const other = await createStore(api.services);
    const customer = await insertCustomer(api, store);
    const path = `${CUSTOMERS}/${customer.id}`;
    const foreign = await rawApiRequest(api, 'GET', path, other.keys.sk_test);
    const otherEnvironment = await rawApiRequest(api, 'GET', path, store.keys.sk_live);
    const unknown = await rawApiRequest(api, 'GET', `${CUSTOMERS}/cus_test_000000000000000000000000`, store.key);
    expectIdenticalMissing([foreign, otherEnvironment, unknown], 'id');
  });

  it('without a key → 401 missing_api_key; with a publishable key → 401 wrong_key_type', async () => {
    const customer = await insertCustomer(api, store);
    expectError(await api.request('GET', `${CUSTOMERS}/${customer.id}`), 401, 'missing_api_key');
    expectError(await get(customer.id, store.keys.pk_test), 401, 'wrong_key_type');
  });
});

describe('DELETE /api/v1/customers/{id}', () => {
  it('answers the deleted-customer object; the customer then answers 404 on read and on a second delete', async () => {
    const customer = await insertCustomer(api, store);
    api.clock.advance(60);
    const response = await remove(customer.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: customer.id, object: 'customer', deleted: true, livemode: false });
    expectError(await get(customer.id), 404, 'resource_missing', 'id');
    expectError(await remove(customer.id), 404, 'resource_missing', 'id');
  });

  it('the delete is soft: the row stays with deleted_at, and the customer’s orders still name it', async () => {
    const order = await insertOrder(api, store, { customerEmail: 'kept@example.com' });
    api.clock.advance(60);
    expect((await remove(order.customer!.id)).status).toBe(200);
    expect(await readRow(order.customer!.id)).toMatchObject({ email: 'kept@example.com', deletedAt: api.clock.now() });
    const read = await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key });
    expect(read.body).toMatchObject({ customer_id: order.customer!.id, customer_email: 'kept@example.com' });
  });

  it('a deleted customer’s email is free again for a new customer of the store', async () => {
    const customer = await insertCustomer(api, store, { email: 'again@example.com' });
    expect((await remove(customer.id)).status).toBe(200);
    const fresh = await insertCustomer(api, store, { email: 'again@example.com' });
    expect((await get(fresh.id)).body).toMatchObject({ id: fresh.id, email: 'again@example.com' });
  });

  it('a live customer is deleted with the live key and answers livemode true', async () => {
    const customer = await insertCustomer(api, store, { livemode: true });
    const response = await remove(customer.id, store.keys.sk_live);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: customer.id, object: 'customer', deleted: true, livemode: true });
  });

  it('another store’s and the other environment’s customer → 404 resource_missing, and it is not deleted', async () => {
    const other = await createStore(api.services);
    const customer = await insertCustomer(api, store);
    const path = `${CUSTOMERS}/${customer.id}`;
    const foreign = await rawApiRequest(api, 'DELETE', path, other.keys.sk_test);
    const otherEnvironment = await rawApiRequest(api, 'DELETE', path, store.keys.sk_live);
    const unknown = await rawApiRequest(api, 'DELETE', `${CUSTOMERS}/cus_test_000000000000000000000000`, store.key);
    expectIdenticalMissing([foreign, otherEnvironment, unknown], 'id');
    expect((await readRow(customer.id)).deletedAt).toBeNull();
    expect((await get(customer.id)).status).toBe(200);
  });

  it('without a key → 401 missing_api_key; with a publishable key → 401 wrong_key_type; nothing is deleted', async () => {
    const customer = await insertCustomer(api, store);
    expectError(await api.request('DELETE', `${CUSTOMERS}/${customer.id}`), 401, 'missing_api_key');
    expectError(await remove(customer.id, store.keys.pk_test), 401, 'wrong_key_type');
    expect((await readRow(customer.id)).deletedAt).toBeNull();
  });
});
