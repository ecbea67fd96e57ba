import { describe, expect, it } from 'vitest';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createProduct, expectError, PRODUCTS } from './support';

// A window long enough that no counter resets while the test runs.
const api = useTestApi({ rateLimits: { perIp: 10_000, perKey: 10_000, productWritesPerKey: 4, windowSeconds: 600 } });

describe('product writes: the stricter per-key write limit', () => {
  it('create, PATCH, the POST alias and DELETE each spend the product write limit; reads do not', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const product = await createProduct(api, key);
    expect((await api.request('PATCH', `${PRODUCTS}/${product.id}`, { key, body: { name: 'A' } })).status).toBe(200);
    expect((await api.request('POST', `${PRODUCTS}/${product.id}`, { key, body: { name: 'B' } })).status).toBe(200);
    expect((await api.request('DELETE', `${PRODUCTS}/${product.id}`, { key })).status).toBe(200);

    const limited = await api.request('POST', PRODUCTS, { key, body: { name: 'Ebook', amount: 1999 } });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    for (let i = 0; i < 3; i += 1) expect((await api.request('GET', PRODUCTS, { key })).status).toBe(200);
  });

  it('the write limit is per key: another key of the same store still writes', async () => {
    const store = await createStore(api.services);
    for (let i = 0; i < 4; i += 1) await createProduct(api, store.keys.sk_test);
    expectError(await api.request('POST', PRODUCTS, { key: store.keys.sk_test, body: { name: 'Ebook', amount: 1999 } }), 429, 'rate_limited');
    await createProduct(api, store.keys.sk_live);
  });
});
