import { describe, expect, it } from 'vitest';
import { payCheckoutSession } from '@/server/payments/service';
import { CARDS, validCard } from '../payments/support';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf, type Store } from '../support/lists';
import { useTestApi } from '../support/server';
import { SESSIONS } from './api-support';

const api = useTestApi();
const keyOf = (store: Store, livemode: boolean) => (livemode ? store.keys.sk_live : store.keys.sk_test);
const prices = new Map<string, string>();

/** A session of the store's one product (made on first use, per environment). */
async function createSession(store: Store, body: Record<string, unknown> = {}, livemode = false) {
  const key = keyOf(store, livemode);
  if (!prices.has(key)) prices.set(key, (await createProduct(api, key)).price_id);
  const response = await api.request('POST', SESSIONS, { key, body: { price_id: prices.get(key), ...body } });
  expect(response.status).toBe(201);
  return response.body;
}

async function read(store: Store, id: string, livemode = false) {
  const response = await api.request('GET', `${SESSIONS}/${id}`, { key: keyOf(store, livemode) });
  expect(response.status).toBe(200);
  return response.body;
}

describeListContract(api, {
  path: SESSIONS,
  async make(store, { livemode }) {
    const session = await createSession(store, { customer_email: 'buyer@example.com', metadata: { cart: '7' } }, livemode);
    return read(store, session.id, livemode);
  },
});

const ids = async (store: Store, query: string) => (await listOf(api, SESSIONS, store.keys.sk_test, query)).body.data.map((s: { id: string }) => s.id);

describe('GET /api/v1/checkout/sessions: items and filters', () => {
  it('items carry the url of an open session and never its client_secret; GET /checkout/sessions/{id} still answers one session', async () => {
    const store = await createStore(api.services, { liveApi: true });
    const created = await createSession(store);
    const list = await listOf(api, SESSIONS, store.keys.sk_test);
    expect(list.body.data).toEqual([{ ...created, client_secret: null }]);
    expect(list.body.data[0].url).toEqual(expect.any(String));
    expect(await read(store, created.id)).toEqual({ ...created, client_secret: null });
    expect((await api.request('GET', SESSIONS, { headers: { 'x-api-key': store.keys.sk_test } })).status).toBe(200);
  });

  it('status and payment_status, as of the store clock: a session past expires_at is expired before anything reads it', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const short = await createSession(store, { customer_email: 'a@example.com', expires_at: epoch(T0) + 1800 });
    api.clock.advance(1);
    const paid = await createSession(store, { customer_email: 'b@example.com' });
    await payCheckoutSession(api.services, { sessionId: paid.id, card: validCard() });
    api.clock.advance(1);
    const failed = await createSession(store, { customer_email: 'c@example.com' });
    await payCheckoutSession(api.services, { sessionId: failed.id, card: validCard(CARDS.declined) }).catch(() => undefined);
    api.clock.advance(1);
    const open = await createSession(store);

    expect(await ids(store, 'status=open')).toEqual([open.id, failed.id, short.id]);
    expect(await ids(store, 'status=complete')).toEqual([paid.id]);
    expect(await ids(store, 'status=expired')).toEqual([]);
    expect(await ids(store, 'payment_status=unpaid')).toEqual([open.id, short.id]);
    expect(await ids(store, 'payment_status=paid')).toEqual([paid.id]);
    expect(await ids(store, 'payment_status=failed')).toEqual([failed.id]);

    api.clock.set(new Date(T0.getTime() + 1800 * 1000));
    expect(await ids(store, 'status=expired')).toEqual([short.id]);
    expect(await ids(store, 'status=open')).toEqual([open.id, failed.id]);
    const [listed] = (await listOf(api, SESSIONS, store.keys.sk_test, 'status=expired')).body.data;
    expect(listed).toEqual({ ...(await read(store, short.id)) });
    expect(listed).toMatchObject({ status: 'expired', url: null });
    expect(await ids(store, 'status=expired&payment_status=unpaid')).toEqual([short.id]);

    expectError(await listOf(api, SESSIONS, store.keys.sk_test, 'status=paid'), 400, 'parameter_invalid', 'status');
    expectError(await listOf(api, SESSIONS, store.keys.sk_test, 'payment_status=complete'), 400, 'parameter_invalid', 'payment_status');
  });

  it('customer_email: exact and case-insensitive, as the session was created; not an address is 400', async () => {
    const store = await createStore(api.services);
    const mixed = await createSession(store, { customer_email: 'Mixed@Case.example' });
    await createSession(store, { customer_email: 'other@case.example' });
    await createSession(store);
    expect(await ids(store, `customer_email=${encodeURIComponent('mixed@CASE.example')}`)).toEqual([mixed.id]);
    expect(await ids(store, 'customer_email=ixed@case.example')).toEqual([]);
    expectError(await listOf(api, SESSIONS, store.keys.sk_test, 'customer_email=mixed'), 400, 'parameter_invalid', 'customer_email');
  });
});
