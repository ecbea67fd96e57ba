import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { simulatorRecurring, subscriptions } from '@/db/schema';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { auditOf, CARDS, eventsOf, PLAN, SUBSCRIPTIONS, subscribe } from './support';

/** GET, list, metadata update and cancel of subscriptions, and the guard against deleting their product. */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });

afterEach(() => vi.restoreAllMocks());

const get = (id: string, withKey = store.key) => api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key: withKey });
const cancel = (id: string, body?: unknown, withKey = store.key) => api.request('DELETE', `${SUBSCRIPTIONS}/${id}`, { key: withKey, body });
const update = (id: string, body: unknown, withKey = store.key) => api.request('POST', `${SUBSCRIPTIONS}/${id}`, { key: withKey, body });

describe('GET /api/v1/subscriptions/{id}', () => {
  it('another store’s, the other environment’s and an unknown id answer the same 404; no key → 401', async () => {
    const { subscription } = await subscribe(api, store.key);
    expect((await get(subscription.id)).body).toEqual(subscription);
    const other = await createStore(api.services, { subscriptions: true });
    expectIdenticalMissing(
      await Promise.all([
        rawApiRequest(api, 'GET', `${SUBSCRIPTIONS}/${subscription.id}`, other.keys.sk_test),
        rawApiRequest(api, 'GET', `${SUBSCRIPTIONS}/${subscription.id}`, store.keys.sk_live),
        rawApiRequest(api, 'GET', `${SUBSCRIPTIONS}/sub_test_unknownunknownunknown1`, store.key),
      ]),
      'id',
    );
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/${subscription.id}`), 401, 'missing_api_key');
    expectError(await get(subscription.id, store.keys.pk_test), 401, 'wrong_key_type');
  });
});

describe('GET /api/v1/subscriptions', () => {
  it('newest first, cursor pagination, status and customer_email filters', async () => {
    const own = await createStore(api.services, { subscriptions: true });
    const made: any[] = [];
    for (const [index, card] of [CARDS.approved, CARDS.declined, CARDS.approved, CARDS.approved].entries()) {
      api.clock.set(new Date(T0.getTime() + index * 60_000));
      made.push((await subscribe(api, own.keys.sk_test, card, { ...PLAN, customer_email: index === 3 ? 'Zoe@Example.com' : 'ada@example.com' })).subscription);
    }
    const ids = made.map((row) => row.id).reverse();
    const all = await api.request('GET', SUBSCRIPTIONS, { key: own.keys.sk_test });
    expect(all.body).toEqual({
      object: 'list',
      data: made
        .slice()
        .reverse()
        .map((row) => ({ ...row })),
      has_more: false,
    });

    const page1 = await api.request('GET', `${SUBSCRIPTIONS}?limit=2`, { key: own.keys.sk_test });
    expect(page1.body.data.map((row: any) => row.id)).toEqual(ids.slice(0, 2));
    expect(page1.body.has_more).toBe(true);
    const page2 = await api.request('GET', `${SUBSCRIPTIONS}?limit=2&starting_after=${ids[1]}`, { key: own.keys.sk_test });
    expect(page2.body.data.map((row: any) => row.id)).toEqual(ids.slice(2, 4));
    expect(page2.body.has_more).toBe(false);

    const incomplete = await api.request('GET', `${SUBSCRIPTIONS}?status=incomplete`, { key: own.keys.sk_test });
    expect(incomplete.body.data.map((row: any) => row.id)).toEqual([made[1].id]);
    const zoe = await api.request('GET', `${SUBSCRIPTIONS}?customer_email=zoe@EXAMPLE.com`, { key: own.keys.sk_test });
    expect(zoe.body.data.map((row: any) => row.id)).toEqual([made[3].id]);
    const adaActive = await api.request('GET', `${SUBSCRIPTIONS}?customer_email=ada@example.com&status=active`, { key: own.keys.sk_test });
    expect(adaActive.body.data.map((row: any) => row.id)).toEqual([made[2].id, made[0].id]);

    // Isolation: the live key and another store see none of them.
    expect((await api.request('GET', SUBSCRIPTIONS, { key: own.keys.sk_live })).body.data).toEqual([]);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'status=paused', 'unknown=1'])('%s → 400 parameter_invalid', async (query) => {
    expectError(await api.request('GET', `${SUBSCRIPTIONS}?${query}`, { key: store.key }), 400, 'parameter_invalid', query.split('=')[0]);
  });

  it('an unknown cursor → 404 resource_missing (as for products)', async () => {
    expectError(await api.request('GET', `${SUBSCRIPTIONS}?starting_after=sub_test_unknownunknownunknown1`, { key: store.key }), 404, 'resource_missing', 'starting_after');
  });
});

describe('POST /api/v1/subscriptions/{id} (metadata)', () => {
  it('replaces the metadata whole, emits subscription.updated, is audited', async () => {
    const { subscription } = await subscribe(api, store.key, CARDS.approved, { ...PLAN, metadata: { order: 'A-17', seats: '3' } });
    const response = await update(subscription.id, { metadata: { crm: 'X9', vip: true } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...subscription, metadata: { crm: 'X9', vip: 'true' } });
    expect((await get(subscription.id)).body.metadata).toEqual({ crm: 'X9', vip: 'true' });
    const events = await eventsOf(api.services.db, subscription.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.created', 'subscription.updated']);
    expect(events[1]!.data.object).toEqual(response.body);
    const audit = (await auditOf(api.services.db, store.id)).filter((row) => row.action === 'subscription.update' && (row.details as any).subscription === subscription.id);
    expect(audit).toHaveLength(1);
    expect((await update(subscription.id, { metadata: null })).body.metadata).toEqual({});
  });

  it.each([
    [{ amount: 100 }, 'parameter_invalid', 'amount'],
    [{ metadata: {}, status: 'canceled' }, 'parameter_invalid', 'status'],
    [{ metadata: {}, id: 'sub_test_other' }, 'parameter_invalid', 'id'],
    [{}, 'parameter_invalid', 'metadata'],
    [{ metadata: { a: { b: 1 } } }, 'metadata_invalid', 'metadata.a'],
    [{ metadata: 'x' }, 'metadata_invalid', 'metadata'],
  ])('%j → 400 %s', async (body, code, param) => {
    const { subscription } = await subscribe(api, store.key);
    expectError(await update(subscription.id, body), 400, code, param);
  });

  it('another store’s subscription → 404', async () => {
    const { subscription } = await subscribe(api, store.key);
    const other = await createStore(api.services, { subscriptions: true });
    expectError(await update(subscription.id, { metadata: {} }, other.keys.sk_test), 404, 'resource_missing', 'id');
  });
});

describe('DELETE /api/v1/subscriptions/{id}', () => {
  it('active → canceled at once: contract cancelled at the gateway first, reason kept, event, audit', async () => {
    const { subscription } = await subscribe(api, store.key);
    api.clock.set(new Date(T0.getTime() + 3_600_000));
    const response = await cancel(subscription.id, { reason: 'customer asked' });
    expect(response.status).toBe(200);
    const at = epoch(T0) + 3600;
    expect(response.body).toEqual({ ...subscription, status: 'canceled', canceled_at: at, cancel_reason: 'customer asked', ended_at: at });
    const [contract] = await api.services.db.select().from(simulatorRecurring).where(eq(simulatorRecurring.id, subscription.recurring_id));
    expect(contract!.canceledAt).not.toBeNull();
    const [row] = await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, subscription.id));
    expect(row!.cancelReason).toBe('customer asked');
    const events = await eventsOf(api.services.db, subscription.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.created', 'subscription.canceled']);
    expect(events[1]!.data.object).toEqual(response.body);
    const audit = (await auditOf(api.services.db, store.id)).find((entry) => entry.action === 'subscription.cancel' && (entry.details as any).subscription === subscription.id);
    expect(audit?.details).toEqual({ subscription: subscription.id, previous_status: 'active', reason: 'customer asked' });

    // 3.3 canceled → cancel: a no-op answering it unchanged, no event, no gateway call.
    const spy = vi.spyOn(api.services.gateways.test, 'cancelRecurring');
    api.clock.set(new Date(T0.getTime() + 7_200_000));
    const again = await cancel(subscription.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(response.body);
    expect(spy).not.toHaveBeenCalled();
    expect(await eventsOf(api.services.db, subscription.id)).toHaveLength(2);
  });

  it('an incomplete subscription has nothing to stop: answered unchanged, no event, no gateway call', async () => {
    const { subscription } = await subscribe(api, store.key, CARDS.declined);
    const spy = vi.spyOn(api.services.gateways.test, 'cancelRecurring');
    const response = await cancel(subscription.id, { reason: 'cleanup' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(subscription);
    expect(spy).not.toHaveBeenCalled();
  });

  it('a gateway failure leaves the subscription unchanged: 500, retry works', async () => {
    const { subscription } = await subscribe(api, store.key);
    vi.spyOn(api.services.gateways.test, 'cancelRecurring').mockRejectedValueOnce(new GatewayTimeoutError());
    expectError(await cancel(subscription.id), 500, 'internal_error');
    expect((await get(subscription.id)).body.status).toBe('active');
    expect((await cancel(subscription.id)).body.status).toBe('canceled');
  });

  it('the body: an unknown field or a non-string reason → 400 parameter_invalid; invalid JSON → 400 invalid_json', async () => {
    const { subscription } = await subscribe(api, store.key);
    expectError(await cancel(subscription.id, { reason: 5 }), 400, 'parameter_invalid', 'reason');
    expectError(await cancel(subscription.id, { at_period_end: true }), 400, 'parameter_invalid', 'at_period_end');
    expectError(await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key: store.key, body: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expect((await get(subscription.id)).body.status).toBe('active');
  });

  it('another store’s, the live and an unknown id → 404 resource_missing', async () => {
    const { subscription } = await subscribe(api, store.key);
    const other = await createStore(api.services, { subscriptions: true });
    expectError(await cancel(subscription.id, undefined, other.keys.sk_test), 404, 'resource_missing', 'id');
    expectError(await cancel(subscription.id, undefined, store.keys.sk_live), 404, 'resource_missing', 'id');
    expectError(await cancel('sub_test_unknownunknownunknown1'), 404, 'resource_missing', 'id');
    expect((await get(subscription.id)).body.status).toBe('active');
  });
});

describe('product guard with a real subscription', () => {
  it('deleting the product of an active subscription → 409 product_has_active_subscriptions, even with force; after cancel it deletes', async () => {
    const product = await createProduct(api, store.key, { name: 'Moth club', amount: 1500, mode: 'recurring', interval: 'month' });
    const { subscription } = await subscribe(api, store.key, CARDS.approved, { price_id: product.price_id, total_payments: 6, customer_email: 'bob@example.com' });
    expect(subscription.product_id).toBe(product.id);
    expectError(await api.request('DELETE', `/api/v1/products/${product.id}`, { key: store.key }), 409, 'product_has_active_subscriptions');
    expectError(await api.request('DELETE', `/api/v1/products/${product.id}?force=true`, { key: store.key }), 409, 'product_has_active_subscriptions');
    expect((await cancel(subscription.id)).body.status).toBe('canceled');
    expect((await api.request('DELETE', `/api/v1/products/${product.id}`, { key: store.key })).status).toBe(200);
    // The subscription keeps its history, detached from the deleted product.
    expect((await get(subscription.id)).body).toMatchObject({ status: 'canceled', product_id: null, price_id: product.price_id });
  });

  it('an incomplete subscription does not block the delete', async () => {
    const product = await createProduct(api, store.key, { name: 'Beetle club', amount: 1500, mode: 'recurring', interval: 'month' });
    await subscribe(api, store.key, CARDS.declined, { price_id: product.price_id, total_payments: 6, customer_email: 'bob@example.com' });
    expect((await api.request('DELETE', `/api/v1/products/${product.id}`, { key: store.key })).status).toBe(200);
  });
});
