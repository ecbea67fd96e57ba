import { describe, expect, it } from 'vitest';
import { paymentAttempts } from '@/db/schema';
import { payCheckoutSession } from '@/server/payments/service';
import { CARDS, expectPaymentError, validCard } from '../payments/support';
import { expectIdenticalMissing, rawApiRequest } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, readOrder, readSessionRow, SESSIONS, T0 } from './api-support';

const api = useTestApi();
const store = useTestStore(api);

async function createSession(body: Record<string, unknown> = {}, key = store.key) {
  const product = await createProduct(api, key);
  const response = await api.request('POST', SESSIONS, { key, body: { price_id: product.price_id, ...body } });
  expect(response.status).toBe(201);
  return response.body;
}
const expire = (id: string, key = store.key) => api.request('POST', `${SESSIONS}/${id}/expire`, { key, body: {} });
const get = (id: string, key = store.key) => api.request('GET', `${SESSIONS}/${id}`, { key });

describe('POST /api/v1/checkout/sessions/{id}/expire', () => {
  it('an open session: 200 with the session expired, url and client_secret null, as GET answers it; its order stays pending', async () => {
    const session = await createSession({ customer_email: 'buyer@example.com', metadata: { cart: '7' } });
    const response = await expire(session.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...session, status: 'expired', url: null, client_secret: null });
    expect(response.body.expires_at).toBe(session.expires_at);
    expect((await get(session.id)).body).toEqual(response.body);
    expect((await readOrder(api, session.order_id)).order).toMatchObject({ status: 'pending' });
  });

  it('already expired, by this endpoint or by the clock: 200, unchanged', async () => {
    const session = await createSession();
    const first = await expire(session.id);
    const again = await expire(session.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const late = await createSession({ expires_at: epoch(T0) + 1800 });
    api.clock.advance(1800);
    const byClock = await expire(late.id);
    expect(byClock.status).toBe(200);
    expect(byClock.body).toEqual({ ...late, status: 'expired', url: null, client_secret: null });
    expect(await readSessionRow(api, late.id)).toMatchObject({ status: 'expired' });
  });

  it('a complete session: 409 session_already_complete, still complete', async () => {
    const session = await createSession({ customer_email: 'buyer@example.com' });
    await payCheckoutSession(api.services, { sessionId: session.id, card: validCard() });
    expectError(await expire(session.id), 409, 'session_already_complete');
    expect((await get(session.id)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
  });

  it('a session whose attempt was declined can still be expired', async () => {
    const session = await createSession({ customer_email: 'buyer@example.com' });
    await expectPaymentError(payCheckoutSession(api.services, { sessionId: session.id, card: validCard(CARDS.declined) }), 'card_declined', 402);
    const response = await expire(session.id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'expired', payment_status: 'failed', url: null });
  });

  it('an attempt still open at the gateway (unanswered, or a 3-D Secure challenge): 409 session_payment_in_progress, still open', async () => {
    for (const status of ['processing', 'unknown', 'requires_action'] as const) {
      const session = await createSession({ customer_email: 'buyer@example.com' });
      const row = (await readSessionRow(api, session.id))!;
      await api.services.db.insert(paymentAttempts).values({
        id: `pa_test_${status}${session.id.slice(-12)}`,
        checkoutSessionId: session.id,
        storeId: store.id,
        livemode: false,
        idempotencyKey: `charge:${session.id}:1`,
        amount: row.amountTotal,
        status,
        createdAt: api.clock.now(),
        updatedAt: api.clock.now(),
      });
      expectError(await expire(session.id), 409, 'session_payment_in_progress');
      expect((await get(session.id)).body).toMatchObject({ status: 'open', url: expect.any(String) });
    }
  });

  it('an expired session can no longer be paid: the hosted payment and the embedded confirm answer session_expired', async () => {
    const session = await createSession({ customer_email: 'buyer@example.com' });
    expect((await expire(session.id)).status).toBe(200);
    await expectPaymentError(payCheckoutSession(api.services, { sessionId: session.id, card: validCard() }), 'session_expired', 400);
    const confirm = await api.request('POST', `${SESSIONS}/${session.id}/confirm`, { key: store.keys.pk_test, body: { client_secret: session.client_secret } });
    expectError(confirm, 400, 'session_expired');
    expect((await readOrder(api, session.order_id)).order).toMatchObject({ status: 'pending' });
  });

  it('a payment and an expiry racing: exactly one wins, and the loser says why', async () => {
    for (let round = 0; round < 6; round += 1) {
      const session = await createSession({ customer_email: 'buyer@example.com' });
      const [paid, expired] = await Promise.all([
        payCheckoutSession(api.services, { sessionId: session.id, card: validCard() }).then(
          () => 'paid',
          (error: { code?: string }) => error.code,
        ),
        expire(session.id),
      ]);
      const final = (await get(session.id)).body;
      if (final.status === 'complete') {
        expect(paid).toBe('paid');
        expect(expired.status).toBe(409);
        expect(['session_already_complete', 'session_payment_in_progress']).toContain(expired.body.error.code);
      } else {
        expect(final.status).toBe('expired');
        expect(expired.status).toBe(200);
        expect(paid).toBe('session_expired');
        expect((await readOrder(api, session.order_id)).order).toMatchObject({ status: 'pending' });
      }
    }
  });

  it('X-Api-Key is accepted; an unknown id, one of another store and one of the other environment answer the identical 404', async () => {
    const session = await createSession();
    const viaHeader = await api.request('POST', `${SESSIONS}/${session.id}/expire`, { headers: { 'x-api-key': store.key }, body: {} });
    expect(viaHeader.status).toBe(200);
    const other = await createStore(api.services);
    const foreign = await createSession({}, other.keys.sk_test);
    const live = await createSession({}, store.keys.sk_live);
    const responses = await Promise.all([`${foreign.id.slice(0, -4)}zzzz`, foreign.id, live.id].map((id) => rawApiRequest(api, 'POST', `${SESSIONS}/${id}/expire`, store.key, {})));
    expectIdenticalMissing(responses, 'id');
    expect((await get(foreign.id, other.keys.sk_test)).body.status).toBe('open');
    expect((await get(live.id, store.keys.sk_live)).body.status).toBe('open');
    expectError(await expire(session.id, store.keys.pk_test), 401, 'wrong_key_type');
  });
});
