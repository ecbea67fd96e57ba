import { eq } from 'drizzle-orm';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions, orders, paymentAttempts } from '@/db/schema';
import { createLiveGateway } from '@/server/gateway/live';
import { GatewayTimeoutError, type PaymentGateway } from '@/server/gateway/types';
import { threeDSecureReturnUrl } from '@/server/kit/links';
import { reconcilePaymentAttempts } from '@/server/payments/reconcile';
import { completeThreeDSecureReturn, payCheckoutSession, type PaymentDeps } from '@/server/payments/service';
import { createStripeReplay, STRIPE_BASE_URL, STRIPE_KEY } from '../gateway/stripe-api';
import { expectPaymentError, insertSession, newStore, usePayments } from './support';

const fx = usePayments();
const stripe = createStripeReplay({ now: () => fx.clock.now() });
const server = setupServer(...stripe.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  stripe.calls.length = 0;
});
afterAll(() => server.close());

/** Live mode on the Stripe adapter, against the msw replay of Stripe's API. */
const live = (): PaymentDeps => ({ ...fx, gateways: { test: fx.gateways.test, live: createLiveGateway({ secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 15_000 }) } });
/** Live mode on the Stripe adapter with some of its operations replaced (each given the real adapter). */
const liveWith = (replace: (gateway: PaymentGateway) => Partial<PaymentGateway>): PaymentDeps => {
  const gateway = live().gateways.live;
  return { ...live(), gateways: { test: fx.gateways.test, live: { ...gateway, ...replace(gateway) } } };
};
const card = (number: string) => ({ number, expiry: '12/30', cvc: '123' });
const sessionRow = async (id: string) => (await fx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)))[0]!;
const attemptsOf = (sessionId: string) => fx.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, sessionId));
const intentPosts = () => stripe.calls.filter((call) => call.method === 'POST' && call.path === '/v1/payment_intents');

describe('live mode: 3-D Secure through the hosted page', () => {
  it('challenge → redirect to the acquirer; the return completes the session once', async () => {
    const store = await newStore(fx);
    const { sessionId, orderId } = await insertSession(fx, store, { livemode: true, successUrl: 'https://shop.example/done' });

    const challenged = await payCheckoutSession(live(), { sessionId, card: card('4000 0000 0000 3220') });
    expect(challenged).toEqual({ status: 'requires_action', redirectUrl: 'https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&payment_intent=pi_3ds' });
    expect(intentPosts()[0]!.form.get('return_url')).toBe(threeDSecureReturnUrl(fx.config, sessionId));
    const [attempt] = await attemptsOf(sessionId);
    expect(attempt).toMatchObject({ status: 'requires_action', livemode: true, gatewayPaymentId: expect.stringMatching(/^pi_/), cardLast4: '3220' });
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });

    // A second submit while the challenge is pending sends the customer back to it: no new charge.
    expect(await payCheckoutSession(live(), { sessionId, card: card('4000 0000 0000 3220') })).toEqual(challenged);
    expect(intentPosts()).toHaveLength(1);

    stripe.completeChallenge(attempt!.gatewayPaymentId!, 'succeeded');
    const paid = { status: 'paid', redirectUrl: `https://shop.example/done?session_id=${sessionId}` };
    expect(await completeThreeDSecureReturn(live(), sessionId)).toEqual(paid);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    expect((await fx.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ status: 'paid', gatewayPaymentId: attempt!.gatewayPaymentId, cardBrand: 'visa', cardLast4: '3220' });
    // A reload of the return page lands in the same place.
    expect(await completeThreeDSecureReturn(live(), sessionId)).toEqual(paid);
    expect(intentPosts()).toHaveLength(1);
  });

  it('failed challenge → 402 card_declined; the session fails', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { livemode: true });
    await payCheckoutSession(live(), { sessionId, card: card('4000000000003220') });
    const [attempt] = await attemptsOf(sessionId);
    stripe.completeChallenge(attempt!.gatewayPaymentId!, 'failed');
    await expectPaymentError(completeThreeDSecureReturn(live(), sessionId), 'card_declined', 402);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'failed', failureCode: 'card_declined' });
    await expectPaymentError(completeThreeDSecureReturn(live(), sessionId), 'card_declined', 402);
  });

  it('live approval and decline without a challenge', async () => {
    const store = await newStore(fx);
    const ok = await insertSession(fx, store, { livemode: true, successUrl: 'https://shop.example/done' });
    expect(await payCheckoutSession(live(), { sessionId: ok.sessionId, card: card('4242424242424242') })).toEqual({
      status: 'paid',
      redirectUrl: `https://shop.example/done?session_id=${ok.sessionId}`,
    });
    expect(intentPosts()[0]!.headers['idempotency-key']).toBe(`charge:${ok.sessionId}:1`);
    const ko = await insertSession(fx, store, { livemode: true });
    await expectPaymentError(payCheckoutSession(live(), { sessionId: ko.sessionId, card: card('4000000000000002') }), 'card_declined', 402);
    expect(await sessionRow(ko.sessionId)).toMatchObject({ paymentStatus: 'failed' });
  });

  it('a 5xx from Stripe: 500 payment_outcome_unknown; reconciliation finds the intent by its key later', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { livemode: true });
    await expectPaymentError(payCheckoutSession(live(), { sessionId, card: card('4000000000000119') }), 'payment_outcome_unknown', 500);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'unknown' }]);
    // Stripe never created an intent for it: "not found" is only trusted after the grace period.
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(0);
    fx.clock.advance(121);
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(1);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'abandoned' }]);
    // Looked for among the PaymentIntents, then the SetupIntents (a card check's): neither has it.
    expect(stripe.calls.slice(-2)).toMatchObject([
      { method: 'GET', path: '/v1/payment_intents' },
      { method: 'GET', path: '/v1/setup_intents' },
    ]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });
  });

  it('charged at Stripe but the answer was lost: the reconciler finds the intent among those created around the send, and the session is paid once', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { livemode: true });
    const lostAnswer = liveWith((gateway) => ({
      charge: async (request) => {
        await gateway.charge(request);
        throw new GatewayTimeoutError();
      },
    }));
    await expectPaymentError(payCheckoutSession(lostAnswer, { sessionId, card: card('4242424242424242') }), 'payment_outcome_unknown', 500);
    fx.clock.advance(121);
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(1);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'succeeded', gatewayPaymentId: expect.stringMatching(/^pi_/) }]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    expect(stripe.calls.some((call) => call.path.includes('search'))).toBe(false);
    expect(intentPosts()).toHaveLength(1);
  });
});

describe('live mode: a 3-D Secure challenge the customer abandons', () => {
  const cancelCalls = () => stripe.calls.filter((call) => call.path.endsWith('/cancel'));
  const challengedSession = async () => {
    const store = await newStore(fx);
    const { sessionId, orderId } = await insertSession(fx, store, { livemode: true, successUrl: 'https://shop.example/done' });
    await payCheckoutSession(live(), { sessionId, card: card('4000000000003220') });
    const [attempt] = await attemptsOf(sessionId);
    return { sessionId, orderId, paymentId: attempt!.gatewayPaymentId! };
  };

  it('is withdrawn at the gateway after an hour: the attempt is abandoned, nothing charged, and the session takes another card', async () => {
    const { sessionId, orderId, paymentId } = await challengedSession();
    fx.clock.advance(3599);
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(0);
    expect(cancelCalls()).toEqual([]);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'requires_action' }]);

    fx.clock.advance(1);
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(1);
    expect(cancelCalls()).toHaveLength(1);
    expect(stripe.intents.get(paymentId)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'abandoned' }]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });
    expect((await fx.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ status: 'pending' });
    // Nothing is left to poll.
    const calls = stripe.calls.length;
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(0);
    expect(stripe.calls).toHaveLength(calls);

    expect(await payCheckoutSession(live(), { sessionId, card: card('4242424242424242') })).toEqual({
      status: 'paid',
      redirectUrl: `https://shop.example/done?session_id=${sessionId}`,
    });
    expect(intentPosts().map((call) => call.headers['idempotency-key'])).toEqual([`charge:${sessionId}:1`, `charge:${sessionId}:2`]);
  });

  it("back from the bank's page with another card: the challenge is withdrawn at once and the new card charged", async () => {
    const { sessionId, paymentId } = await challengedSession();
    fx.clock.advance(5);
    expect(await payCheckoutSession(live(), { sessionId, card: card('4242424242424242') })).toMatchObject({ status: 'paid' });
    expect(stripe.intents.get(paymentId)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect((await attemptsOf(sessionId)).map((attempt) => attempt.status).sort()).toEqual(['abandoned', 'succeeded']);
    expect(intentPosts().map((call) => call.headers['idempotency-key'])).toEqual([`charge:${sessionId}:1`, `charge:${sessionId}:2`]);
  });

  it('a customer who returns after the hour with another card: the old challenge is withdrawn and the new card charged', async () => {
    const { sessionId, paymentId } = await challengedSession();
    fx.clock.advance(3600);
    expect(await payCheckoutSession(live(), { sessionId, card: card('4242424242424242') })).toMatchObject({ status: 'paid' });
    expect(stripe.intents.get(paymentId)!.status).toBe('canceled');
    expect((await attemptsOf(sessionId)).map((attempt) => attempt.status).sort()).toEqual(['abandoned', 'succeeded']);
  });

  it('a challenge finished just before the withdrawal: Stripe refuses to cancel, and the session is paid once', async () => {
    const { sessionId, orderId } = await challengedSession();
    const finishingFirst = liveWith((gateway) => ({
      cancelCharge: (id) => {
        stripe.completeChallenge(id, 'succeeded');
        return gateway.cancelCharge(id);
      },
    }));
    fx.clock.advance(3600);
    expect(await reconcilePaymentAttempts(finishingFirst, { sessionId })).toBe(1);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'succeeded' }]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    expect((await fx.db.select().from(orders).where(eq(orders.id, orderId)))[0]).toMatchObject({ status: 'paid' });
  });

  it('a gateway that cannot be reached for the withdrawal: the attempt stays open and is tried again', async () => {
    const { sessionId } = await challengedSession();
    const unreachable = liveWith(() => ({ cancelCharge: () => Promise.reject(new GatewayTimeoutError()) }));
    fx.clock.advance(3600);
    expect(await reconcilePaymentAttempts(unreachable, { sessionId })).toBe(0);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'requires_action' }]);
    expect(await reconcilePaymentAttempts(live(), { sessionId })).toBe(1);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'abandoned' }]);
  });
});
