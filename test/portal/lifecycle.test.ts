import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { portalSessions, webhookDeliveries, webhookEndpoints, webhookEvents } from '@/db/schema';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { holdIdempotencyKey } from '../support/idempotency';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { seedCustomer, seedOrder, seedSubscription } from './factories';
import { createdPortal, createPortal, PORTAL_URL, PUBLIC_BASE_URL, seedOf, SESSIONS } from './support';

/** Reading, revoking, expiring and replaying portal sessions. */
const api = useTestApi({ publicBaseUrl: PUBLIC_BASE_URL });
const store = useTestStore(api);

const get = (id: string, withKey = store.key) => api.request('GET', `${SESSIONS}/${id}`, { key: withKey });
const revoke = (id: string, withKey = store.key) => api.request('DELETE', `${SESSIONS}/${id}`, { key: withKey });
const advance = (storeKey: string, seconds: number) => api.request('POST', '/api/v1/test_helpers/advance_clock', { key: storeKey, body: { seconds } });

describe('GET /api/v1/portal/sessions/{id}', () => {
  it('the state with every field, and never the url (absent, not null)', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const created = await createdPortal(api, store.key, { customer_id: customer.id, metadata: { ref: 'A-1' } });
    api.clock.advance(60);
    const read = await get(created.id);
    expect(read.status).toBe(200);
    const { url: _url, ...withoutUrl } = created;
    expect(read.body).toEqual(withoutUrl);
    expect(Object.hasOwn(read.body, 'url')).toBe(false);
  });

  it('unknown, another store’s and the other environment’s session → 404 resource_missing, byte-identical', async () => {
    const other = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), store);
    const created = await createdPortal(api, store.key, { customer_id: customer.id });
    const path = `${SESSIONS}/${created.id}`;
    const foreign = await rawApiRequest(api, 'GET', path, other.keys.sk_test);
    const otherEnvironment = await rawApiRequest(api, 'GET', path, store.keys.sk_live);
    const unknown = await rawApiRequest(api, 'GET', `${SESSIONS}/portal_test_000000000000000000000000`, store.key);
    expectIdenticalMissing([foreign, otherEnvironment, unknown], 'id');
    // Nor can another store revoke it.
    expectError(await revoke(created.id, other.keys.sk_test), 404, 'resource_missing', 'id');
    expect((await get(created.id)).body.status).toBe('active');
  });

  it('no key → 401 missing_api_key', async () => {
    expectError(await api.request('GET', `${SESSIONS}/portal_test_x`), 401, 'missing_api_key');
  });
});

describe('Expiry', () => {
  it('active until expires_at on the store’s test clock, then expired', async () => {
    const clockStore = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), clockStore);
    const created = await createdPortal(api, clockStore.keys.sk_test, { customer_id: customer.id, expires_at: epoch(T0) + 300 });
    expect((await advance(clockStore.keys.sk_test, 299)).status).toBe(200);
    expect((await get(created.id, clockStore.keys.sk_test)).body.status).toBe('active');
    expect((await advance(clockStore.keys.sk_test, 1)).status).toBe(200);
    expect((await get(created.id, clockStore.keys.sk_test)).body).toMatchObject({ status: 'expired', expires_at: epoch(T0) + 300 });
  });
});

describe('DELETE /api/v1/portal/sessions/{id}', () => {
  it('revokes and answers the session with status revoked; reads stay revoked; revoking again changes nothing', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const created = await createdPortal(api, store.key, { customer_id: customer.id });
    const revoked = await revoke(created.id);
    expect(revoked.status).toBe(200);
    const { url: _url, ...withoutUrl } = created;
    expect(revoked.body).toEqual({ ...withoutUrl, status: 'revoked' });
    expect((await get(created.id)).body.status).toBe('revoked');
    const again = await revoke(created.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(revoked.body);
  });

  it('revocation is permanent: past expires_at it still reads revoked', async () => {
    const clockStore = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), clockStore);
    const created = await createdPortal(api, clockStore.keys.sk_test, { customer_id: customer.id, expires_at: epoch(T0) + 300 });
    expect((await revoke(created.id, clockStore.keys.sk_test)).body.status).toBe('revoked');
    await advance(clockStore.keys.sk_test, 3600);
    expect((await get(created.id, clockStore.keys.sk_test)).body.status).toBe('revoked');
  });

  it('deleting a customer revokes their sessions of every scope at once; other customers’ stay active', async () => {
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, store);
    const bystander = await seedCustomer(seed, store);
    const order = await seedOrder(seed, store, { customer });
    const subscription = await seedSubscription(seed, store, { customer });
    const sessions = [
      await createdPortal(api, store.key, { customer_id: customer.id }),
      await createdPortal(api, store.key, { order_id: order.id }),
      await createdPortal(api, store.key, { subscription_id: subscription.id }),
    ];
    const untouched = await createdPortal(api, store.key, { customer_id: bystander.id });
    expect((await api.request('DELETE', `/api/v1/customers/${customer.id}`, { key: store.key })).status).toBe(200);
    for (const session of sessions) expect((await get(session.id)).body.status).toBe('revoked');
    expect((await get(untouched.id)).body.status).toBe('active');
  });
});

describe('Idempotency-Key', () => {
  it('a repeated key replays the session and its url (200) while the link is active', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const body = { customer_id: customer.id, metadata: { a: '1', b: '2' } };
    const first = await createPortal(api, store.key, body, { 'idempotency-key': 'portal-replay-1' });
    expect(first.status).toBe(201);
    expect(first.body.url).toMatch(PORTAL_URL);
    const replay = await createPortal(api, store.key, body, { 'idempotency-key': 'portal-replay-1' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const [row] = await api.services.db.select().from(portalSessions).where(eq(portalSessions.customerId, customer.id));
    // Kept encrypted for the replay, never in clear.
    expect(row!.tokenCiphertext).not.toBeNull();
    expect(row!.tokenCiphertext).not.toContain(first.body.url.split('/').pop());
  });

  it('the same key with another body → 409 idempotency_key_reused; with reordered metadata too', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    await createdPortal(api, store.key, { customer_id: customer.id, metadata: { a: '1', b: '2' } }, { 'idempotency-key': 'portal-reuse' });
    expectError(await createPortal(api, store.key, { customer_id: customer.id }, { 'idempotency-key': 'portal-reuse' }), 409, 'idempotency_key_reused');
    expectError(await createPortal(api, store.key, { customer_id: customer.id, metadata: { b: '2', a: '1' } }, { 'idempotency-key': 'portal-reuse' }), 409, 'idempotency_key_reused');
  });

  it('a replay after revocation answers the session without url', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const body = { customer_id: customer.id };
    const first = await createdPortal(api, store.key, body, { 'idempotency-key': 'portal-revoked' });
    await revoke(first.id);
    const replay = await createPortal(api, store.key, body, { 'idempotency-key': 'portal-revoked' });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ id: first.id, status: 'revoked' });
    expect(Object.hasOwn(replay.body, 'url')).toBe(false);
    const [row] = await api.services.db.select().from(portalSessions).where(eq(portalSessions.id, first.id));
    expect(row!.tokenCiphertext).toBeNull();
  });

  it('a replay after expiry (store clock) answers the session without url', async () => {
    const clockStore = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), clockStore);
    const body = { customer_id: customer.id, expires_at: epoch(T0) + 300 };
    const first = await createdPortal(api, clockStore.keys.sk_test, body, { 'idempotency-key': 'portal-expired' });
    await advance(clockStore.keys.sk_test, 301);
    const replay = await createPortal(api, clockStore.keys.sk_test, body, { 'idempotency-key': 'portal-expired' });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ id: first.id, status: 'expired' });
    expect(Object.hasOwn(replay.body, 'url')).toBe(false);
  });

  it('a key is per store and mode; an unknown target is not remembered under the key', async () => {
    const other = await createStore(api.services);
    const mine = await seedCustomer(seedOf(api), store);
    const theirs = await seedCustomer(seedOf(api), other);
    const a = await createdPortal(api, store.key, { customer_id: mine.id }, { 'idempotency-key': 'portal-shared-key' });
    const b = await createdPortal(api, other.keys.sk_test, { customer_id: theirs.id }, { 'idempotency-key': 'portal-shared-key' });
    expect(b.id).not.toBe(a.id);
    expectError(await createPortal(api, store.key, { customer_id: 'cus_test_000000000000000000000000' }, { 'idempotency-key': 'portal-miss' }), 404, 'resource_missing', 'customer_id');
    expect((await createPortal(api, store.key, { customer_id: mine.id }, { 'idempotency-key': 'portal-miss' })).status).toBe(201);
  });

  it('concurrent creates with one key make one session', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const body = { customer_id: customer.id };
    const responses = await Promise.all(Array.from({ length: 5 }, () => createPortal(api, store.key, body, { 'idempotency-key': 'portal-race' })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(new Set(responses.map((response) => response.body.url)).size).toBe(1);
    const rows = await api.services.db.select().from(portalSessions).where(eq(portalSessions.customerId, customer.id));
    expect(rows).toHaveLength(1);
  });

  it('racing creates with one key write one portal.session.created event, delivered once to each endpoint that wants it', async () => {
    const racer = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), racer);
    const endpoint = (id: string, events: string[] | null) => ({ id, storeId: racer.id, livemode: false, url: 'https://hooks.example.test/', events, createdAt: api.clock.now() });
    await api.services.db
      .insert(webhookEndpoints)
      .values([
        endpoint(`we_test_${racer.id.slice(-12)}all000000000000`, null),
        endpoint(`we_test_${racer.id.slice(-12)}portal000000000`, ['portal.session.created']),
        endpoint(`we_test_${racer.id.slice(-12)}other0000000000`, ['order.paid']),
      ]);
    const responses = await Promise.all(Array.from({ length: 5 }, () => createPortal(api, racer.keys.sk_test, { customer_id: customer.id }, { 'idempotency-key': 'portal-race-events' })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const created = responses.find((response) => response.status === 201)!.body;
    const events = await api.services.db.select().from(webhookEvents).where(eq(webhookEvents.storeId, racer.id));
    expect(events).toHaveLength(1);
    const { url: _url, ...read } = created;
    expect(events[0]).toMatchObject({ type: 'portal.session.created', objectId: created.id, objectSequence: 1 });
    expect(events[0]!.payload).toMatchObject({ id: events[0]!.id, object: 'event', type: 'portal.session.created', sequence: 1, livemode: false, data: { object: read } });
    const deliveries = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events[0]!.id));
    expect(deliveries.map((delivery) => delivery.endpointId).sort()).toEqual([`we_test_${racer.id.slice(-12)}all000000000000`, `we_test_${racer.id.slice(-12)}portal000000000`]);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'pending', objectId: created.id, sequence: events[0]!.sequence, attempts: 0, resend: false });
      expect(delivery.id).toMatch(/^whd_[0-9A-Za-z]{24}$/);
    }
  });

  it('a request whose key is held by a first one that then rolls back waits for it, and creates with its event', async () => {
    const own = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), own);
    let second: ReturnType<typeof createPortal> | undefined;
    await holdIdempotencyKey(api, { storeId: own.id, operation: 'portal_session.create', key: 'portal-held', resourceId: 'portal_test_000000000000000000000000' }, 'rollback', async () => {
      second = createPortal(api, own.keys.sk_test, { customer_id: customer.id }, { 'idempotency-key': 'portal-held' });
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    const created = await second!;
    expect(created.status).toBe(201);
    expect(created.body.url).toMatch(PORTAL_URL);
    expect(await api.services.db.select().from(portalSessions).where(eq(portalSessions.storeId, own.id))).toHaveLength(1);
    expect(await api.services.db.select().from(webhookEvents).where(eq(webhookEvents.storeId, own.id))).toHaveLength(1);
  });

  it('a key is kept 24 hours of the store clock; after that it counts as new', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const body = { customer_id: customer.id, expires_at: epoch(api.clock.now()) + 30 * 24 * 3600 };
    const first = await createdPortal(api, store.key, body, { 'idempotency-key': 'portal-window' });
    api.clock.advance(24 * 3600 - 1);
    const replay = await createPortal(api, store.key, body, { 'idempotency-key': 'portal-window' });
    expect(replay.status).toBe(200);
    expect(replay.body.url).toBe(first.url);
    api.clock.advance(2);
    const later = await createPortal(api, store.key, body, { 'idempotency-key': 'portal-window' });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.id);
  });

  it('a malformed Idempotency-Key → 400 idempotency_key_invalid', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    expectError(await createPortal(api, store.key, { customer_id: customer.id }, { 'idempotency-key': 'x'.repeat(192) }), 400, 'idempotency_key_invalid');
  });
});
