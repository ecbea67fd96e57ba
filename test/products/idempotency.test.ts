import { describe, expect, it } from 'vitest';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { expectError, PRODUCTS } from './support';

/** A small product limit, so the limit's refusal can be reached. */
const api = useTestApi({ maxProductsPerStore: 3 });

const create = (key: string, body: unknown, idempotencyKey: string) => api.request('POST', PRODUCTS, { key, body, headers: { 'idempotency-key': idempotencyKey } });
const count = async (key: string) => (await api.request('GET', `${PRODUCTS}?limit=100`, { key })).body.data.length;

describe('POST /api/v1/products with Idempotency-Key', () => {
  it('a repeat with the same key and body replays the first answer with 200 and creates nothing more', async () => {
    const store = await createStore(api.services);
    const body = { name: 'Ebook', amount: 1999, sku: uniqueSku(), images: ['https://img.example/a.png'] };
    const first = await create(store.keys.sk_test, body, 'product-key-1');
    expect(first.status).toBe(201);
    const again = await create(store.keys.sk_test, { images: body.images, sku: body.sku, amount: 1999, name: 'Ebook' }, 'product-key-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await count(store.keys.sk_test)).toBe(1);
  });

  it('the same key with another body → 409 idempotency_key_reused, nothing created', async () => {
    const store = await createStore(api.services);
    expect((await create(store.keys.sk_test, { name: 'Ebook', amount: 1999 }, 'product-key-2')).status).toBe(201);
    expectError(await create(store.keys.sk_test, { name: 'Ebook', amount: 2999 }, 'product-key-2'), 409, 'idempotency_key_reused');
    expect(await count(store.keys.sk_test)).toBe(1);
  });

  it('an Idempotency-Key over 191 characters → 400 idempotency_key_invalid, nothing created; 191 is accepted', async () => {
    const store = await createStore(api.services);
    expectError(await create(store.keys.sk_test, { name: 'Ebook', amount: 1999 }, 'k'.repeat(192)), 400, 'idempotency_key_invalid');
    expect(await count(store.keys.sk_test)).toBe(0);
    expect((await create(store.keys.sk_test, { name: 'Ebook', amount: 1999 }, 'k'.repeat(191))).status).toBe(201);
  });

  it('refused requests leave the key unused: a validation error, a taken sku, the product limit', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    expectError(await create(key, { name: '', amount: 1999 }, 'product-key-3'), 400, 'parameter_invalid', 'name');
    expect((await create(key, { name: 'Fixed', amount: 1999 }, 'product-key-3')).status).toBe(201);

    const taken = uniqueSku();
    expect((await create(key, { name: 'First', amount: 100, sku: taken }, 'product-key-4')).status).toBe(201);
    expectError(await create(key, { name: 'Second', amount: 100, sku: taken }, 'product-key-5'), 409, 'sku_unavailable', 'sku');
    expect((await create(key, { name: 'Second', amount: 100, sku: uniqueSku() }, 'product-key-5')).status).toBe(201);

    expectError(await create(key, { name: 'Fourth', amount: 100 }, 'product-key-6'), 409, 'product_limit_reached');
    const [oldest] = (await api.request('GET', `${PRODUCTS}?limit=100`, { key })).body.data.slice(-1);
    expect((await api.request('DELETE', `${PRODUCTS}/${oldest.id}`, { key })).status).toBe(200);
    const created = await create(key, { name: 'Fourth', amount: 100 }, 'product-key-6');
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Fourth');
  });

  it('N identical requests racing with one key create one product, and all answer it', async () => {
    const store = await createStore(api.services);
    const body = { name: 'Race', amount: 500, sku: uniqueSku() };
    const responses = await Promise.all(Array.from({ length: 6 }, () => create(store.keys.sk_test, body, 'product-race')));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(responses.every((response) => JSON.stringify(response.body) === JSON.stringify(responses[0]!.body))).toBe(true);
    expect(await count(store.keys.sk_test)).toBe(1);
  });

  it('keys are scoped per store and environment: the same key creates in each', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const mine = await create(store.keys.sk_test, { name: 'Ebook', amount: 1999 }, 'shared-key');
    const live = await create(store.keys.sk_live, { name: 'Ebook', amount: 1999 }, 'shared-key');
    const theirs = await create(other.keys.sk_test, { name: 'Ebook', amount: 1999 }, 'shared-key');
    expect([mine.status, live.status, theirs.status]).toEqual([201, 201, 201]);
    expect(new Set([mine.body.id, live.body.id, theirs.body.id]).size).toBe(3);
    expect(live.body.livemode).toBe(true);
  });
});
