import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { portalSessions } from '@/db/schema';
import { sha256Hex } from '@/server/ids';
import { epoch, expectError, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { seedCustomer, seedOrder, seedSubscription } from './factories';
import { createdPortal, createPortal, PORTAL_URL, PUBLIC_BASE_URL, seedOf, SESSIONS, tokenOf } from './support';

/** Creating portal sessions over HTTP. */
const api = useTestApi({ publicBaseUrl: PUBLIC_BASE_URL });
const store = useTestStore(api);

async function readRow(id: string) {
  const [row] = await api.services.db.select().from(portalSessions).where(eq(portalSessions.id, id));
  return row!;
}

describe('POST /api/v1/portal/sessions: scopes', () => {
  it('customer_id → 201, customer scope, every field; the url holds a 43-character token stored only as its SHA-256', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const response = await createPortal(api, store.key, { customer_id: customer.id });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^portal_test_[0-9A-Za-z]{24}$/),
      object: 'portal.session',
      status: 'active',
      scope: 'customer',
      livemode: false,
      customer_id: customer.id,
      order_id: null,
      subscription_id: null,
      url: expect.stringMatching(PORTAL_URL),
      metadata: {},
      access_count: 0,
      last_accessed_at: null,
      created: epoch(T0),
      expires_at: epoch(T0) + 24 * 3600,
    });
    const token = tokenOf(response.body.url);
    const row = await readRow(response.body.id);
    expect(row.tokenHash).toBe(sha256Hex(token));
    // Without an Idempotency-Key nothing but the hash is kept.
    expect(row.tokenCiphertext).toBeNull();
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('customer_email is resolved case-insensitively against the store’s customers in this mode', async () => {
    const customer = await seedCustomer(seedOf(api), store, { email: 'Grace.Hopper@example.com' });
    const session = await createdPortal(api, store.key, { customer_email: 'GRACE.hopper@EXAMPLE.com' });
    expect(session).toMatchObject({ scope: 'customer', customer_id: customer.id, order_id: null, subscription_id: null });
  });

  it('order_id → order scope, recording the order’s customer', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const order = await seedOrder(seedOf(api), store, { customer });
    const session = await createdPortal(api, store.key, { order_id: order.id });
    expect(session).toMatchObject({ scope: 'order', customer_id: customer.id, order_id: order.id, subscription_id: null });
  });

  it('subscription_id → subscription scope, recording the subscription’s customer', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const subscription = await seedSubscription(seedOf(api), store, { customer });
    const session = await createdPortal(api, store.key, { subscription_id: subscription.id });
    expect(session).toMatchObject({ scope: 'subscription', customer_id: customer.id, order_id: null, subscription_id: subscription.id });
  });

  it('live key → portal_live_ session of a live customer, livemode true', async () => {
    const customer = await seedCustomer(seedOf(api), store, { livemode: true });
    const session = await createdPortal(api, store.keys.sk_live, { customer_id: customer.id });
    expect(session.id).toMatch(/^portal_live_[0-9A-Za-z]{24}$/);
    expect(session).toMatchObject({ livemode: true, customer_id: customer.id });
  });

  it('every link gets its own token', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const first = await createdPortal(api, store.key, { customer_id: customer.id });
    const second = await createdPortal(api, store.key, { customer_id: customer.id });
    expect(second.id).not.toBe(first.id);
    expect(tokenOf(second.url)).not.toBe(tokenOf(first.url));
  });
});

describe('POST /api/v1/portal/sessions: selectors and targets', () => {
  it('no selector → 400 parameter_invalid', async () => {
    expectError(await createPortal(api, store.key, {}), 400, 'parameter_invalid');
  });

  it('two selectors → 400 parameter_invalid naming the second', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const order = await seedOrder(seedOf(api), store, { customer });
    expectError(await createPortal(api, store.key, { customer_id: customer.id, order_id: order.id }), 400, 'parameter_invalid', 'order_id');
  });

  it('unknown targets → 404 resource_missing on the selector', async () => {
    expectError(await createPortal(api, store.key, { customer_id: 'cus_test_000000000000000000000000' }), 404, 'resource_missing', 'customer_id');
    expectError(await createPortal(api, store.key, { customer_email: 'nobody@example.com' }), 404, 'resource_missing', 'customer_email');
    expectError(await createPortal(api, store.key, { order_id: 'ord_test_000000000000000000000000' }), 404, 'resource_missing', 'order_id');
    expectError(await createPortal(api, store.key, { subscription_id: 'sub_test_000000000000000000000000' }), 404, 'resource_missing', 'subscription_id');
  });

  it('another store’s and the other environment’s targets answer like unknown ones', async () => {
    const other = await createStore(api.services);
    const foreign = await seedCustomer(seedOf(api), other, { email: 'shared@example.com' });
    const foreignOrder = await seedOrder(seedOf(api), other, { customer: foreign });
    const foreignSubscription = await seedSubscription(seedOf(api), other, { customer: foreign });
    const live = await seedCustomer(seedOf(api), store, { livemode: true, email: 'live-only@example.com' });
    const liveOrder = await seedOrder(seedOf(api), store, { customer: live, livemode: true });
    expectError(await createPortal(api, store.key, { customer_id: foreign.id }), 404, 'resource_missing', 'customer_id');
    expectError(await createPortal(api, store.key, { customer_email: 'shared@example.com' }), 404, 'resource_missing', 'customer_email');
    expectError(await createPortal(api, store.key, { order_id: foreignOrder.id }), 404, 'resource_missing', 'order_id');
    expectError(await createPortal(api, store.key, { subscription_id: foreignSubscription.id }), 404, 'resource_missing', 'subscription_id');
    expectError(await createPortal(api, store.key, { customer_id: live.id }), 404, 'resource_missing', 'customer_id');
    expectError(await createPortal(api, store.key, { customer_email: 'live-only@example.com' }), 404, 'resource_missing', 'customer_email');
    expectError(await createPortal(api, store.key, { order_id: liveOrder.id }), 404, 'resource_missing', 'order_id');
  });

  it('a deleted customer is no target, neither directly nor through their order or subscription', async () => {
    const customer = await seedCustomer(seedOf(api), store, { email: 'gone@example.com' });
    const order = await seedOrder(seedOf(api), store, { customer });
    const subscription = await seedSubscription(seedOf(api), store, { customer });
    expect((await api.request('DELETE', `/api/v1/customers/${customer.id}`, { key: store.key })).status).toBe(200);
    expectError(await createPortal(api, store.key, { customer_id: customer.id }), 404, 'resource_missing', 'customer_id');
    expectError(await createPortal(api, store.key, { customer_email: 'gone@example.com' }), 404, 'resource_missing', 'customer_email');
    expectError(await createPortal(api, store.key, { order_id: order.id }), 404, 'resource_missing', 'order_id');
    expectError(await createPortal(api, store.key, { subscription_id: subscription.id }), 404, 'resource_missing', 'subscription_id');
  });

  it('an order without a customer (not paid yet) is a target; customer_id null', async () => {
    const order = await seedOrder(seedOf(api), store, { status: 'pending', customer: null });
    expect(await createdPortal(api, store.key, { order_id: order.id })).toMatchObject({ scope: 'order', customer_id: null, order_id: order.id });
  });
});

describe('POST /api/v1/portal/sessions: fields', () => {
  let customerId = '';
  beforeAll(async () => {
    customerId = (await seedCustomer({ db: api.services.db, now: T0 }, store)).id;
  });

  it('expires_at is clamped to [now + 5 minutes, now + 30 days], never rejected; inside it is kept', async () => {
    const now = epoch(T0);
    expect((await createdPortal(api, store.key, { customer_id: customerId, expires_at: now + 10 })).expires_at).toBe(now + 300);
    expect((await createdPortal(api, store.key, { customer_id: customerId, expires_at: 0 })).expires_at).toBe(now + 300);
    expect((await createdPortal(api, store.key, { customer_id: customerId, expires_at: now + 90 * 86400 })).expires_at).toBe(now + 30 * 86400);
    expect((await createdPortal(api, store.key, { customer_id: customerId, expires_at: now + 7200 })).expires_at).toBe(now + 7200);
  });

  it('expires_at follows the store’s test clock', async () => {
    const clockStore = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), clockStore);
    const advanced = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: clockStore.keys.sk_test, body: { seconds: 3600 } });
    expect(advanced.status).toBe(200);
    const session = await createdPortal(api, clockStore.keys.sk_test, { customer_id: customer.id });
    expect(session.created).toBe(epoch(T0) + 3600);
    expect(session.expires_at).toBe(epoch(T0) + 3600 + 86400);
  });

  it('expires_at must be an integer: a numeric string or a float → 400 parameter_invalid', async () => {
    expectError(await createPortal(api, store.key, { customer_id: customerId, expires_at: String(epoch(T0) + 3600) }), 400, 'parameter_invalid', 'expires_at');
    expectError(await createPortal(api, store.key, { customer_id: customerId, expires_at: epoch(T0) + 0.5 }), 400, 'parameter_invalid', 'expires_at');
  });

  it('metadata: string pairs echoed in order on create and read; numbers and booleans become strings (as on checkout)', async () => {
    const session = await createdPortal(api, store.key, { customer_id: customerId, metadata: { zeta: 'last', alpha: 1, ok: true } });
    expect(session.metadata).toEqual({ zeta: 'last', alpha: '1', ok: 'true' });
    expect(Object.keys(session.metadata)).toEqual(['zeta', 'alpha', 'ok']);
    const read = await api.request('GET', `${SESSIONS}/${session.id}`, { key: store.key });
    expect(JSON.stringify(read.body.metadata)).toBe('{"zeta":"last","alpha":"1","ok":"true"}');
  });

  it('metadata of 20 pairs is accepted; 21 → 400 metadata_invalid', async () => {
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    expect((await createdPortal(api, store.key, { customer_id: customerId, metadata: pairs(20) })).metadata).toEqual(pairs(20));
    expectError(await createPortal(api, store.key, { customer_id: customerId, metadata: pairs(21) }), 400, 'metadata_invalid', 'metadata');
  });

  it('metadata rules give metadata_invalid: nested values, long keys, long values, a non-object', async () => {
    expectError(await createPortal(api, store.key, { customer_id: customerId, metadata: { a: { b: 'c' } } }), 400, 'metadata_invalid', 'metadata.a');
    expectError(await createPortal(api, store.key, { customer_id: customerId, metadata: { ['k'.repeat(41)]: 'v' } }), 400, 'metadata_invalid', `metadata.${'k'.repeat(41)}`);
    expectError(await createPortal(api, store.key, { customer_id: customerId, metadata: { long: 'v'.repeat(501) } }), 400, 'metadata_invalid', 'metadata.long');
    expectError(await createPortal(api, store.key, { customer_id: customerId, metadata: ['a'] }), 400, 'metadata_invalid', 'metadata');
  });

  it('unknown fields and malformed selectors → 400 parameter_invalid', async () => {
    expectError(await createPortal(api, store.key, { customer_id: customerId, return_url: 'https://shop.example' }), 400, 'parameter_invalid', 'return_url');
    expectError(await createPortal(api, store.key, { customer_email: 'not-an-email' }), 400, 'parameter_invalid', 'customer_email');
    expectError(await createPortal(api, store.key, { customer_id: 42 }), 400, 'parameter_invalid', 'customer_id');
  });
});

describe('POST /api/v1/portal/sessions: keys', () => {
  it('no key → 401 missing_api_key; a publishable key → 401 wrong_key_type', async () => {
    const missing = await api.request('POST', SESSIONS, { body: { customer_id: 'cus_test_x' } });
    expectError(missing, 401, 'missing_api_key');
    expectError(await createPortal(api, store.keys.pk_test, { customer_id: 'cus_test_x' }), 401, 'wrong_key_type');
  });
});
