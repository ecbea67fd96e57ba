/**
 * One actor per request: a change made with an API key is audited by its service with the key's
 * hint, as the same change from the dashboard is with the person; the dashboard's audit log shows
 * both, each store only its own.
 */
import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { listAuditEntries } from '@/server/dashboard/audit';
import { keyHint } from '@/server/auth/service';
import { createProduct, productDeps } from '@/server/products/service';
import { insertOrder } from '../orders/fixtures';
import { seedCustomer } from '../portal/factories';
import { actingAs, formKey, person } from '../support/dashboard';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';

const api = useTestApi();

const trail = (storeId: string) => api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, storeId)).orderBy(asc(auditEvents.id));
const entriesOf = (storeId: string, action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, action)))
    .orderBy(asc(auditEvents.id));

/** The dashboard's audit log (the Activity page) of the store's test mode, filtered by who acted. */
const shownFor = async (storeId: string, actor: string) => (await listAuditEntries(api.services.db, { storeId, livemode: false }, { actor, limit: 100 })).data;

describe('API writes are audited with the key', () => {
  it('a refund names the key, with the request it came from; the dashboard shows it', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const ip = '203.0.113.41';
    const refund = await api.request('POST', '/api/v1/refunds', { key, headers: { 'x-forwarded-for': ip }, body: { order_id: order.id, amount: 400 } });
    expect(refund.status).toBe(201);
    const [entry] = await entriesOf(store.id, 'refund.create');
    expect(entry).toMatchObject({
      keyHint: `sk_test_…${key.slice(-4)}`,
      livemode: false,
      ip,
      method: 'POST',
      path: '/api/v1/refunds',
      details: { refund: refund.body.id, order: order.id, amount: 400 },
    });
    expect(JSON.stringify(await trail(store.id))).not.toContain(key);
    expect(await shownFor(store.id, keyHint(key))).toEqual([
      expect.objectContaining({ action: 'refund.create', who: `sk_test_…${key.slice(-4)}`, details: { refund: refund.body.id, order: order.id, amount: 400 } }),
    ]);
  });

  it('product create, update and delete: one entry each, with the dashboard’s action names; reads write none', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const hint = keyHint(key);
    const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'Chart', amount: 900 } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await api.request('PATCH', `/api/v1/products/${id}`, { key, body: { name: 'Sea chart' } })).status).toBe(200);
    expect((await api.request('GET', `/api/v1/products/${id}`, { key })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/products', { key })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/products/${id}`, { key })).status).toBe(200);
    const entries = (await trail(store.id)).map(({ action, keyHint: who, livemode, method, path, details }) => ({ action, who, livemode, method, path, details }));
    expect(entries).toEqual([
      { action: 'product.create', who: hint, livemode: false, method: 'POST', path: '/api/v1/products', details: { product: id } },
      { action: 'product.update', who: hint, livemode: false, method: 'PATCH', path: `/api/v1/products/${id}`, details: { product: id, fields: ['name'] } },
      { action: 'product.delete', who: hint, livemode: false, method: 'DELETE', path: `/api/v1/products/${id}`, details: { product: id, force: false } },
    ]);
    expect((await shownFor(store.id, hint)).map((entry) => entry.action)).toEqual(['product.delete', 'product.update', 'product.create']);
  });

  it('a replayed create under its Idempotency-Key writes no second entry; a refused change writes none', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const headers = { 'idempotency-key': 'audit-replay-1' };
    const first = await api.request('POST', '/api/v1/products', { key, headers, body: { name: 'Once', amount: 500 } });
    const again = await api.request('POST', '/api/v1/products', { key, headers, body: { name: 'Once', amount: 500 } });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
    expect(await entriesOf(store.id, 'product.create')).toHaveLength(1);
    expect((await api.request('PATCH', `/api/v1/products/${first.body.id}`, { key, body: { mode: 'recurring' } })).status).toBe(400);
    expect(await entriesOf(store.id, 'product.update')).toHaveLength(0);
  });

  it('webhook endpoint create, update, roll and delete, and an event resend, name the key', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const hint = keyHint(key);
    const endpoint = (await api.request('POST', '/api/v1/webhook_endpoints', { key, body: { url: 'http://127.0.0.1:9/hooks', events: ['product.created'] } })).body;
    expect((await api.request('PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, { key, body: { disabled: true } })).status).toBe(200);
    expect((await api.request('PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, { key, body: { disabled: false } })).status).toBe(200);
    expect((await api.request('POST', `/api/v1/webhook_endpoints/${endpoint.id}/roll_secret`, { key, body: { expires_in: 60 } })).status).toBe(200);
    await api.request('POST', '/api/v1/products', { key, body: { name: 'Buoy', amount: 500 } });
    const event = (await api.request('GET', '/api/v1/events?type=product.created&limit=1', { key })).body.data[0];
    const resendHeaders = { 'idempotency-key': 'audit-resend-1' };
    const resent = await api.request('POST', `/api/v1/events/${event.id}/resend`, { key, headers: resendHeaders, body: { endpoint_id: endpoint.id } });
    expect(resent.status).toBe(201);
    expect((await api.request('POST', `/api/v1/events/${event.id}/resend`, { key, headers: resendHeaders, body: { endpoint_id: endpoint.id } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/webhook_endpoints/${endpoint.id}`, { key })).status).toBe(200);
    const entries = (await trail(store.id)).filter((entry) => entry.action !== 'product.create');
    expect(entries.map(({ action, keyHint: who, details }) => ({ action, who, details }))).toEqual([
      { action: 'webhook_endpoint.create', who: hint, details: { webhook_endpoint: endpoint.id, url: 'http://127.0.0.1:9/hooks', events: ['product.created'] } },
      { action: 'webhook_endpoint.update', who: hint, details: { webhook_endpoint: endpoint.id, disabled: true } },
      { action: 'webhook_endpoint.update', who: hint, details: { webhook_endpoint: endpoint.id, disabled: false } },
      { action: 'webhook_endpoint.roll_secret', who: hint, details: { webhook_endpoint: endpoint.id, expires_in: 60 } },
      { action: 'event.resend', who: hint, details: { event: event.id, webhook_endpoint: endpoint.id, delivery: resent.body.id } },
      { action: 'webhook_endpoint.delete', who: hint, details: { webhook_endpoint: endpoint.id } },
    ]);
  });

  it('portal link create and revoke, customer delete, subscription update and cancel name the key', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const key = store.keys.sk_test;
    const hint = keyHint(key);
    const customer = await seedCustomer({ db: api.services.db, now: api.clock.now() }, store, { email: 'ada@example.com' });
    const portal = (await api.request('POST', '/api/v1/portal/sessions', { key, body: { customer_id: customer.id } })).body;
    expect((await api.request('DELETE', `/api/v1/portal/sessions/${portal.id}`, { key })).status).toBe(200);
    // Revoking again changes nothing and is not audited again.
    expect((await api.request('DELETE', `/api/v1/portal/sessions/${portal.id}`, { key })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/customers/${customer.id}`, { key })).status).toBe(200);
    const subscription = await createSubscription(api.services, store.id);
    expect((await api.request('POST', `/api/v1/subscriptions/${subscription.id}`, { key, body: { metadata: { crm: 'X9' } } })).status).toBe(200);
    const entries = (await trail(store.id)).map(({ action, keyHint: who, details }) => ({ action, who, details }));
    expect(entries).toEqual([
      { action: 'portal_session.create', who: hint, details: { portal_session: portal.id, customer: customer.id } },
      { action: 'portal_session.revoke', who: hint, details: { portal_session: portal.id, customer: customer.id } },
      { action: 'customer.delete', who: hint, details: { customer: customer.id } },
      { action: 'subscription.update', who: hint, details: { subscription: subscription.id, fields: ['metadata'] } },
    ]);
  });
});

describe('the dashboard audit log, per store and actor', () => {
  it('a person’s change and a key’s change of one store each name their actor; another store’s key’s entries never appear', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const scope = { storeId: store.id, livemode: false };
    const actor = person({ email: 'dev@example.com', ip: '203.0.113.7', path: '/dashboard/test/products' }, 'developer');
    const ctx = await actingAs(api.services, scope, actor);
    const input = { name: 'From the dashboard', amount: 700 };
    const fromDashboard = await createProduct(productDeps(ctx), scope, input, formKey('a'.repeat(32), input));
    const fromKey = (await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'From the API', amount: 800 } })).body;
    const foreign = (await api.request('POST', '/api/v1/products', { key: other.keys.sk_test, body: { name: 'Elsewhere', amount: 900 } })).body;

    const shown = (await listAuditEntries(api.services.db, scope, { action: 'product.create', limit: 100 })).data;
    expect(shown.map(({ who, method, path, details }) => ({ who, method, path, details }))).toEqual([
      { who: keyHint(store.keys.sk_test), method: 'POST', path: '/api/v1/products', details: { product: fromKey.id } },
      { who: 'user:dev@example.com', method: 'POST', path: '/dashboard/test/products', details: { product: fromDashboard.id } },
    ]);
    expect(await shownFor(store.id, keyHint(other.keys.sk_test))).toEqual([]);
    expect((await shownFor(other.id, keyHint(other.keys.sk_test))).map((entry) => entry.details)).toEqual([{ product: foreign.id }]);
    // The live page of the store shows none of its test-mode entries.
    expect((await listAuditEntries(api.services.db, { storeId: store.id, livemode: true }, { action: 'product.create', limit: 100 })).data).toEqual([]);
  });
});
