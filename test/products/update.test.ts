import { describe, expect, it } from 'vitest';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, PRODUCTS, rawApiRequest, T0 } from './support';

const api = useTestApi();
const store = useTestStore(api);

const T1 = new Date(T0.getTime() + 60_000);
const patch = (id: string, body: unknown, withKey = store.key) => api.request('PATCH', `${PRODUCTS}/${id}`, { key: withKey, body });
const postAlias = (id: string, body: unknown, withKey = store.key) => api.request('POST', `${PRODUCTS}/${id}`, { key: withKey, body });
const read = async (id: string, withKey = store.key) => (await api.request('GET', `${PRODUCTS}/${id}`, { key: withKey })).body;

async function createRecurring(body: Record<string, unknown> = {}) {
  return createProduct(api, store.key, { mode: 'recurring', interval: 'month', interval_count: 3, ...body });
}

describe.each([
  ['PATCH', patch],
  ['POST', postAlias],
])('%s /api/v1/products/{id}: partial update', (method, update) => {
  it(`${method} changes only the fields sent; product updated moves, price updated stays when the price is untouched`, async () => {
    const product = await createProduct(api, store.key, { description: 'Old', tax_rate: 19 });
    api.clock.set(T1);
    const response = await update(product.id, { name: 'New name', images: ['https://cdn.example.com/new.png'] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...product, name: 'New name', images: ['https://cdn.example.com/new.png'], updated: epoch(T1) });
    expect(await read(product.id)).toEqual(response.body);
  });

  it(`${method} of a price field moves price.updated too`, async () => {
    const product = await createProduct(api, store.key);
    api.clock.set(T1);
    const response = await update(product.id, { amount: 2500, active: false });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...product,
      amount: 2500,
      amount_decimal: '25.00',
      updated: epoch(T1),
      price: { ...product.price, amount: 2500, amount_decimal: '25.00', active: false, updated: epoch(T1) },
    });
  });

  it(`${method} can set every field of the create body`, async () => {
    const product = await createProduct(api, store.key);
    const sku = uniqueSku('Upd');
    api.clock.set(T1);
    const response = await update(product.id, {
      name: 'Course',
      amount: 12000,
      description: 'Twelve lessons.',
      type: 'physical',
      sku,
      show_in_store: false,
      images: ['http://cdn.example.com/a.png'],
      tax_rate: 7,
      tax_inclusive: true,
      tax_category: 'enewspaper',
      mode: 'recurring',
      interval: 'week',
      interval_count: 2,
      active: false,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...product,
      name: 'Course',
      amount: 12000,
      amount_decimal: '120.00',
      description: 'Twelve lessons.',
      type: 'physical',
      sku,
      show_in_store: false,
      images: ['http://cdn.example.com/a.png'],
      tax_rate: 7,
      tax_inclusive: true,
      tax_category: 'enewspaper',
      updated: epoch(T1),
      price: {
        ...product.price,
        amount: 12000,
        amount_decimal: '120.00',
        mode: 'recurring',
        interval: 'week',
        interval_count: 2,
        active: false,
        updated: epoch(T1),
      },
    });
  });

  it(`${method} rule 1: mode recurring without interval is rejected even when already recurring, and changes nothing`, async () => {
    const product = await createRecurring();
    expectError(await update(product.id, { mode: 'recurring' }), 400, 'parameter_invalid', 'interval');
    expectError(await update(product.id, { mode: 'recurring', interval_count: 6, name: 'Changed' }), 400, 'parameter_invalid', 'interval');
    expect(await read(product.id)).toEqual(product);
  });

  it(`${method} rule 2: switching recurring to one_time clears interval and interval_count`, async () => {
    const product = await createRecurring();
    api.clock.set(T1);
    const response = await update(product.id, { mode: 'one_time' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...product,
      updated: epoch(T1),
      price: { ...product.price, mode: 'one_time', interval: null, interval_count: null, updated: epoch(T1) },
    });
  });
});

describe('PATCH /api/v1/products/{id}: the resulting price as a whole', () => {
  it('rule 1: mode recurring with an interval restates the price; interval_count falls back to its default 1', async () => {
    const product = await createRecurring();
    const response = await patch(product.id, { mode: 'recurring', interval: 'year' });
    expect(response.status).toBe(200);
    expect(response.body.price).toMatchObject({ mode: 'recurring', interval: 'year', interval_count: 1 });
  });

  it('without mode, interval or interval_count alone change a recurring price and keep the other', async () => {
    const product = await createRecurring();
    expect((await patch(product.id, { interval: 'week' })).body.price).toMatchObject({ mode: 'recurring', interval: 'week', interval_count: 3 });
    expect((await patch(product.id, { interval_count: 12 })).body.price).toMatchObject({ mode: 'recurring', interval: 'week', interval_count: 12 });
  });

  it('a one-time product becomes recurring only with its interval', async () => {
    const product = await createProduct(api, store.key);
    expectError(await patch(product.id, { mode: 'recurring' }), 400, 'parameter_invalid', 'interval');
    expectError(await patch(product.id, { mode: 'recurring', interval_count: 2 }), 400, 'parameter_invalid', 'interval');
    const response = await patch(product.id, { mode: 'recurring', interval: 'day', interval_count: 30 });
    expect(response.status).toBe(200);
    expect(response.body.price).toMatchObject({ mode: 'recurring', interval: 'day', interval_count: 30 });
  });

  it('interval or interval_count on a one-time product is rejected, sent alone or with mode one_time', async () => {
    const product = await createProduct(api, store.key);
    expectError(await patch(product.id, { interval: 'month' }), 400, 'parameter_invalid', 'interval');
    expectError(await patch(product.id, { interval_count: 2 }), 400, 'parameter_invalid', 'interval_count');
    const recurring = await createRecurring();
    expectError(await patch(recurring.id, { mode: 'one_time', interval: 'month' }), 400, 'parameter_invalid', 'interval');
    expectError(await patch(recurring.id, { mode: 'one_time', interval_count: 1 }), 400, 'parameter_invalid', 'interval_count');
    expect(await read(product.id)).toEqual(product);
    expect(await read(recurring.id)).toEqual(recurring);
  });

  it('concurrent updates of the same product lose neither change', async () => {
    const product = await createProduct(api, store.key);
    const [amount, mode] = await Promise.all([patch(product.id, { amount: 2000 }), patch(product.id, { mode: 'recurring', interval: 'month' })]);
    expect([amount.status, mode.status]).toEqual([200, 200]);
    expect((await read(product.id)).price).toMatchObject({ amount: 2000, mode: 'recurring', interval: 'month', interval_count: 1 });
  });
});

describe('PATCH /api/v1/products/{id}: field rules', () => {
  it('an empty body changes nothing, timestamps included', async () => {
    const product = await createProduct(api, store.key);
    api.clock.set(T1);
    const response = await patch(product.id, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(product);
  });

  it('sending the current values changes nothing, timestamps included', async () => {
    const product = await createProduct(api, store.key);
    api.clock.set(T1);
    const response = await patch(product.id, { name: product.name, amount: product.amount, sku: product.sku, active: true });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(product);
  });

  it('description and tax_rate can be cleared with null; tax_rate 0 is kept as 0', async () => {
    const product = await createProduct(api, store.key, { description: 'Text', tax_rate: 19 });
    expect((await patch(product.id, { description: null, tax_rate: null })).body).toMatchObject({ description: null, tax_rate: null });
    expect((await patch(product.id, { tax_rate: 0 })).body.tax_rate).toBe(0);
  });

  const rejected: [string, unknown][] = [
    ['name', ''],
    ['name', 'n'.repeat(256)],
    ['name', null],
    ['amount', 19.99],
    ['amount', '500'],
    ['amount', null],
    ['description', 'd'.repeat(2001)],
    ['description', 5],
    ['type', 'service'],
    ['sku', 'ab'],
    ['sku', null],
    ['show_in_store', 'true'],
    ['images', Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.png`)],
    ['tax_rate', 101],
    ['tax_rate', -1],
    ['tax_rate', 7.5],
    ['tax_rate', '19'],
    ['interval_count', 0],
    ['interval_count', 366],
    ['interval_count', 1.5],
    ['interval_count', '2'],
    ['tax_inclusive', 'false'],
    ['tax_category', 'reduced'],
    ['tax_category', 'Ebook'],
    ['tax_category', null],
    ['mode', 'weekly'],
    ['active', 'true'],
    ['colour', 'red'],
  ];
  it.each(rejected)('%s = %j → parameter_invalid, and nothing changes', async (field, value) => {
    const product = await createRecurring();
    expectError(await patch(product.id, { [field]: value }), 400, 'parameter_invalid', field);
    expect(await read(product.id)).toEqual(product);
  });

  it.each(['has_license', 'file_url', 'has_file'])('%s is refused on update too', async (field) => {
    const product = await createProduct(api, store.key);
    const response = await patch(product.id, { [field]: field === 'file_url' ? 'https://files.example.com/x.pdf' : true });
    expectError(response, 400, 'parameter_invalid', field);
    expect(response.body.error.message).toContain(`\`${field}\``);
  });

  it.each([
    ['price', 2500],
    ['currency', 'eur'],
  ])('%s is refused on update with a message that points at amount', async (field, value) => {
    const product = await createProduct(api, store.key);
    const response = await patch(product.id, { name: 'Renamed', [field]: value });
    expectError(response, 400, 'parameter_invalid', field);
    expect(response.body.error.message).toContain('`amount`');
    expect(await read(product.id)).toEqual(product);
  });

  it('an id in the body is refused: the product is named by the path', async () => {
    const product = await createProduct(api, store.key);
    const other = await createProduct(api, store.key);
    expectError(await patch(product.id, { id: other.id, name: 'Renamed' }), 400, 'parameter_invalid', 'id');
    expect(await read(product.id)).toEqual(product);
    expect(await read(other.id)).toEqual(other);
  });
});

describe('PATCH /api/v1/products/{id}: sku uniqueness', () => {
  it('a free sku can be taken, and the old one is released', async () => {
    const product = await createProduct(api, store.key);
    const sku = uniqueSku('Move');
    expect((await patch(product.id, { sku })).body.sku).toBe(sku);
    expect((await createProduct(api, store.key, { sku: product.sku })).sku).toBe(product.sku);
  });

  it('a taken sku → 409 sku_unavailable, byte-identical whoever owns it; POST alias alike', async () => {
    const other = await createStore(api.services);
    const product = await createProduct(api, store.key);
    const skus = [(await createProduct(api, store.key)).sku, (await createProduct(api, store.keys.sk_live)).sku, (await createProduct(api, other.keys.sk_test)).sku];
    const answers = [];
    for (const sku of skus) {
      for (const method of ['PATCH', 'POST']) {
        const response = await rawApiRequest(api, method, `${PRODUCTS}/${product.id}`, store.key, { sku });
        expectError(response, 409, 'sku_unavailable', 'sku');
        answers.push(response.text);
      }
    }
    expect(new Set(answers).size).toBe(1);
    expect(await read(product.id)).toEqual(product);
  });
});

describe('PATCH /api/v1/products/{id}: isolation', () => {
  it('another store’s, the other environment’s and an unknown id → 404 resource_missing, byte-identical, nothing changed', async () => {
    const other = await createStore(api.services);
    const product = await createProduct(api, store.key);
    const path = `${PRODUCTS}/${product.id}`;
    const answers = [];
    for (const method of ['PATCH', 'POST']) {
      for (const otherKey of [other.keys.sk_test, store.keys.sk_live]) {
        const response = await rawApiRequest(api, method, path, otherKey, { name: 'Hijacked' });
        expectError(response, 404, 'resource_missing', 'id');
        answers.push(response.text);
      }
    }
    expect(await read(product.id)).toEqual(product);
    expect((await api.request('DELETE', path, { key: store.key })).status).toBe(200);
    const unknown = await rawApiRequest(api, 'PATCH', path, store.key, { name: 'Hijacked' });
    expectError(unknown, 404, 'resource_missing', 'id');
    expect(new Set([...answers, unknown.text]).size).toBe(1);
  });
});

describe('PATCH and POST /api/v1/products/{id}: authentication', () => {
  it.each(['PATCH', 'POST'])('%s without a key → 401 missing_api_key', async (method) => {
    const product = await createProduct(api, store.key);
    expectError(await api.request(method, `${PRODUCTS}/${product.id}`, { body: { name: 'X' } }), 401, 'missing_api_key');
  });

  it.each(['PATCH', 'POST'])('%s with a publishable key → 401 wrong_key_type, nothing changed', async (method) => {
    const product = await createProduct(api, store.key);
    expectError(await api.request(method, `${PRODUCTS}/${product.id}`, { key: store.keys.pk_test, body: { name: 'X' } }), 401, 'wrong_key_type');
    expect(await read(product.id)).toEqual(product);
  });
});

describe('tax_category in either tax mode', () => {
  const buyerCountry = useTestStore(api, { taxMode: 'buyer_country' });

  it.each([
    ['product_rate', () => store.key],
    ['buyer_country', () => buyerCountry.key],
  ])('a %s store sets it on create and update; reads, lists and events carry it; null is refused', async (_mode, key) => {
    const created = await api.request('POST', PRODUCTS, { key: key(), body: { name: 'Atlas', amount: 1999, tax_category: 'ebook' } });
    expect(created.status).toBe(201);
    expect(created.body.tax_category).toBe('ebook');
    expect(await read(created.body.id, key())).toEqual(created.body);
    const listed = await api.request('GET', `${PRODUCTS}?limit=100`, { key: key() });
    expect(listed.body.data.find((product: { id: string }) => product.id === created.body.id)).toEqual(created.body);

    api.clock.set(T1);
    const updated = await patch(created.body.id, { tax_category: 'enewspaper' }, key());
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created.body, tax_category: 'enewspaper', updated: epoch(T1) });
    const events = await api.request('GET', `/api/v1/events?object_id=${created.body.id}`, { key: key() });
    expect(events.body.data.map((event: { type: string; data: unknown }) => [event.type, event.data])).toEqual([
      ['product.updated', { object: updated.body, previous_attributes: { tax_category: 'ebook', updated: epoch(T0) } }],
      ['product.created', { object: created.body }],
    ]);

    const refused = await patch(created.body.id, { tax_category: null }, key());
    expectError(refused, 400, 'parameter_invalid', 'tax_category');
    expect(await read(created.body.id, key())).toEqual(updated.body);
  });
});
