import { beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { attachFile, createProduct, expectError, PRODUCTS, rawApiRequest } from './support';

const api = useTestApi();
let store: Awaited<ReturnType<typeof createStore>>;

beforeAll(async () => {
  store = await createStore(api.services);
});

describe('GET /api/v1/products/{id}', () => {
  it('returns the product exactly as created', async () => {
    const created = await createProduct(api, store.keys.sk_test, { description: 'A book', images: ['https://cdn.example.com/a.png'], tax_rate: 7 });
    const response = await api.request('GET', `${PRODUCTS}/${created.id}`, { key: store.keys.sk_test });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created);
  });

  it('unknown, another store’s and the other environment’s id → 404 resource_missing, byte-identical', async () => {
    const other = await createStore(api.services);
    const product = await createProduct(api, store.keys.sk_test);
    const path = `${PRODUCTS}/${product.id}`;
    const foreignStore = await rawApiRequest(api, 'GET', path, other.keys.sk_test);
    const otherEnvironment = await rawApiRequest(api, 'GET', path, store.keys.sk_live);
    // The same id, once it no longer exists: the unknown case with nothing else differing.
    expect((await api.request('DELETE', path, { key: store.keys.sk_test })).status).toBe(200);
    const unknown = await rawApiRequest(api, 'GET', path, store.keys.sk_test);

    for (const response of [foreignStore, otherEnvironment, unknown]) expectError(response, 404, 'resource_missing', 'id');
    expect(foreignStore.text).toBe(unknown.text);
    expect(otherEnvironment.text).toBe(unknown.text);
  });

  it('a live product is read with the live key and carries livemode true', async () => {
    const created = await createProduct(api, store.keys.sk_live);
    const response = await api.request('GET', `${PRODUCTS}/${created.id}`, { key: store.keys.sk_live });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, livemode: true });
  });

  it('has_file is true once a delivery file is attached, and file_url is never returned', async () => {
    const created = await createProduct(api, store.keys.sk_test);
    await attachFile(api, created.id, 'https://files.example.com/secret-book.pdf');
    const response = await api.request('GET', `${PRODUCTS}/${created.id}`, { key: store.keys.sk_test });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, has_file: true });
    const raw = await rawApiRequest(api, 'GET', `${PRODUCTS}/${created.id}`, store.keys.sk_test);
    expect(raw.text).not.toContain('file_url');
    expect(raw.text).not.toContain('secret-book');
    const list = await rawApiRequest(api, 'GET', `${PRODUCTS}?sku=${created.sku}`, store.keys.sk_test);
    expect(list.body.data).toEqual([{ ...created, has_file: true }]);
    expect(list.text).not.toContain('secret-book');
  });

  it('an unknown query parameter is refused', async () => {
    const created = await createProduct(api, store.keys.sk_test);
    expectError(await api.request('GET', `${PRODUCTS}/${created.id}?expand=price`, { key: store.keys.sk_test }), 400, 'parameter_invalid', 'expand');
  });

  it('without a key → 401 missing_api_key', async () => {
    const created = await createProduct(api, store.keys.sk_test);
    expectError(await api.request('GET', `${PRODUCTS}/${created.id}`), 401, 'missing_api_key');
  });

  it('with a publishable key → 401 wrong_key_type, reads too', async () => {
    const created = await createProduct(api, store.keys.sk_test);
    expectError(await api.request('GET', `${PRODUCTS}/${created.id}`, { key: store.keys.pk_test }), 401, 'wrong_key_type');
  });
});
