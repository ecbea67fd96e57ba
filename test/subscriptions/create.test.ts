import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { products, subscriptionCheckouts } from '@/db/schema';
import { checkLink } from '@/server/kit/links';
import { createStore } from '../support/factories';
import { holdIdempotencyKey } from '../support/idempotency';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { auditOf, createCheckout, PLAN, SUBSCRIPTIONS, submitCard } from './support';

/** POST /subscriptions and GET /subscriptions/checkout/{id}. */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });
let recurring: any;

const HOUR = 60 * 60;
const create = (body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  api.request('POST', SUBSCRIPTIONS, { key: options.key ?? store.key, body, headers: options.headers });

beforeAll(async () => {
  recurring = await createProduct(api, store.key, { name: 'Moth club', amount: 1500, mode: 'recurring', interval: 'week', interval_count: 2 });
});

describe('availability with SUBSCRIPTIONS_ENABLED=true', () => {
  it('a store without the `subscriptions` flag → 403 capability_disabled on POST and DELETE, test and live, before any validation', async () => {
    const plain = await createStore(api.services);
    for (const sk of [plain.keys.sk_test, plain.keys.sk_live]) {
      const refused = await create(PLAN, { key: sk });
      expectError(refused, 403, 'capability_disabled');
      expect(refused.body.error.message).toContain(`npm run admin -- store:update --id ${plain.id} --subscriptions true`);
      expectError(await create({ nonsense: true }, { key: sk }), 403, 'capability_disabled');
      expectError(await api.request('DELETE', `${SUBSCRIPTIONS}/sub_test_unknown`, { key: sk }), 403, 'capability_disabled');
    }
    expect((await api.request('GET', SUBSCRIPTIONS, { key: plain.keys.sk_test })).status).toBe(200);
  });

  it('with the flag, live mode creates too', async () => {
    const response = await create({ ...PLAN, success_url: 'https://merchant.example/thanks' }, { key: store.keys.sk_live });
    expect(response.status).toBe(201);
    expect(response.body.id).toMatch(/^subchk_live_[0-9A-Za-z]{24}$/);
    expect(response.body.livemode).toBe(true);
  });
});

describe('POST /api/v1/subscriptions: plan mode', () => {
  it('answers 201 with the open checkout, every field', async () => {
    const response = await create({ ...PLAN, interval_count: 3, customer_name: 'Ada Lovelace', success_url: 'http://merchant.test/done?x=1', metadata: { plan: 'pro', seats: 3, trial: false } });
    expect(response.status).toBe(201);
    const body = response.body;
    expect(body).toEqual({
      id: expect.stringMatching(/^subchk_test_[0-9A-Za-z]{24}$/),
      object: 'subscription.checkout',
      status: 'open',
      livemode: false,
      url: expect.any(String),
      subscription: null,
      amount: 990,
      currency: 'eur',
      interval: 'month',
      interval_count: 3,
      total_payments: 12,
      plan_name: 'Pro plan',
      price_id: null,
      product_id: null,
      customer_email: 'ada@example.com',
      customer_name: 'Ada Lovelace',
      success_url: 'http://merchant.test/done?x=1',
      metadata: { plan: 'pro', seats: '3', trial: 'false' },
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      trial_days: null,
      discount: null,
      allow_promotion_codes: false,
      created: epoch(T0),
      expires_at: epoch(T0) + 24 * HOUR,
    });
    expect(Object.keys(body.metadata)).toEqual(['plan', 'seats', 'trial']);
    const url = new URL(body.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${api.services.config.publicBaseUrl}/subscribe/${body.id}`);
    expect(url.searchParams.get('expires')).toBe(String(body.expires_at));
    expect(checkLink('test-auth-secret', 'subscription_checkout', body.id, url.searchParams.get('expires')!, url.searchParams.get('signature')!, epoch(T0))).toBe('valid');
    // The link is for subscriptions only: the checkout purpose does not verify it.
    expect(checkLink('test-auth-secret', 'checkout', body.id, url.searchParams.get('expires')!, url.searchParams.get('signature')!, epoch(T0))).toBe('invalid');
  });

  it('interval_count defaults to 1, customer_name and success_url to null, metadata to {}', async () => {
    const body = (await create(PLAN)).body;
    expect(body).toMatchObject({ interval_count: 1, customer_name: null, success_url: null, metadata: {} });
  });

  it.each([
    ['neither price_id nor amount', { total_payments: 3, customer_email: 'a@example.com' }, undefined],
    ['both price_id and amount', { ...PLAN, price_id: 'price_test_x' }, 'amount'],
    ['amount without interval', { amount: 990, plan_name: 'P', total_payments: 3, customer_email: 'a@example.com' }, 'interval'],
    ['amount without plan_name', { amount: 990, interval: 'month', total_payments: 3, customer_email: 'a@example.com' }, 'plan_name'],
    ['amount below 50', { ...PLAN, amount: 49 }, 'amount'],
    ['a float amount', { ...PLAN, amount: 990.5 }, 'amount'],
    ['a numeric string amount', { ...PLAN, amount: '990' }, 'amount'],
    ['interval outside the list', { ...PLAN, interval: 'fortnight' }, 'interval'],
    ['interval_count 0', { ...PLAN, interval_count: 0 }, 'interval_count'],
    ['interval_count 366', { ...PLAN, interval_count: 366 }, 'interval_count'],
    ['total_payments missing', { ...PLAN, total_payments: undefined }, 'total_payments'],
    ['total_payments 0', { ...PLAN, total_payments: 0 }, 'total_payments'],
    ['total_payments 10001', { ...PLAN, total_payments: 10_001 }, 'total_payments'],
    ['customer_email missing', { ...PLAN, customer_email: undefined }, 'customer_email'],
    ['customer_email invalid', { ...PLAN, customer_email: 'not-an-email' }, 'customer_email'],
    ['an empty plan_name', { ...PLAN, plan_name: '' }, 'plan_name'],
    ['an unknown field', { ...PLAN, quantity: 2 }, 'quantity'],
    ['expires_at as a string', { ...PLAN, expires_at: '1800000000' }, 'expires_at'],
  ])('%s → 400 parameter_invalid', async (_name, body, param) => {
    expectError(await create(body), 400, 'parameter_invalid', param);
  });

  it('the limits themselves are accepted: amount 50, interval_count 365, total_payments 1 and 10000', async () => {
    expect((await create({ ...PLAN, amount: 50, interval_count: 365, total_payments: 1 })).status).toBe(201);
    expect((await create({ ...PLAN, total_payments: 10_000 })).status).toBe(201);
  });

  it('fields with their own code: currency, metadata, success_url (https in live)', async () => {
    expectError(await create({ ...PLAN, currency: 'eur' }), 400, 'currency_unsupported', 'currency');
    expectError(await create({ ...PLAN, metadata: { nested: { a: 1 } } }), 400, 'metadata_invalid', 'metadata.nested');
    expectError(await create({ ...PLAN, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }), 400, 'metadata_invalid', 'metadata');
    expectError(await create({ ...PLAN, metadata: ['a'] }), 400, 'metadata_invalid', 'metadata');
    expectError(await create({ ...PLAN, success_url: 'javascript:alert(1)' }), 400, 'invalid_success_url', 'success_url');
    expectError(await create({ ...PLAN, success_url: `https://example.com/${'a'.repeat(2000)}` }), 400, 'invalid_success_url', 'success_url');
    expectError(await create({ ...PLAN, success_url: 'http://merchant.example/thanks' }, { key: store.keys.sk_live }), 400, 'invalid_success_url', 'success_url');
  });

  it('expires_at is clamped to [now + 30 minutes, now + 24 hours], never rejected', async () => {
    expect((await create({ ...PLAN, expires_at: epoch(T0) + 60 })).body.expires_at).toBe(epoch(T0) + 30 * 60);
    expect((await create({ ...PLAN, expires_at: epoch(T0) + 48 * HOUR })).body.expires_at).toBe(epoch(T0) + 24 * HOUR);
    expect((await create({ ...PLAN, expires_at: epoch(T0) + 2 * HOUR })).body.expires_at).toBe(epoch(T0) + 2 * HOUR);
  });

  it('every create is audited, without the key', async () => {
    const body = (await create(PLAN)).body;
    const rows = await auditOf(api.services.db, store.id);
    const row = rows.find((entry) => entry.action === 'subscription_checkout.create' && (entry.details as any)?.subscription_checkout === body.id);
    expect(row).toMatchObject({ livemode: false, method: 'POST', path: SUBSCRIPTIONS });
    expect(JSON.stringify(row)).not.toContain(store.key);
  });
});

describe('POST /api/v1/subscriptions: price mode', () => {
  it('amount, interval and plan name come from the catalog; price_id and product_id are set', async () => {
    const response = await create({ price_id: recurring.price_id, total_payments: 6, customer_email: 'bob@example.com' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      amount: 1500,
      interval: 'week',
      interval_count: 2,
      plan_name: 'Moth club',
      price_id: recurring.price_id,
      product_id: recurring.id,
      total_payments: 6,
    });
  });

  it('the price id is accepted without its `price_` prefix', async () => {
    const response = await create({ price_id: recurring.price_id.slice('price_'.length), total_payments: 6, customer_email: 'bob@example.com' });
    expect(response.status).toBe(201);
    expect(response.body.price_id).toBe(recurring.price_id);
  });

  it.each(['interval', 'interval_count', 'plan_name'])('%s with price_id → 400 parameter_invalid', async (field) => {
    const value = field === 'interval' ? 'month' : field === 'interval_count' ? 2 : 'Gold';
    expectError(await create({ price_id: recurring.price_id, total_payments: 6, customer_email: 'bob@example.com', [field]: value }), 400, 'parameter_invalid', field);
  });

  it('a one-time price → price_mode_unsupported; an inactive one → price_inactive', async () => {
    const oneTime = await createProduct(api, store.key, { name: 'Ebook', amount: 900 });
    expectError(await create({ price_id: oneTime.price_id, total_payments: 6, customer_email: 'bob@example.com' }), 400, 'price_mode_unsupported', 'price_id');
    const inactive = await createProduct(api, store.key, { name: 'Old club', amount: 900, mode: 'recurring', interval: 'month', active: false });
    expectError(await create({ price_id: inactive.price_id, total_payments: 6, customer_email: 'bob@example.com' }), 400, 'price_inactive', 'price_id');
  });

  it('an unknown price, another store’s and the live one → 404 resource_missing', async () => {
    const other = await createStore(api.services, { subscriptions: true });
    const foreign = await createProduct(api, other.keys.sk_test, { name: 'Other', amount: 900, mode: 'recurring', interval: 'month' });
    const live = await createProduct(api, store.keys.sk_live, { name: 'Live', amount: 900, mode: 'recurring', interval: 'month' });
    for (const priceId of ['price_test_unknown', foreign.price_id, live.price_id]) {
      expectError(await create({ price_id: priceId, total_payments: 6, customer_email: 'bob@example.com' }), 404, 'resource_missing', 'price_id');
    }
  });
});

describe('Idempotency-Key on POST /api/v1/subscriptions', () => {
  it('the same key and body replays the checkout with 200; another body → 409 idempotency_key_reused', async () => {
    const headers = { 'idempotency-key': `sub-${Math.random()}` };
    const first = await create({ ...PLAN, metadata: { a: '1', b: '2' } }, { headers });
    expect(first.status).toBe(201);
    const replay = await create({ ...PLAN, metadata: { a: '1', b: '2' } }, { headers });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expectError(await create({ ...PLAN, amount: 991, metadata: { a: '1', b: '2' } }, { headers }), 409, 'idempotency_key_reused');
    // Metadata key order is part of what the checkout echoes, so it is part of the request.
    expectError(await create({ ...PLAN, metadata: { b: '2', a: '1' } }, { headers }), 409, 'idempotency_key_reused');
  });

  it('a key over 191 characters → 400 idempotency_key_invalid', async () => {
    expectError(await create(PLAN, { headers: { 'idempotency-key': 'k'.repeat(192) } }), 400, 'idempotency_key_invalid');
  });

  it('a replay after the checkout was used answers it as it is now: complete, url null', async () => {
    const headers = { 'idempotency-key': `sub-${Math.random()}` };
    const first = await create(PLAN, { headers });
    const url = new URL(first.body.url);
    await submitCard(api, { ...first.body, link: { id: first.body.id, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! } });
    const replay = await create(PLAN, { headers });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ id: first.body.id, status: 'complete', url: null, subscription: expect.stringMatching(/^sub_test_/) });
  });
});

describe('Idempotency-Key on POST /api/v1/subscriptions: races, roll-backs and the window', () => {
  const keyed = (body: unknown, key: string, storeKey: string) => create(body, { key: storeKey, headers: { 'idempotency-key': key } });
  const checkoutsOf = async (storeId: string) => {
    const rows = await api.services.db.select().from(subscriptionCheckouts).where(eq(subscriptionCheckouts.storeId, storeId));
    const audit = (await auditOf(api.services.db, storeId)).filter((entry) => entry.action === 'subscription_checkout.create');
    return { checkouts: rows.length, audited: audit.length };
  };

  it('racing identical requests with one key create one checkout with one audit line (one 201, the rest 200 with it)', async () => {
    const racer = await createStore(api.services, { subscriptions: true });
    const responses = await Promise.all(Array.from({ length: 6 }, () => keyed(PLAN, 'sub-race', racer.keys.sk_test)));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    for (const response of responses) expect(response.body).toEqual(responses[0]!.body);
    expect(await checkoutsOf(racer.id)).toEqual({ checkouts: 1, audited: 1 });
  });

  /** A keyed create sent while a first request holds the key, which then ends with `outcome`. */
  const whileKeyHeld = async (outcome: 'rollback' | 'commit') => {
    const own = await createStore(api.services, { subscriptions: true });
    let second: ReturnType<typeof keyed> | undefined;
    await holdIdempotencyKey(api, { storeId: own.id, operation: 'subscription_checkout.create', key: 'sub-held', resourceId: 'subchk_test_000000000000000000000000' }, outcome, async () => {
      second = keyed(PLAN, 'sub-held', own.keys.sk_test);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    return { answer: await second!, written: await checkoutsOf(own.id) };
  };

  it('a request whose key is held by a first one that then rolls back waits for it, and creates', async () => {
    const { answer, written } = await whileKeyHeld('rollback');
    expect(answer.status).toBe(201);
    expect(written).toEqual({ checkouts: 1, audited: 1 });
  });

  it('a request whose key is held by a first one that then commits another body is 409, and writes nothing', async () => {
    const { answer, written } = await whileKeyHeld('commit');
    expectError(answer, 409, 'idempotency_key_reused');
    expect(written).toEqual({ checkouts: 0, audited: 0 });
  });

  it('a key is kept 24 hours of the store clock; after that it counts as new', async () => {
    const own = await createStore(api.services, { subscriptions: true });
    const first = await keyed(PLAN, 'sub-window', own.keys.sk_test);
    api.clock.advance(24 * HOUR - 1);
    expect((await keyed(PLAN, 'sub-window', own.keys.sk_test)).body.id).toBe(first.body.id);
    api.clock.advance(2);
    const later = await keyed(PLAN, 'sub-window', own.keys.sk_test);
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('a replay does not read the catalog again: a price deactivated since still replays; a refused request leaves the key unused', async () => {
    const own = await createProduct(api, store.key, { name: 'Gone soon', amount: 700, mode: 'recurring', interval: 'month' });
    const body = { price_id: own.price_id, total_payments: 3, customer_email: 'bob@example.com' };
    expectError(await keyed({ ...body, price_id: 'price_test_000000000000000000000000' }, 'sub-catalog', store.key), 404, 'resource_missing', 'price_id');
    const first = await keyed(body, 'sub-catalog', store.key);
    expect(first.status).toBe(201);
    await api.services.db.update(products).set({ priceActive: false }).where(eq(products.id, own.id));
    const replay = await keyed(body, 'sub-catalog', store.key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
  });
});

describe('GET /api/v1/subscriptions/checkout/{id}', () => {
  it('answers the open checkout with its signed url', async () => {
    const checkout = await createCheckout(api, store.key);
    const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: store.key });
    expect(read.status).toBe(200);
    const { link: _link, ...created } = checkout;
    expect(read.body).toEqual(created);
  });

  it('once the first payment attempt is made: complete, url null, subscription set', async () => {
    const checkout = await createCheckout(api, store.key);
    await submitCard(api, checkout);
    const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: store.key });
    expect(read.body).toMatchObject({ status: 'complete', url: null, subscription: expect.stringMatching(/^sub_test_[0-9A-Za-z]{24}$/) });
  });

  it('past expires_at (test clock): expired, url null, and the advance_clock sweep writes it', async () => {
    const checkout = await createCheckout(api, store.key, { ...PLAN, expires_at: epoch(T0) + HOUR });
    const other = await createCheckout(api, store.key, { ...PLAN, expires_at: epoch(T0) + HOUR });
    const moved = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: store.key, body: { seconds: HOUR } });
    expect(moved.status).toBe(200);
    for (const id of [checkout.id, other.id]) {
      const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${id}`, { key: store.key });
      expect(read.body).toMatchObject({ status: 'expired', url: null, subscription: null });
    }
  });

  it('another store’s, the other environment’s and an unknown id → 404 resource_missing', async () => {
    const checkout = await createCheckout(api, store.key);
    const other = await createStore(api.services, { subscriptions: true });
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: other.keys.sk_test }), 404, 'resource_missing', 'id');
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: store.keys.sk_live }), 404, 'resource_missing', 'id');
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/checkout/subchk_test_unknown`, { key: store.key }), 404, 'resource_missing', 'id');
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, {}), 401, 'missing_api_key');
  });
});
