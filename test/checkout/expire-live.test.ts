import { eq } from 'drizzle-orm';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentAttempts } from '@/db/schema';
import { completeThreeDSecureReturn, payCheckoutSession } from '@/server/payments/service';
import { createStripeReplay, STRIPE_BASE_URL, STRIPE_KEY } from '../gateway/stripe-api';
import { expectPaymentError } from '../payments/support';
import { createProduct, expectError } from '../support/api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { SESSIONS } from './api-support';

/** Live mode through the Stripe adapter, against the msw replay of Stripe's API: real 3-D Secure challenges and unanswered charges. */
const api = useTestApi({ gateway: { secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 300 } });
const store = useTestStore(api, { liveApi: true });
const stripe = createStripeReplay({ now: () => api.clock.now() });
// Requests to the API under test itself pass through.
const server = setupServer(...stripe.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  stripe.calls.length = 0;
});
afterAll(() => server.close());

const card = (number: string) => ({ number, expiry: '12/30', cvc: '123' });

async function createLiveSession() {
  const key = store.keys.sk_live;
  const product = await createProduct(api, key);
  const response = await api.request('POST', SESSIONS, { key, body: { price_id: product.price_id, customer_email: 'buyer@example.com', success_url: 'https://shop.example/done' } });
  expect(response.status).toBe(201);
  return response.body;
}
const expire = (id: string) => api.request('POST', `${SESSIONS}/${id}/expire`, { key: store.keys.sk_live, body: {} });
const get = async (id: string) => (await api.request('GET', `${SESSIONS}/${id}`, { key: store.keys.sk_live })).body;

describe('POST /api/v1/checkout/sessions/{id}/expire while a live payment is open at the gateway', () => {
  it('a 3-D Secure challenge pending: 409 session_payment_in_progress; once the challenge fails, the session can be expired', async () => {
    const session = await createLiveSession();
    expect(await payCheckoutSession(api.services, { sessionId: session.id, card: card('4000 0000 0000 3220') })).toMatchObject({ status: 'requires_action' });
    const [attempt] = await api.services.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, session.id));
    expect(attempt).toMatchObject({ status: 'requires_action' });

    expectError(await expire(session.id), 409, 'session_payment_in_progress');
    expect(await get(session.id)).toMatchObject({ status: 'open', payment_status: 'unpaid', url: expect.any(String) });

    stripe.completeChallenge(attempt!.gatewayPaymentId!, 'failed');
    await expectPaymentError(completeThreeDSecureReturn(api.services, session.id), 'card_declined', 402);
    const response = await expire(session.id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'expired', payment_status: 'failed', url: null, client_secret: null });
  });

  it('a 3-D Secure challenge that succeeds: 409 while pending, then 409 session_already_complete', async () => {
    const session = await createLiveSession();
    await payCheckoutSession(api.services, { sessionId: session.id, card: card('4000 0000 0000 3220') });
    const [attempt] = await api.services.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, session.id));
    expectError(await expire(session.id), 409, 'session_payment_in_progress');
    stripe.completeChallenge(attempt!.gatewayPaymentId!, 'succeeded');
    expect(await completeThreeDSecureReturn(api.services, session.id)).toMatchObject({ status: 'paid' });
    expectError(await expire(session.id), 409, 'session_already_complete');
    expect(await get(session.id)).toMatchObject({ status: 'complete', payment_status: 'paid' });
  });

  it('a charge the gateway never answered (outcome unknown): 409 session_payment_in_progress, still open', async () => {
    const session = await createLiveSession();
    await expectPaymentError(payCheckoutSession(api.services, { sessionId: session.id, card: card('4000 0000 0000 0259') }), 'payment_outcome_unknown', 500);
    const [attempt] = await api.services.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, session.id));
    expect(attempt).toMatchObject({ status: 'unknown' });
    expectError(await expire(session.id), 409, 'session_payment_in_progress');
    expect(await get(session.id)).toMatchObject({ status: 'open' });
  });
});
