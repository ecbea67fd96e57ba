import { describe, expect, it } from 'vitest';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, PRODUCTS, rawApiRequest, T0 } from './support';

const api = useTestApi();
const store = useTestStore(api);

const post = (body: unknown, withKey = store.key) => api.request('POST', PRODUCTS, { key: withKey, body });
/** A valid body with one field replaced (or removed when `undefined`). */
const withField = (field: string, value: unknown) => {
  const body: Record<string, unknown> = { name: 'Ebook', amount: 1999, sku: uniqueSku() };
  if (value === undefined) delete body[field];
  else body[field] = value;
  return body;
};
const httpsImages = (n: number) => Array.from({ length: n }, (_, i) => `https://cdn.example.com/${i}.png`);

describe('POST /api/v1/products: defaults and response fields', () => {
  it('name and amount alone give a digital, visible, active one-time product with every default', async () => {
    const response = await post({ name: 'Ebook', amount: 1999 });
    expect(response.status).toBe(201);
    const body = response.body;
    expect(body).toEqual({
      id: expect.stringMatching(/^prod_test_[0-9A-Za-z]{24}$/),
      object: 'product',
      livemode: false,
      name: 'Ebook',
      description: null,
      sku: expect.stringMatching(/^[A-Za-z0-9._-]{3,64}$/),
      type: 'digital',
      show_in_store: true,
      images: [],
      amount: 1999,
      amount_decimal: '19.99',
      currency: 'eur',
      tax_rate: null,
      tax_inclusive: false,
      tax_category: 'standard',
      has_license: false,
      has_file: false,
      license_duration: null,
      price_id: expect.stringMatching(/^price_test_[0-9A-Za-z]{24}$/),
      price: {
        id: body.price_id,
        object: 'price',
        amount: 1999,
        amount_decimal: '19.99',
        currency: 'eur',
        mode: 'one_time',
        interval: null,
        interval_count: null,
        active: true,
        created: epoch(T0),
        updated: epoch(T0),
      },
      created: epoch(T0),
      updated: epoch(T0),
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('every field sent is stored and returned as sent', async () => {
    const sku = uniqueSku('Full');
    const body = {
      name: 'Video course',
      amount: 4900,
      description: 'Twelve lessons.',
      type: 'physical',
      sku,
      show_in_store: false,
      images: ['https://cdn.example.com/a.png', 'http://cdn.example.com/b.jpg'],
      tax_rate: 19,
      tax_inclusive: true,
      tax_category: 'ebook',
      mode: 'recurring',
      interval: 'month',
      interval_count: 3,
      active: false,
    };
    const response = await post(body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^prod_test_/),
      object: 'product',
      livemode: false,
      name: 'Video course',
      description: 'Twelve lessons.',
      sku,
      type: 'physical',
      show_in_store: false,
      images: ['https://cdn.example.com/a.png', 'http://cdn.example.com/b.jpg'],
      amount: 4900,
      amount_decimal: '49.00',
      currency: 'eur',
      tax_rate: 19,
      tax_inclusive: true,
      tax_category: 'ebook',
      has_license: false,
      has_file: false,
      license_duration: null,
      price_id: response.body.price.id,
      price: {
        id: expect.stringMatching(/^price_test_/),
        object: 'price',
        amount: 4900,
        amount_decimal: '49.00',
        currency: 'eur',
        mode: 'recurring',
        interval: 'month',
        interval_count: 3,
        active: false,
        created: epoch(T0),
        updated: epoch(T0),
      },
      created: epoch(T0),
      updated: epoch(T0),
    });
    const read = await api.request('GET', `${PRODUCTS}/${response.body.id}`, { key: store.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  it('a recurring price without interval_count gets interval_count 1', async () => {
    const product = await createProduct(api, store.key, { mode: 'recurring', interval: 'year' });
    expect(product.price).toMatchObject({ mode: 'recurring', interval: 'year', interval_count: 1 });
  });

  it('amount_decimal is the amount in euros with two decimals', async () => {
    const cases: [number, string][] = [
      [0, '0.00'],
      [5, '0.05'],
      [50, '0.50'],
      [100, '1.00'],
      [1999, '19.99'],
      [123456, '1234.56'],
      [99_999_999, '999999.99'],
    ];
    for (const [amount, decimal] of cases) {
      const product = await createProduct(api, store.key, { amount });
      expect([product.amount, product.amount_decimal, product.price.amount, product.price.amount_decimal]).toEqual([amount, decimal, amount, decimal]);
    }
  });

  it('an omitted sku is generated, and each generated sku is different', async () => {
    const first = await post({ name: 'A', amount: 100 });
    const second = await post({ name: 'B', amount: 100 });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.sku).toMatch(/^[A-Za-z0-9._-]{3,64}$/);
    expect(second.body.sku).toMatch(/^[A-Za-z0-9._-]{3,64}$/);
    expect(first.body.sku).not.toBe(second.body.sku);
  });

  it('a live key creates a live product with live ids', async () => {
    const product = await createProduct(api, store.keys.sk_live);
    expect(product).toMatchObject({ livemode: true, id: expect.stringMatching(/^prod_live_/), price_id: expect.stringMatching(/^price_live_/) });
    expect(product.price.id).toBe(product.price_id);
  });

  it('tax_rate 0 and null are both kept as sent (both mean no tax)', async () => {
    expect((await createProduct(api, store.key, { tax_rate: 0 })).tax_rate).toBe(0);
    expect((await createProduct(api, store.key, { tax_rate: null })).tax_rate).toBe(null);
    expect((await createProduct(api, store.key, { tax_rate: 100 })).tax_rate).toBe(100);
  });
});

describe('POST /api/v1/products: field rules', () => {
  const accepted: [string, string, unknown][] = [
    ['name', '1 char', 'E'],
    ['name', '255 chars', 'n'.repeat(255)],
    ['description', '2000 chars', 'd'.repeat(2000)],
    ['description', 'empty', ''],
    ['description', 'null', null],
    ['type', 'physical', 'physical'],
    ['sku', '3 chars', 'a1b'],
    ['sku', 'letters, digits, ".", "_" and "-"', 'Ab9._-'],
    ['images', '10 URLs', httpsImages(10)],
    ['images', 'none', []],
    ['tax_rate', '0', 0],
    ['tax_rate', '100', 100],
    ['amount', '0', 0],
    ['show_in_store', 'false', false],
    ['tax_inclusive', 'false', false],
    ['tax_category', 'standard', 'standard'],
    ['tax_category', 'ebook', 'ebook'],
    ['tax_category', 'enewspaper', 'enewspaper'],
    ['active', 'false', false],
  ];
  it.each(accepted)('%s accepts %s', async (field, _label, value) => {
    const body = withField(field, value);
    const response = await post(body);
    expect(response.status).toBe(201);
    // `active` belongs to the price; every other field is the product's own.
    expect(field === 'active' ? response.body.price.active : response.body[field]).toEqual(body[field]);
  });

  it('sku accepts exactly 64 chars', async () => {
    const sku = uniqueSku('S').padEnd(64, 'x');
    const response = await post(withField('sku', sku));
    expect(response.status).toBe(201);
    expect(response.body.sku).toBe(sku);
  });

  it('interval_count accepts 1 and 365 on a recurring price', async () => {
    for (const count of [1, 365]) {
      const product = await createProduct(api, store.key, { mode: 'recurring', interval: 'day', interval_count: count });
      expect(product.price.interval_count).toBe(count);
    }
  });

  const rejected: [string, string, unknown][] = [
    ['name', 'missing', undefined],
    ['name', 'empty', ''],
    ['name', 'blank', '   '],
    ['name', '256 chars', 'n'.repeat(256)],
    ['name', 'null', null],
    ['name', 'a number', 12],
    ['amount', 'missing', undefined],
    ['amount', 'a float', 19.99],
    ['amount', 'a numeric string', '500'],
    ['amount', 'negative', -1],
    ['amount', 'null', null],
    ['amount', 'above the maximum', 100_000_000],
    ['description', '2001 chars', 'd'.repeat(2001)],
    ['description', 'a number', 5],
    ['type', 'an unknown type', 'service'],
    ['type', 'null', null],
    ['sku', '2 chars', 'ab'],
    ['sku', '65 chars', 'k'.repeat(65)],
    ['sku', 'a space', 'ab c'],
    ['sku', 'a slash', 'ab/c'],
    ['sku', 'a non-ASCII letter', 'äbc'],
    ['sku', 'null', null],
    ['show_in_store', 'the string "true"', 'true'],
    ['show_in_store', 'the string "false"', 'false'],
    ['show_in_store', 'a number', 1],
    ['images', '11 URLs', httpsImages(11)],
    ['images', 'a string', 'https://cdn.example.com/a.png'],
    ['tax_rate', '-1', -1],
    ['tax_rate', '101', 101],
    ['tax_rate', 'a float', 7.5],
    ['tax_rate', 'a numeric string', '19'],
    ['tax_inclusive', 'the string "true"', 'true'],
    ['tax_category', 'an unknown category', 'reduced'],
    ['tax_category', 'another case', 'EBOOK'],
    ['tax_category', 'empty', ''],
    ['tax_category', 'null', null],
    ['tax_category', 'a number', 1],
    ['mode', 'an unknown mode', 'subscription'],
    ['active', 'the string "true"', 'true'],
    ['active', 'null', null],
  ];
  it.each(rejected)('%s rejects %s → parameter_invalid', async (field, _label, value) => {
    expectError(await post(withField(field, value)), 400, 'parameter_invalid', field);
  });

  const badImages: [string, string][] = [
    ['a relative URL', '/images/a.png'],
    ['a host without scheme', 'cdn.example.com/a.png'],
    ['an ftp URL', 'ftp://cdn.example.com/a.png'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:image/png;base64,AAAA'],
    ['http: without slashes', 'http:cdn.example.com'],
  ];
  it.each(badImages)('images rejects %s, naming the entry', async (_label, url) => {
    expectError(await post(withField('images', ['https://cdn.example.com/ok.png', url])), 400, 'parameter_invalid', 'images[1]');
  });

  it('images rejects a non-string entry', async () => {
    expectError(await post(withField('images', [42])), 400, 'parameter_invalid', 'images[0]');
  });

  it('interval_count rejects 0, 366, a float and a numeric string', async () => {
    for (const count of [0, 366, 1.5, '2']) {
      expectError(await post({ ...withField('mode', 'recurring'), interval: 'month', interval_count: count }), 400, 'parameter_invalid', 'interval_count');
    }
  });

  it('interval is rejected with one_time, sent or defaulted', async () => {
    expectError(await post({ ...withField('mode', 'one_time'), interval: 'month' }), 400, 'parameter_invalid', 'interval');
    expectError(await post(withField('interval', 'month')), 400, 'parameter_invalid', 'interval');
  });

  it('interval_count is rejected with one_time rather than silently dropped', async () => {
    expectError(await post(withField('interval_count', 2)), 400, 'parameter_invalid', 'interval_count');
  });

  it('recurring without interval → parameter_invalid on interval', async () => {
    expectError(await post(withField('mode', 'recurring')), 400, 'parameter_invalid', 'interval');
    expectError(await post({ ...withField('mode', 'recurring'), interval_count: 2 }), 400, 'parameter_invalid', 'interval');
  });

  it('interval rejects an unknown period', async () => {
    expectError(await post({ ...withField('mode', 'recurring'), interval: 'fortnight' }), 400, 'parameter_invalid', 'interval');
  });

  it('an unknown field is refused, never ignored', async () => {
    const response = await post(withField('colour', 'red'));
    expectError(response, 400, 'parameter_invalid', 'colour');
    expect(response.body.error.message).toBe('Received unknown parameter: colour.');
  });

  it('a body that is not a JSON object → parameter_invalid', async () => {
    expectError(await post([{ name: 'Ebook', amount: 1999 }]), 400, 'parameter_invalid');
  });
});

describe('POST /api/v1/products: fields refused with their own error', () => {
  const readOnly: [string, unknown][] = [
    ['has_license', true],
    ['has_license', false],
    ['file_url', 'https://files.example.com/book.pdf'],
    ['has_file', true],
  ];
  it.each(readOnly)('%s (%s) → parameter_invalid naming the field', async (field, value) => {
    const response = await post(withField(field, value));
    expectError(response, 400, 'parameter_invalid', field);
    expect(response.body.error.message).toContain(`\`${field}\``);
  });

  it.each([
    ['price', 1999],
    ['price', { amount: 1999 }],
    ['currency', 'eur'],
    ['currency', 'usd'],
  ])('%s (%j) → parameter_invalid with a message that points at amount', async (field, value) => {
    const response = await post(withField(field, value));
    expectError(response, 400, 'parameter_invalid', field);
    expect(response.body.error.message).toContain('`amount`');
  });

  it('price sent instead of amount is answered with the pointer to amount, not a missing field', async () => {
    const response = await post({ name: 'Ebook', price: 1999 });
    expectError(response, 400, 'parameter_invalid', 'price');
    expect(response.body.error.message).toContain('`amount`');
  });

  it('nothing is created when a refused field is sent', async () => {
    const sku = uniqueSku();
    expectError(await post({ name: 'Ebook', amount: 1999, sku, file_url: 'https://files.example.com/x.pdf' }), 400, 'parameter_invalid', 'file_url');
    const list = await api.request('GET', `${PRODUCTS}?sku=${sku}`, { key: store.key });
    expect(list.body.data).toEqual([]);
  });
});

describe('POST /api/v1/products: sku uniqueness across the platform', () => {
  it('a taken sku → 409 sku_unavailable, byte-identical whether it is this store’s, the other environment’s or another store’s', async () => {
    const other = await createStore(api.services);
    const own = uniqueSku();
    const ownLive = uniqueSku();
    const foreign = uniqueSku();
    await createProduct(api, store.key, { sku: own });
    await createProduct(api, store.keys.sk_live, { sku: ownLive });
    await createProduct(api, other.keys.sk_test, { sku: foreign });

    const answers = [];
    for (const sku of [own, ownLive, foreign]) {
      const response = await rawApiRequest(api, 'POST', PRODUCTS, store.key, { name: 'Copy', amount: 100, sku });
      expectError(response, 409, 'sku_unavailable', 'sku');
      answers.push(response.text);
    }
    expect(new Set(answers).size).toBe(1);
    for (const sku of [own, ownLive, foreign]) expect(answers[0]).not.toContain(sku);
  });

  it('skus are case-sensitive: a sku differing only in case is a different sku', async () => {
    const sku = uniqueSku('case');
    await createProduct(api, store.key, { sku });
    const product = await createProduct(api, store.key, { sku: sku.toUpperCase() });
    expect(product.sku).toBe(sku.toUpperCase());
  });
});

describe('POST /api/v1/products: authentication', () => {
  it('without a key → 401 missing_api_key', async () => {
    expectError(await api.request('POST', PRODUCTS, { body: { name: 'Ebook', amount: 1999 } }), 401, 'missing_api_key');
  });

  it('with a publishable key → 401 wrong_key_type, and nothing is created', async () => {
    const sku = uniqueSku();
    expectError(await post({ name: 'Ebook', amount: 1999, sku }, store.keys.pk_test), 401, 'wrong_key_type');
    const list = await api.request('GET', `${PRODUCTS}?sku=${sku}`, { key: store.key });
    expect(list.body.data).toEqual([]);
  });
});
