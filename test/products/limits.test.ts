import { describe, expect, it } from 'vitest';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { createProduct, expectError, PRODUCTS } from './support';

// The service allows 10,000 products per store and environment; a limit of 3 exercises the same rule.
const api = useTestApi({ maxProductsPerStore: 3 });

const post = (key: string, body: Record<string, unknown> = {}) => api.request('POST', PRODUCTS, { key, body: { name: 'Ebook', amount: 1999, ...body } });

describe('POST /api/v1/products: product limit per store and environment', () => {
  it('beyond the limit → 409 product_limit_reached; deleting one makes room again', async () => {
    const store = await createStore(api.services);
    const products = [];
    for (let i = 0; i < 3; i += 1) products.push(await createProduct(api, store.keys.sk_test));
    const sku = uniqueSku();
    expectError(await post(store.keys.sk_test, { sku }), 409, 'product_limit_reached');
    expect((await api.request('GET', `${PRODUCTS}?sku=${sku}`, { key: store.keys.sk_test })).body.data).toEqual([]);
    expect((await api.request('DELETE', `${PRODUCTS}/${products[0].id}`, { key: store.keys.sk_test })).status).toBe(200);
    expect((await post(store.keys.sk_test)).status).toBe(201);
  });

  it('the limit counts each environment and each store on its own', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    for (let i = 0; i < 3; i += 1) await createProduct(api, store.keys.sk_test);
    expectError(await post(store.keys.sk_test), 409, 'product_limit_reached');
    expect((await post(store.keys.sk_live)).status).toBe(201);
    expect((await post(other.keys.sk_test)).status).toBe(201);
  });

  it('concurrent creates cannot overshoot the limit', async () => {
    const store = await createStore(api.services);
    const responses = await Promise.all(Array.from({ length: 8 }, () => post(store.keys.sk_test)));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = responses.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const response of refused) expectError(response, 409, 'product_limit_reached');
    const list = await api.request('GET', `${PRODUCTS}?limit=100`, { key: store.keys.sk_test });
    expect(list.body.data).toHaveLength(3);
  });
});

describe('POST /api/v1/products: concurrent creation of one sku', () => {
  it('ten parallel creates of the same sku across two stores and both environments → exactly one 201, nine 409 sku_unavailable', async () => {
    const first = await createStore(api.services);
    const second = await createStore(api.services);
    const keys = [first.keys.sk_test, first.keys.sk_live, second.keys.sk_test, second.keys.sk_live];
    const sku = uniqueSku('Race');
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => post(keys[i % keys.length]!, { sku })));
    const created = responses.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    expect(created[0]!.body.sku).toBe(sku);
    const refused = responses.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(9);
    for (const response of refused) expectError(response, 409, 'sku_unavailable', 'sku');
    expect(new Set(refused.map((r) => JSON.stringify(r.body))).size).toBe(1);
  });
});
