import { beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createProduct, expectError, PRODUCTS, T0 } from './support';

const api = useTestApi();

beforeEach(() => api.clock.set(T0));

const list = (key: string, query = '') => api.request('GET', `${PRODUCTS}${query}`, { key });

/** Creates `count` products one second apart; returns them newest first, as a list answers. */
async function createSeries(key: string, count: number, body: Record<string, unknown> = {}) {
  const created = [];
  for (let i = 0; i < count; i += 1) {
    created.push(await createProduct(api, key, { name: `Product ${i}`, ...body }));
    api.clock.advance(1);
  }
  return created.reverse();
}

/** Follows `starting_after` until `has_more` is false; returns every page. */
async function allPages(key: string, query: string) {
  const pages = [];
  let cursor: string | undefined;
  for (;;) {
    const response = await list(key, `?${query}${cursor ? `&starting_after=${cursor}` : ''}`);
    expect(response.status).toBe(200);
    pages.push(response.body);
    if (!response.body.has_more) return pages;
    cursor = response.body.data.at(-1).id;
  }
}

describe('GET /api/v1/products: envelope, ordering and pagination', () => {
  it('the list envelope carries object, data, has_more, url and livemode', async () => {
    const store = await createStore(api.services);
    const [product] = await createSeries(store.keys.sk_test, 1);
    const response = await list(store.keys.sk_test);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'list', data: [product], has_more: false, url: '/api/v1/products', livemode: false });
    const live = await list(store.keys.sk_live);
    expect(live.body).toEqual({ object: 'list', data: [], has_more: false, url: '/api/v1/products', livemode: true });
  });

  it('pages over more than two pages, newest first, with has_more and starting_after', async () => {
    const store = await createStore(api.services);
    const products = await createSeries(store.keys.sk_test, 7);
    const pages = await allPages(store.keys.sk_test, 'limit=3');
    expect(pages.map((page) => [page.data.length, page.has_more])).toEqual([
      [3, true],
      [3, true],
      [1, false],
    ]);
    expect(pages.flatMap((page) => page.data)).toEqual(products);
    expect(pages.flatMap((page) => page.data.map((p: { created: number }) => p.created))).toEqual(products.map((p) => p.created));
  });

  it('products created in the same second are ordered by id, newest-first order stays total', async () => {
    const store = await createStore(api.services);
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await createProduct(api, store.keys.sk_test, { name: `Same second ${i}` }));
    const expected = [...created].sort((a, b) => (a.id < b.id ? 1 : -1)).map((p) => p.id);
    const pages = await allPages(store.keys.sk_test, 'limit=2');
    expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
    expect(pages.flatMap((page) => page.data.map((p: { id: string }) => p.id))).toEqual(expected);
  });

  it('a page that ends exactly at the last product says has_more false', async () => {
    const store = await createStore(api.services);
    const products = await createSeries(store.keys.sk_test, 4);
    const first = await list(store.keys.sk_test, '?limit=2');
    expect(first.body.has_more).toBe(true);
    const second = await list(store.keys.sk_test, `?limit=2&starting_after=${first.body.data[1].id}`);
    expect(second.body).toMatchObject({ has_more: false, data: products.slice(2) });
    const after = await list(store.keys.sk_test, `?limit=2&starting_after=${products[3].id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ object: 'list', data: [], has_more: false, url: '/api/v1/products', livemode: false });
  });

  it('limit defaults to 10 and accepts 1 and 100', async () => {
    const store = await createStore(api.services);
    const products = await createSeries(store.keys.sk_test, 12);
    const byDefault = await list(store.keys.sk_test);
    expect(byDefault.body.data).toEqual(products.slice(0, 10));
    expect(byDefault.body.has_more).toBe(true);
    const one = await list(store.keys.sk_test, '?limit=1');
    expect([one.body.data, one.body.has_more]).toEqual([[products[0]], true]);
    const hundred = await list(store.keys.sk_test, '?limit=100');
    expect([hundred.body.data, hundred.body.has_more]).toEqual([products, false]);
  });

  it.each(['0', '101', '-1', '1.5', 'ten', '10abc'])('limit=%s → 400 parameter_invalid, never clamped', async (limit) => {
    const store = await createStore(api.services);
    expectError(await list(store.keys.sk_test, `?limit=${limit}`), 400, 'parameter_invalid', 'limit');
  });

  it('only this store’s products of this environment are listed', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const testProducts = await createSeries(store.keys.sk_test, 2);
    const liveProducts = await createSeries(store.keys.sk_live, 2);
    await createSeries(other.keys.sk_test, 2);
    await createSeries(other.keys.sk_live, 2);
    expect((await list(store.keys.sk_test)).body.data).toEqual(testProducts);
    const live = await list(store.keys.sk_live);
    expect(live.body.data).toEqual(liveProducts);
    expect(live.body.livemode).toBe(true);
  });
});

describe('GET /api/v1/products: starting_after', () => {
  it('a cursor of another store → 404 resource_missing on starting_after', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    await createSeries(store.keys.sk_test, 2);
    const [foreign] = await createSeries(other.keys.sk_test, 1);
    expectError(await list(store.keys.sk_test, `?starting_after=${foreign.id}`), 404, 'resource_missing', 'starting_after');
  });

  it('a cursor of the other environment → 404 resource_missing on starting_after', async () => {
    const store = await createStore(api.services);
    await createSeries(store.keys.sk_test, 2);
    const [live] = await createSeries(store.keys.sk_live, 1);
    expectError(await list(store.keys.sk_test, `?starting_after=${live.id}`), 404, 'resource_missing', 'starting_after');
  });

  it('an unknown or deleted cursor → 404 resource_missing on starting_after', async () => {
    const store = await createStore(api.services);
    const [newest, oldest] = await createSeries(store.keys.sk_test, 2);
    expectError(await list(store.keys.sk_test, '?starting_after=prod_test_doesnotexist000000000'), 404, 'resource_missing', 'starting_after');
    expect((await api.request('DELETE', `${PRODUCTS}/${newest.id}`, { key: store.keys.sk_test })).status).toBe(200);
    expectError(await list(store.keys.sk_test, `?starting_after=${newest.id}`), 404, 'resource_missing', 'starting_after');
    expect((await list(store.keys.sk_test)).body.data).toEqual([oldest]);
  });

  it('a cursor that the filters exclude still marks the position to continue from', async () => {
    const store = await createStore(api.services);
    const [olderDigital] = await createSeries(store.keys.sk_test, 1, { type: 'digital' });
    const [physical] = await createSeries(store.keys.sk_test, 1, { type: 'physical' });
    await createSeries(store.keys.sk_test, 1, { type: 'digital' });
    const response = await list(store.keys.sk_test, `?type=digital&starting_after=${physical.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: [olderDigital], has_more: false });
  });
});

describe('GET /api/v1/products: filters', () => {
  it('type filters by product type', async () => {
    const store = await createStore(api.services);
    const physical = await createSeries(store.keys.sk_test, 2, { type: 'physical' });
    const digital = await createSeries(store.keys.sk_test, 2, { type: 'digital' });
    expect((await list(store.keys.sk_test, '?type=physical')).body.data).toEqual(physical);
    expect((await list(store.keys.sk_test, '?type=digital')).body.data).toEqual(digital);
    expectError(await list(store.keys.sk_test, '?type=service'), 400, 'parameter_invalid', 'type');
  });

  it('mode filters by the price mode', async () => {
    const store = await createStore(api.services);
    const recurring = await createSeries(store.keys.sk_test, 2, { mode: 'recurring', interval: 'month' });
    const oneTime = await createSeries(store.keys.sk_test, 2);
    expect((await list(store.keys.sk_test, '?mode=recurring')).body.data).toEqual(recurring);
    expect((await list(store.keys.sk_test, '?mode=one_time')).body.data).toEqual(oneTime);
    expectError(await list(store.keys.sk_test, '?mode=monthly'), 400, 'parameter_invalid', 'mode');
  });

  it('show_in_store filters by visibility and takes only "true" or "false"', async () => {
    const store = await createStore(api.services);
    const hidden = await createSeries(store.keys.sk_test, 2, { show_in_store: false });
    const shown = await createSeries(store.keys.sk_test, 2);
    expect((await list(store.keys.sk_test, '?show_in_store=false')).body.data).toEqual(hidden);
    expect((await list(store.keys.sk_test, '?show_in_store=true')).body.data).toEqual(shown);
    for (const value of ['1', 'yes', 'TRUE']) {
      expectError(await list(store.keys.sk_test, `?show_in_store=${value}`), 400, 'parameter_invalid', 'show_in_store');
    }
  });

  it('sku matches exactly, and only within this store and environment', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const [product] = await createSeries(store.keys.sk_test, 1, { sku: 'exact-sku-1' });
    await createSeries(store.keys.sk_test, 1, { sku: 'exact-sku-10' });
    expect((await list(store.keys.sk_test, '?sku=exact-sku-1')).body.data).toEqual([product]);
    expect((await list(store.keys.sk_test, '?sku=exact-sku')).body.data).toEqual([]);
    expect((await list(store.keys.sk_test, '?sku=EXACT-SKU-1')).body.data).toEqual([]);
    expect((await list(store.keys.sk_live, '?sku=exact-sku-1')).body.data).toEqual([]);
    expect((await list(other.keys.sk_test, '?sku=exact-sku-1')).body.data).toEqual([]);
  });

  it('filters combine, and pagination follows the filtered list', async () => {
    const store = await createStore(api.services);
    const wanted = await createSeries(store.keys.sk_test, 5, { type: 'physical', show_in_store: false });
    await createSeries(store.keys.sk_test, 3, { type: 'physical' });
    await createSeries(store.keys.sk_test, 3, { show_in_store: false });
    const pages = await allPages(store.keys.sk_test, 'limit=2&type=physical&show_in_store=false&mode=one_time');
    expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
    expect(pages.flatMap((page) => page.data)).toEqual(wanted);
  });

  it('an unknown query parameter is refused rather than read as no filter', async () => {
    const store = await createStore(api.services);
    expectError(await list(store.keys.sk_test, '?show_instore=false'), 400, 'parameter_invalid', 'show_instore');
  });
});

describe('GET /api/v1/products: authentication', () => {
  it('without a key → 401 missing_api_key', async () => {
    expectError(await api.request('GET', PRODUCTS), 401, 'missing_api_key');
  });

  it('with a publishable key → 401 wrong_key_type', async () => {
    const store = await createStore(api.services);
    expectError(await list(store.keys.pk_live), 401, 'wrong_key_type');
  });
});
