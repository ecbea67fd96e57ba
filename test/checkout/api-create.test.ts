import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { products } from '@/db/schema';
import { checkLink, clientSecretHash } from '@/server/kit/links';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { rawRequest } from '../http/helpers';
import { createProduct, epoch, expectError, HOUR, parseSessionUrl, readOrder, readSessionRow, SESSIONS, T0 } from './api-support';

const api = useTestApi();
type Store = Awaited<ReturnType<typeof createStore>>;
let store: Store;
let key: string;
let product: any;
let amountStore: Store;
let taxStore: Store;

beforeAll(async () => {
  store = await createStore(api.services);
  key = store.keys.sk_test;
  product = await createProduct(api, key, { name: 'Ebook', amount: 1999 });
  amountStore = await createStore(api.services, { amountMode: true });
  taxStore = await createStore(api.services, { taxCalculation: true });
});
beforeEach(() => api.clock.set(T0));

const post = (body: unknown, withKey = key, headers: Record<string, string> = {}) => api.request('POST', SESSIONS, { key: withKey, body, headers });

describe('POST /api/v1/checkout/sessions: price mode', () => {
  it('price_id alone gives an open, unpaid session with every field, an order and a signed url', async () => {
    const response = await post({ price_id: product.price_id });
    expect(response.status).toBe(201);
    const body = response.body;
    expect(Object.keys(body)).toEqual([
      'id',
      'object',
      'url',
      'client_secret',
      'status',
      'payment_status',
      'livemode',
      'currency',
      'allow_promotion_codes',
      'discount',
      'amount_discount',
      'amount_subtotal',
      'amount_tax',
      'amount_total',
      'quantity',
      'price_id',
      'product_id',
      'description',
      'order_id',
      'customer_email',
      'success_url',
      'cancel_url',
      'metadata',
      'customer_details',
      'tax_country',
      'tax_treatment',
      'created',
      'expires_at',
    ]);
    expect(body).toEqual({
      id: expect.stringMatching(/^cs_test_[0-9A-Za-z]{24}$/),
      object: 'checkout.session',
      url: expect.any(String),
      client_secret: expect.stringMatching(new RegExp(`^${body.id}_secret_[0-9A-Za-z]{24,}$`)),
      status: 'open',
      payment_status: 'unpaid',
      livemode: false,
      currency: 'eur',
      allow_promotion_codes: false,
      discount: null,
      amount_discount: 0,
      amount_subtotal: 1999,
      amount_tax: 0,
      amount_total: 1999,
      quantity: 1,
      price_id: product.price_id,
      product_id: product.id,
      description: null,
      order_id: expect.stringMatching(/^ord_test_[0-9A-Za-z]{24}$/),
      customer_email: null,
      success_url: null,
      cancel_url: null,
      metadata: {},
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      created: epoch(T0),
      expires_at: epoch(T0) + 24 * HOUR,
    });
    const url = parseSessionUrl(body.url);
    expect(url.origin).toBe(new URL(api.services.config.publicBaseUrl).origin);
    expect(url.path).toBe(`/checkout/${body.id}`);
    expect(url.expires).toBe(String(body.expires_at));
    expect(checkLink('test-auth-secret', 'checkout', body.id, url.expires!, url.signature!, epoch(T0))).toBe('valid');

    const row = await readSessionRow(api, body.id);
    expect(row).toMatchObject({ mode: 'price', storeId: store.id, clientSecretHash: clientSecretHash(body.client_secret) });
    expect(JSON.stringify(row)).not.toContain(body.client_secret);
    const { order, lines } = await readOrder(api, body.order_id);
    expect(order).toMatchObject({ id: body.order_id, storeId: store.id, livemode: false, status: 'pending', customerEmail: null, amountSubtotal: 1999, amountTax: 0, amountTotal: 1999 });
    expect(lines).toEqual([
      expect.objectContaining({
        position: 0,
        productId: product.id,
        priceId: product.price_id,
        description: 'Ebook',
        quantity: 1,
        unitAmount: 1999,
        amountSubtotal: 1999,
        amountTax: 0,
        amountTotal: 1999,
        taxRate: null,
        taxInclusive: false,
        hasLicense: false,
      }),
    ]);
  });
});

describe('POST /api/v1/checkout/sessions: keys and wire format', () => {
  it('the secret key in X-Api-Key is accepted as well as Bearer', async () => {
    const response = await api.request('POST', SESSIONS, { body: { price_id: product.price_id }, headers: { 'x-api-key': key } });
    expect(response.status).toBe(201);
    expect(response.body.id).toMatch(/^cs_test_/);
  });

  it('no key → 401 missing_api_key; a publishable key → 401 wrong_key_type; an unknown key → 401 invalid_api_key', async () => {
    expectError(await api.request('POST', SESSIONS, { body: { price_id: product.price_id } }), 401, 'missing_api_key');
    expectError(await post({ price_id: product.price_id }, store.keys.pk_test), 401, 'wrong_key_type');
    expectError(await post({ price_id: product.price_id }, `sk_test_${'x'.repeat(32)}`), 401, 'invalid_api_key');
  });

  it('without Content-Type: application/json → 415 unsupported_media_type', async () => {
    const body = JSON.stringify({ price_id: product.price_id });
    expectError(await rawRequest(api.baseUrl, 'POST', SESSIONS, { headers: { authorization: `Bearer ${key}` }, body: new TextEncoder().encode(body) }), 415, 'unsupported_media_type');
    expectError(await rawRequest(api.baseUrl, 'POST', SESSIONS, { headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, body }), 415, 'unsupported_media_type');
  });

  it('malformed JSON → 400 invalid_json', async () => {
    expectError(await rawRequest(api.baseUrl, 'POST', SESSIONS, { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"price_id":' }), 400, 'invalid_json');
  });

  it('an unknown field → 400 parameter_invalid naming it', async () => {
    expectError(await post({ price_id: product.price_id, colour: 'red' }), 400, 'parameter_invalid', 'colour');
  });

  it('`currency` → 400 currency_unsupported, even `eur`, before any other rule', async () => {
    expectError(await post({ price_id: product.price_id, currency: 'usd' }), 400, 'currency_unsupported', 'currency');
    expectError(await post({ price_id: product.price_id, currency: 'eur' }), 400, 'currency_unsupported', 'currency');
    expectError(await post({ currency: 'eur', colour: 'red' }), 400, 'currency_unsupported', 'currency');
  });
});

describe('POST /api/v1/checkout/sessions: mode selectors', () => {
  it('no mode selector → 400 parameter_invalid', async () => {
    expectError(await post({}), 400, 'parameter_invalid');
    expectError(await post({ success_url: 'https://shop.example.com/ok' }), 400, 'parameter_invalid');
  });

  it('price_id with line_items → 400 parameter_invalid', async () => {
    expectError(await post({ price_id: product.price_id, line_items: [{ price_id: product.price_id }] }), 400, 'parameter_invalid', 'line_items');
  });

  it('price_id with amount (amount mode on) → 400 parameter_invalid', async () => {
    const own = await createProduct(api, amountStore.keys.sk_test);
    expectError(await post({ price_id: own.price_id, amount: 500, description: 'Consulting' }, amountStore.keys.sk_test), 400, 'parameter_invalid', 'amount');
    expectError(await post({ line_items: [{ price_id: own.price_id }], amount: 500, description: 'Consulting' }, amountStore.keys.sk_test), 400, 'parameter_invalid', 'amount');
  });
});

describe('POST /api/v1/checkout/sessions: price mode rules', () => {
  it('the price id is accepted without its leading `price_`', async () => {
    const response = await post({ price_id: product.price_id.slice('price_'.length) });
    expect(response.status).toBe(201);
    expect(response.body.price_id).toBe(product.price_id);
    expect(response.body.product_id).toBe(product.id);
  });

  it('quantity multiplies the amount; 1 and 100 are the bounds', async () => {
    const three = await post({ price_id: product.price_id, quantity: 3 });
    expect(three.status).toBe(201);
    expect(three.body).toMatchObject({ quantity: 3, amount_subtotal: 5997, amount_tax: 0, amount_total: 5997 });
    const { lines } = await readOrder(api, three.body.order_id);
    expect(lines).toEqual([expect.objectContaining({ quantity: 3, unitAmount: 1999, amountTotal: 5997 })]);
    expect((await post({ price_id: product.price_id, quantity: 1 })).status).toBe(201);
    const hundred = await post({ price_id: product.price_id, quantity: 100 });
    expect(hundred.status).toBe(201);
    expect(hundred.body.amount_total).toBe(199_900);
  });

  it.each([0, 101, -1, 1.5, '2', null, true])('quantity %j → 400 parameter_invalid', async (quantity) => {
    expectError(await post({ price_id: product.price_id, quantity }), 400, 'parameter_invalid', 'quantity');
  });

  it('quantity with line_items → 400 parameter_invalid', async () => {
    expectError(await post({ line_items: [{ price_id: product.price_id }], quantity: 2 }), 400, 'parameter_invalid', 'quantity');
  });

  it('quantity with amount → 400 parameter_invalid', async () => {
    expectError(await post({ amount: 500, description: 'Consulting', quantity: 2 }, amountStore.keys.sk_test), 400, 'parameter_invalid', 'quantity');
  });

  it('an unknown price → 404 resource_missing on price_id', async () => {
    expectError(await post({ price_id: 'price_test_000000000000000000000000' }), 404, 'resource_missing', 'price_id');
    expectError(await post({ price_id: 'nonsense' }), 404, 'resource_missing', 'price_id');
  });

  it('another store’s price and this store’s live price answer exactly like an unknown one', async () => {
    const other = await createStore(api.services);
    const foreign = await createProduct(api, other.keys.sk_test);
    const live = await createProduct(api, store.keys.sk_live);
    const unknown = await post({ price_id: 'price_test_000000000000000000000000' });
    for (const priceId of [foreign.price_id, live.price_id, live.price_id.slice('price_'.length)]) {
      const response = await post({ price_id: priceId });
      expectError(response, 404, 'resource_missing', 'price_id');
      expect(response.body).toEqual(unknown.body);
    }
    // And the other way round: a test price is unknown to the live key.
    expectError(await post({ price_id: product.price_id }, store.keys.sk_live), 404, 'resource_missing', 'price_id');
  });

  it('an inactive price → 400 price_inactive', async () => {
    const inactive = await createProduct(api, key, { active: false });
    expectError(await post({ price_id: inactive.price_id }), 400, 'price_inactive', 'price_id');
  });

  it('a recurring price → 400 price_mode_unsupported', async () => {
    const recurring = await createProduct(api, key, { mode: 'recurring', interval: 'month' });
    expectError(await post({ price_id: recurring.price_id }), 400, 'price_mode_unsupported', 'price_id');
  });

  it('the order line keeps the product’s license flag, so paying issues keys for it', async () => {
    const licensed = await createProduct(api, key, { name: 'Editor licence', amount: 4900 });
    await api.services.db.update(products).set({ hasLicense: true }).where(eq(products.id, licensed.id));
    const response = await post({ price_id: licensed.price_id, quantity: 2 });
    expect(response.status).toBe(201);
    const { lines } = await readOrder(api, response.body.order_id);
    expect(lines).toEqual([expect.objectContaining({ productId: licensed.id, description: 'Editor licence', quantity: 2, hasLicense: true })]);
  });

  it('a total above 99,999,999 cents → 400 parameter_invalid', async () => {
    const dear = await createProduct(api, key, { amount: 99_999_999 });
    expectError(await post({ price_id: dear.price_id, quantity: 2 }), 400, 'parameter_invalid', 'quantity');
    expect((await post({ price_id: dear.price_id })).status).toBe(201);
  });
});

describe('POST /api/v1/checkout/sessions: line items mode', () => {
  it('line items: amount_total is the sum of the entries; quantity defaults to 1; the lines are on the order', async () => {
    const second = await createProduct(api, key, { name: 'Audiobook', amount: 500 });
    const response = await post({ line_items: [{ price_id: product.price_id, quantity: 2 }, { price_id: second.price_id.slice('price_'.length) }] });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      amount_subtotal: 4498,
      amount_tax: 0,
      amount_total: 4498,
      quantity: 3,
      price_id: null,
      product_id: null,
      description: null,
    });
    expect((await readSessionRow(api, response.body.id))?.mode).toBe('line_items');
    const { order, lines } = await readOrder(api, response.body.order_id);
    expect(order).toMatchObject({ status: 'pending', amountSubtotal: 4498, amountTax: 0, amountTotal: 4498 });
    expect(lines).toEqual([
      expect.objectContaining({ position: 0, productId: product.id, priceId: product.price_id, description: 'Ebook', quantity: 2, unitAmount: 1999, amountTotal: 3998 }),
      expect.objectContaining({ position: 1, productId: second.id, priceId: second.price_id, description: 'Audiobook', quantity: 1, unitAmount: 500, amountTotal: 500 }),
    ]);
  });

  it('a line keeps its product’s name as written: quotes, backslashes and characters beyond ASCII', async () => {
    const name = 'Ébook "Deluxe" \\ 2nd ed. 📘';
    const fancy = await createProduct(api, key, { name });
    const response = await post({ line_items: [{ price_id: fancy.price_id }, { price_id: product.price_id, quantity: 3 }] });
    expect(response.status).toBe(201);
    const { lines } = await readOrder(api, response.body.order_id);
    expect(lines.map((line) => [line.position, line.description, line.quantity])).toEqual([
      [0, name, 1],
      [1, 'Ebook', 3],
    ]);
  });

  it('line_items takes 1–100 entries', async () => {
    expectError(await post({ line_items: [] }), 400, 'parameter_invalid', 'line_items');
    const hundred = Array.from({ length: 100 }, () => ({ price_id: product.price_id }));
    const response = await post({ line_items: hundred });
    expect(response.status).toBe(201);
    expect(response.body.amount_total).toBe(199_900);
    expectError(await post({ line_items: [...hundred, { price_id: product.price_id }] }), 400, 'parameter_invalid', 'line_items');
  });

  it('each entry is checked like price mode, and blamed by its position', async () => {
    const inactive = await createProduct(api, key, { active: false });
    const recurring = await createProduct(api, key, { mode: 'recurring', interval: 'year' });
    const other = await createStore(api.services);
    const foreign = await createProduct(api, other.keys.sk_test);
    const ok = { price_id: product.price_id };
    expectError(await post({ line_items: [ok, { price_id: foreign.price_id }] }), 404, 'resource_missing', 'line_items[1].price_id');
    expectError(await post({ line_items: [ok, ok, { price_id: inactive.price_id }] }), 400, 'price_inactive', 'line_items[2].price_id');
    expectError(await post({ line_items: [{ price_id: recurring.price_id }] }), 400, 'price_mode_unsupported', 'line_items[0].price_id');
    expectError(await post({ line_items: [{ price_id: product.price_id, quantity: 101 }] }), 400, 'parameter_invalid', 'line_items[0].quantity');
    expectError(await post({ line_items: [{ quantity: 1 }] }), 400, 'parameter_invalid', 'line_items[0].price_id');
    expectError(await post({ line_items: [{ price_id: product.price_id, amount: 1 }] }), 400, 'parameter_invalid', 'line_items[0].amount');
    expectError(await post({ line_items: { price_id: product.price_id } }), 400, 'parameter_invalid', 'line_items');
  });
});

describe('POST /api/v1/checkout/sessions: amount mode (amount_mode_unsupported before any other error)', () => {
  it('amount with description, in a store with amount mode: one line, no product, no tax', async () => {
    const response = await post({ amount: 12_345, description: 'Consulting, March' }, amountStore.keys.sk_test);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      amount_subtotal: 12_345,
      amount_tax: 0,
      amount_total: 12_345,
      quantity: 1,
      price_id: null,
      product_id: null,
      description: 'Consulting, March',
    });
    const { lines } = await readOrder(api, response.body.order_id);
    expect(lines).toEqual([
      expect.objectContaining({ productId: null, priceId: null, description: 'Consulting, March', quantity: 1, unitAmount: 12_345, amountTax: 0, amountTotal: 12_345, hasLicense: false }),
    ]);
  });

  it('any body containing `amount` without amount mode → 400 amount_mode_unsupported, whatever else it holds', async () => {
    for (const body of [
      { amount: 500, description: 'Consulting' },
      { amount: 500 },
      { amount: 'lots', currency: 'usd', colour: 'red' },
      { amount: null, price_id: product.price_id },
      { price_id: product.price_id, quantity: 500, amount: 1, metadata: [1] },
    ]) {
      expectError(await post(body), 400, 'amount_mode_unsupported', 'amount');
    }
    expectError(await post({ amount: 500, description: 'Consulting' }, store.keys.sk_live), 400, 'amount_mode_unsupported', 'amount');
  });

  it('amount is 50–1,000,000 cents', async () => {
    const amountKey = amountStore.keys.sk_test;
    expect((await post({ amount: 50, description: 'Tip' }, amountKey)).status).toBe(201);
    expect((await post({ amount: 1_000_000, description: 'Consulting' }, amountKey)).status).toBe(201);
    for (const amount of [49, 1_000_001, 0, -100, 99.5, '500']) {
      expectError(await post({ amount, description: 'Consulting' }, amountKey), 400, 'parameter_invalid', 'amount');
    }
  });

  it('description is required with amount, 1–255 characters of plain text', async () => {
    const amountKey = amountStore.keys.sk_test;
    expectError(await post({ amount: 500 }, amountKey), 400, 'parameter_invalid', 'description');
    expect((await post({ amount: 500, description: 'x'.repeat(255) }, amountKey)).status).toBe(201);
    for (const description of ['', 'x'.repeat(256), '   ', '<b>Consulting</b>', 'Line\nbreak', 42]) {
      expectError(await post({ amount: 500, description }, amountKey), 400, 'parameter_invalid', 'description');
    }
  });

  it('description is valid only with amount', async () => {
    expectError(await post({ price_id: product.price_id, description: 'Ebook' }), 400, 'parameter_invalid', 'description');
    expectError(await post({ line_items: [{ price_id: product.price_id }], description: 'Cart' }), 400, 'parameter_invalid', 'description');
  });
});

describe('POST /api/v1/checkout/sessions: urls and customer_email', () => {
  it('success_url and cancel_url are stored and returned; http is allowed in test mode', async () => {
    const response = await post({ price_id: product.price_id, success_url: 'http://localhost:3001/thanks?x=1', cancel_url: 'https://shop.example.com/cart' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ success_url: 'http://localhost:3001/thanks?x=1', cancel_url: 'https://shop.example.com/cart' });
  });

  it.each([
    ['success_url', 'invalid_success_url'],
    ['cancel_url', 'invalid_cancel_url'],
  ])('%s must be an absolute http(s) URL of at most 2000 characters → %s', async (field, code) => {
    const long = `https://shop.example.com/${'a'.repeat(2000 - 'https://shop.example.com/'.length)}`;
    expect(long.length).toBe(2000);
    expect((await post({ price_id: product.price_id, [field]: long })).status).toBe(201);
    for (const url of ['/thanks', 'shop.example.com/thanks', 'ftp://shop.example.com/x', 'javascript:alert(1)', 'https://', `${long}a`, '', 42, null]) {
      expectError(await post({ price_id: product.price_id, [field]: url }), 400, code, field);
    }
  });

  it.each([
    ['success_url', 'invalid_success_url'],
    ['cancel_url', 'invalid_cancel_url'],
  ])('live mode requires https for %s → %s', async (field, code) => {
    const live = await createProduct(api, store.keys.sk_live);
    expectError(await post({ price_id: live.price_id, [field]: 'http://shop.example.com/x' }, store.keys.sk_live), 400, code, field);
    const response = await post({ price_id: live.price_id, [field]: 'https://shop.example.com/x' }, store.keys.sk_live);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ livemode: true, [field]: 'https://shop.example.com/x' });
    expect(response.body.id).toMatch(/^cs_live_[0-9A-Za-z]{24}$/);
    expect(response.body.order_id).toMatch(/^ord_live_[0-9A-Za-z]{24}$/);
  });

  it('customer_email: a valid address of at most 254 characters, on the session and its order', async () => {
    const response = await post({ price_id: product.price_id, customer_email: 'buyer@example.com' });
    expect(response.status).toBe(201);
    expect(response.body.customer_email).toBe('buyer@example.com');
    expect((await readOrder(api, response.body.order_id)).order?.customerEmail).toBe('buyer@example.com');
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(longest.length).toBe(254);
    expect((await post({ price_id: product.price_id, customer_email: longest })).status).toBe(201);
    for (const email of ['not-an-email', 'a@b', '', `${longest}m`, 7]) {
      expectError(await post({ price_id: product.price_id, customer_email: email }), 400, 'parameter_invalid', 'customer_email');
    }
  });
});

describe('POST /api/v1/checkout/sessions: metadata', () => {
  it('rule 3 and 6: numbers and booleans become strings; keys keep their order, on create and on read', async () => {
    const response = await post({ price_id: product.price_id, metadata: { zeta: 'z', alpha: 1, mid: true, neg: -2.5, off: false } });
    expect(response.status).toBe(201);
    expect(JSON.stringify(response.body.metadata)).toBe('{"zeta":"z","alpha":"1","mid":"true","neg":"-2.5","off":"false"}');
    const read = await api.request('GET', `${SESSIONS}/${response.body.id}`, { key });
    expect(JSON.stringify(read.body.metadata)).toBe('{"zeta":"z","alpha":"1","mid":"true","neg":"-2.5","off":"false"}');
  });

  it('rule 5: omitted, null or empty metadata reads back as {}', async () => {
    for (const metadata of [undefined, null, {}]) {
      const response = await post({ price_id: product.price_id, ...(metadata === undefined ? {} : { metadata }) });
      expect(response.status).toBe(201);
      expect(response.body.metadata).toEqual({});
    }
  });

  it('rule 2 and 4: 20 keys of 40 characters with 500-character values are the limits', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(38)}`, 'v'.repeat(500)]));
    const response = await post({ price_id: product.price_id, metadata });
    expect(response.status).toBe(201);
    expect(response.body.metadata).toEqual(metadata);
  });

  it.each([
    ['an array', [['a', 'b']], 'metadata'],
    ['a string', 'plan=pro', 'metadata'],
    ['a number', 5, 'metadata'],
    ['21 keys', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])), 'metadata'],
    ['a 41-character key', { ['k'.repeat(41)]: 'v' }, `metadata.${'k'.repeat(41)}`],
    ['an empty key', { '': 'v' }, 'metadata'],
    ['a null value', { plan: null }, 'metadata.plan'],
    ['an object value', { plan: { tier: 'pro' } }, 'metadata.plan'],
    ['an array value', { plan: ['pro'] }, 'metadata.plan'],
    ['a 501-character value', { plan: 'v'.repeat(501) }, 'metadata.plan'],
  ])('metadata with %s → 400 metadata_invalid', async (_name, metadata, param) => {
    expectError(await post({ price_id: product.price_id, metadata }), 400, 'metadata_invalid', param);
  });
});

describe('POST /api/v1/checkout/sessions: expires_at', () => {
  const now = epoch(T0);

  it.each([
    ['in range', now + 2 * HOUR, now + 2 * HOUR],
    ['the lower bound', now + 30 * 60, now + 30 * 60],
    ['the upper bound', now + 24 * HOUR, now + 24 * HOUR],
    ['too soon, clamped up', now + 60, now + 30 * 60],
    ['in the past, clamped up', now - HOUR, now + 30 * 60],
    ['zero, clamped up', 0, now + 30 * 60],
    ['too late, clamped down', now + 48 * HOUR, now + 24 * HOUR],
  ])('expires_at %s is clamped to [now + 30 min, now + 24 h], never rejected', async (_name, requested, expected) => {
    const response = await post({ price_id: product.price_id, expires_at: requested });
    expect(response.status).toBe(201);
    expect(response.body.expires_at).toBe(expected);
    expect(parseSessionUrl(response.body.url).expires).toBe(String(expected));
  });

  it.each([1.5, '1767225600', null, true])('expires_at %j (not an integer) → 400 parameter_invalid', async (expiresAt) => {
    expectError(await post({ price_id: product.price_id, expires_at: expiresAt }), 400, 'parameter_invalid', 'expires_at');
  });
});

describe('POST /api/v1/checkout/sessions: tax', () => {
  const taxKey = () => taxStore.keys.sk_test;

  it('exclusive: tax = round_half_up(subtotal × rate / 100), total = subtotal + tax', async () => {
    const taxed = await createProduct(api, taxKey(), { amount: 1999, tax_rate: 19 });
    const response = await post({ price_id: taxed.price_id }, taxKey());
    expect(response.status).toBe(201);
    // 1999 × 19 / 100 = 379.81 → 380
    expect(response.body).toMatchObject({ amount_subtotal: 1999, amount_tax: 380, amount_total: 2379 });
    const { order, lines } = await readOrder(api, response.body.order_id);
    expect(order).toMatchObject({ amountSubtotal: 1999, amountTax: 380, amountTotal: 2379 });
    expect(lines).toEqual([expect.objectContaining({ unitAmount: 1999, amountSubtotal: 1999, amountTax: 380, amountTotal: 2379, taxRate: 19, taxInclusive: false })]);
  });

  it('inclusive: tax = round_half_up(total × rate / (100 + rate)), subtotal = total − tax', async () => {
    const taxed = await createProduct(api, taxKey(), { amount: 1190, tax_rate: 19, tax_inclusive: true });
    const response = await post({ price_id: taxed.price_id }, taxKey());
    expect(response.body).toMatchObject({ amount_subtotal: 1000, amount_tax: 190, amount_total: 1190 });
    const odd = await createProduct(api, taxKey(), { amount: 1999, tax_rate: 7, tax_inclusive: true });
    // 1999 × 7 / 107 = 130.77… → 131
    expect((await post({ price_id: odd.price_id }, taxKey())).body).toMatchObject({ amount_subtotal: 1868, amount_tax: 131, amount_total: 1999 });
    const { lines } = await readOrder(api, response.body.order_id);
    expect(lines).toEqual([expect.objectContaining({ amountSubtotal: 1000, amountTax: 190, amountTotal: 1190, taxRate: 19, taxInclusive: true })]);
  });

  it('an exact half rounds up, exclusive and inclusive', async () => {
    const exclusive = await createProduct(api, taxKey(), { amount: 50, tax_rate: 1 });
    // 50 × 1 / 100 = 0.5 → 1
    expect((await post({ price_id: exclusive.price_id }, taxKey())).body).toMatchObject({ amount_subtotal: 50, amount_tax: 1, amount_total: 51 });
    const inclusive = await createProduct(api, taxKey(), { amount: 201, tax_rate: 1, tax_inclusive: true });
    // 201 × 1 / 101 = 1.99… → 2; and 150 × 1/100 = 1.5 → 2 with quantity 3 of 50
    expect((await post({ price_id: inclusive.price_id }, taxKey())).body).toMatchObject({ amount_subtotal: 199, amount_tax: 2, amount_total: 201 });
    expect((await post({ price_id: exclusive.price_id, quantity: 3 }, taxKey())).body).toMatchObject({ amount_subtotal: 150, amount_tax: 2, amount_total: 152 });
    const half = await createProduct(api, taxKey(), { amount: 101, tax_rate: 1, tax_inclusive: true });
    // 101 × 1 / 101 = 1 exactly; 303 × 1 / 101 = 3
    expect((await post({ price_id: half.price_id, quantity: 3 }, taxKey())).body).toMatchObject({ amount_subtotal: 300, amount_tax: 3, amount_total: 303 });
  });

  it('tax is computed per line, then summed', async () => {
    const a = await createProduct(api, taxKey(), { amount: 50, tax_rate: 1 });
    const b = await createProduct(api, taxKey(), { amount: 50, tax_rate: 1 });
    const untaxed = await createProduct(api, taxKey(), { amount: 1000 });
    const inclusive = await createProduct(api, taxKey(), { amount: 1190, tax_rate: 19, tax_inclusive: true });
    const response = await post({ line_items: [{ price_id: a.price_id }, { price_id: b.price_id }, { price_id: untaxed.price_id }, { price_id: inclusive.price_id }] }, taxKey());
    // 0.5 → 1 twice (not round(1.0) once), 0, and 190 included.
    expect(response.body).toMatchObject({ amount_subtotal: 50 + 50 + 1000 + 1000, amount_tax: 1 + 1 + 0 + 190, amount_total: 51 + 51 + 1000 + 1190 });
    const { lines } = await readOrder(api, response.body.order_id);
    expect(lines.map((line) => [line.amountSubtotal, line.amountTax, line.amountTotal])).toEqual([
      [50, 1, 51],
      [50, 1, 51],
      [1000, 0, 1000],
      [1000, 190, 1190],
    ]);
  });

  it('without the store’s tax calculation, or with rate 0, amount_tax is 0 and total = subtotal', async () => {
    const exclusive = await createProduct(api, key, { amount: 1999, tax_rate: 19 });
    const inclusive = await createProduct(api, key, { amount: 1190, tax_rate: 19, tax_inclusive: true });
    expect((await post({ price_id: exclusive.price_id })).body).toMatchObject({ amount_subtotal: 1999, amount_tax: 0, amount_total: 1999 });
    const response = await post({ price_id: inclusive.price_id });
    expect(response.body).toMatchObject({ amount_subtotal: 1190, amount_tax: 0, amount_total: 1190 });
    expect((await readOrder(api, response.body.order_id)).lines).toEqual([expect.objectContaining({ taxRate: null, taxInclusive: false, amountTax: 0 })]);
    const zero = await createProduct(api, taxKey(), { amount: 1000, tax_rate: 0, tax_inclusive: true });
    expect((await post({ price_id: zero.price_id }, taxKey())).body).toMatchObject({ amount_subtotal: 1000, amount_tax: 0, amount_total: 1000 });
  });
});
