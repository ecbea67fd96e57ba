import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions } from '@/db/schema';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, HOUR, readSessionRow, SESSIONS, T0 } from './api-support';

const api = useTestApi();
const store = useTestStore(api);
let product: any;

beforeAll(async () => {
  product = await createProduct(api, store.key);
});

async function createSession(body: Record<string, unknown> = {}, withKey = store.key) {
  const priceId = body.price_id ?? product.price_id;
  const response = await api.request('POST', SESSIONS, { key: withKey, body: { price_id: priceId, ...body } });
  expect(response.status).toBe(201);
  return response.body;
}
const get = (id: string, withKey = store.key) => api.request('GET', `${SESSIONS}/${id}`, { key: withKey });

describe('GET /api/v1/checkout/sessions/{id}', () => {
  it('returns the session as created, with client_secret null', async () => {
    const created = await createSession({ quantity: 2, customer_email: 'buyer@example.com', success_url: 'https://shop.example.com/ok', metadata: { order: '7' } });
    const response = await get(created.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, client_secret: null });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('X-Api-Key is accepted; no key → 401 missing_api_key; a publishable key → 401 wrong_key_type', async () => {
    const created = await createSession();
    const viaHeader = await api.request('GET', `${SESSIONS}/${created.id}`, { headers: { 'x-api-key': store.key } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.id).toBe(created.id);
    expectError(await api.request('GET', `${SESSIONS}/${created.id}`), 401, 'missing_api_key');
    expectError(await get(created.id, store.keys.pk_test), 401, 'wrong_key_type');
  });

  it('an unknown id, another store’s session and this store’s session of the other environment answer the same 404', async () => {
    const created = await createSession();
    const other = await createStore(api.services);
    const unknown = await get('cs_test_000000000000000000000000');
    expectError(unknown, 404, 'resource_missing', 'id');
    const foreign = await get(created.id, other.keys.sk_test);
    const otherEnv = await get(created.id, store.keys.sk_live);
    for (const response of [foreign, otherEnv]) {
      expectError(response, 404, 'resource_missing', 'id');
      expect(response.body).toEqual(unknown.body);
    }
    const live = await createSession({ price_id: (await createProduct(api, store.keys.sk_live)).price_id }, store.keys.sk_live);
    expectError(await get(live.id), 404, 'resource_missing', 'id');
    expect((await get(live.id, store.keys.sk_live)).body).toMatchObject({ id: live.id, livemode: true, client_secret: null });
  });

  it('the session expires when the store clock reaches expires_at: status expired, url null, written to the row', async () => {
    const created = await createSession({ expires_at: epoch(T0) + HOUR });
    api.clock.advance(HOUR - 1);
    const before = await get(created.id);
    expect(before.body).toMatchObject({ status: 'open', url: created.url });
    api.clock.advance(1);
    const after = await get(created.id);
    expect(after.body).toEqual({ ...created, client_secret: null, status: 'expired', url: null });
    expect((await readSessionRow(api, created.id))?.status).toBe('expired');
  });

  it('after a declined attempt the session stays open with payment_status failed until expires_at, then expired', async () => {
    const created = await createSession({ expires_at: epoch(T0) + HOUR });
    await api.services.db.update(checkoutSessions).set({ paymentStatus: 'failed', failureCode: 'card_declined', attemptCount: 1 }).where(eq(checkoutSessions.id, created.id));
    expect((await get(created.id)).body).toMatchObject({ status: 'open', payment_status: 'failed' });
    api.clock.advance(HOUR);
    expect((await get(created.id)).body).toMatchObject({ status: 'expired', payment_status: 'failed', url: null });
  });

  it('a complete session has url null, and never expires', async () => {
    const created = await createSession({ expires_at: epoch(T0) + HOUR });
    await api.services.db.update(checkoutSessions).set({ status: 'complete', paymentStatus: 'paid', completedAt: T0 }).where(eq(checkoutSessions.id, created.id));
    expect((await get(created.id)).body).toMatchObject({ status: 'complete', payment_status: 'paid', url: null, client_secret: null });
    api.clock.advance(2 * HOUR);
    expect((await get(created.id)).body).toMatchObject({ status: 'complete', payment_status: 'paid', url: null });
  });
});
