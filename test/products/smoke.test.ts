import { describe, expect, it } from 'vitest';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';

const api = useTestApi();

describe('products smoke', () => {
  it('creates and retrieves a product', async () => {
    const store = await createStore(api.services);
    const sku = uniqueSku();
    const created = await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'Ebook', amount: 1999, sku } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'product', name: 'Ebook', amount: 1999, amount_decimal: '19.99', sku, livemode: false });
    const got = await api.request('GET', `/api/v1/products/${created.body.id}`, { key: store.keys.sk_test });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const bad = await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'X', amount: '500' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { type: 'invalid_request_error', code: 'parameter_invalid', message: expect.any(String), param: 'amount' } });
    const cur = await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'X', amount: 5, currency: 'usd' } });
    console.log(cur.status, cur.body);
    const nf = await api.request('GET', '/api/v1/nope', { key: store.keys.sk_test });
    console.log(nf.status, nf.body);
    const other = await api.request('GET', `/api/v1/products/${created.body.id}`, { key: store.keys.sk_live });
    expect(other.status).toBe(404);
  });
});
