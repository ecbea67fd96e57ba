import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkoutSessions, paymentAttempts } from '@/db/schema';
import { GatewayTimeoutError, type PaymentGateway } from '@/server/gateway/types';
import { reconcilePaymentAttempts } from '@/server/payments/reconcile';
import { payCheckoutSession, type PaymentDeps } from '@/server/payments/service';
import { validateCard } from '@/server/checkout/card';
import { CARDS, chargesOf, expectPaymentError, insertSession, newStore, usePayments, validCard } from './support';
import { metricsText } from '@/server/observability/metrics';

const fx = usePayments();

const sessionRow = async (id: string) => (await fx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)))[0]!;
const attemptsOf = (sessionId: string) => fx.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, sessionId)).orderBy(paymentAttempts.idempotencyKey);

/** The simulator, except that `charge` loses its answer: the charge happens (or not), then a timeout. */
function timingOut(options: { charged: boolean }): PaymentGateway {
  const real = fx.gateways.test;
  return {
    ...real,
    async charge(request) {
      if (options.charged) await real.charge(request);
      throw new GatewayTimeoutError();
    },
  };
}

const withTestGateway = (test: PaymentGateway): PaymentDeps => ({ ...fx, gateways: { test, live: fx.gateways.live } });

/**
 * Where a racing submit ends: one that overlapped the paying attempt waits for it and gets its
 * redirect; one that only arrives once the session is complete gets 409 session_already_complete,
 * which the hosted page turns into the same redirect (server/checkout/hosted/submit.ts).
 */
function landing(result: PromiseSettledResult<unknown>) {
  if (result.status === 'fulfilled') return result.value;
  return (result.reason as { code?: string }).code;
}

describe('two submissions racing on one session charge exactly once', () => {
  it('two approvals at once: both land on the success page, one charge, one attempt', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { successUrl: 'https://shop.example/ok' });
    const results = await Promise.allSettled([payCheckoutSession(fx, { sessionId, card: validCard() }), payCheckoutSession(fx, { sessionId, card: validCard() })]);
    expect(results.map(landing)).toEqual(expect.arrayContaining([{ status: 'paid', redirectUrl: `https://shop.example/ok?session_id=${sessionId}` }]));
    for (const landed of results.map(landing)) expect([{ status: 'paid', redirectUrl: `https://shop.example/ok?session_id=${sessionId}` }, 'session_already_complete']).toContainEqual(landed);
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect(await attemptsOf(sessionId)).toHaveLength(1);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid', attemptCount: 1 });
  });

  it('five submissions at once: one charge, counted once in payments_total', async () => {
    const paymentsCounted = async () => Number(/^payments_total\{outcome="succeeded"\} (\d+)$/m.exec(await metricsText())?.[1] ?? 0);
    const countedBefore = await paymentsCounted();
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => payCheckoutSession(fx, { sessionId, card: validCard() })));
    const paid = { status: 'paid', redirectUrl: expect.stringContaining(`/checkout/${sessionId}/receipt?signature=`) };
    expect(results.map(landing)).toContainEqual(paid);
    for (const landed of results.map(landing)) expect([paid, 'session_already_complete']).toContainEqual(landed);
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect((await paymentsCounted()) - countedBefore).toBe(1);
  });

  it('a declined card racing itself: both see card_declined, one charge', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    const results = await Promise.allSettled([payCheckoutSession(fx, { sessionId, card: validCard(CARDS.declined) }), payCheckoutSession(fx, { sessionId, card: validCard(CARDS.declined) })]);
    // The loser either waited for the decline or arrived after it (session_payment_failed).
    expect(results.map(landing)).toContain('card_declined');
    for (const landed of results.map(landing)) expect(['card_declined', 'session_payment_failed']).toContain(landed);
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'failed', attemptCount: 1 });
  });
});

describe('gateway timeout (500 payment_outcome_unknown), reconciled later, never charged twice', () => {
  it('charged, answer lost: the attempt is unknown; reconcilePaymentAttempts completes the session once', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(withTestGateway(timingOut({ charged: true })), { sessionId, card: validCard() }), 'payment_outcome_unknown', 500);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'unknown', idempotencyKey: `charge:${sessionId}:1`, gatewayPaymentId: null }]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });

    expect(await reconcilePaymentAttempts(fx)).toBeGreaterThanOrEqual(1);
    const [charge] = await chargesOf(fx, sessionId);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'succeeded', gatewayPaymentId: charge!.paymentId, cardLast4: '4242' }]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid', completedAt: fx.clock.now() });
    // Settled exactly once: another sweep finds nothing of this session to do.
    await reconcilePaymentAttempts(fx, { sessionId });
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect((await fx.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, sessionId))).length).toBe(1);
  });

  it('charged, answer lost, customer submits again: the retry settles the first attempt and charges nothing new', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { successUrl: 'https://shop.example/ok' });
    await expectPaymentError(payCheckoutSession(withTestGateway(timingOut({ charged: true })), { sessionId, card: validCard() }), 'payment_outcome_unknown', 500);
    expect(await payCheckoutSession(fx, { sessionId, card: validCard() })).toEqual({ status: 'paid', redirectUrl: `https://shop.example/ok?session_id=${sessionId}` });
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'succeeded' }]);
  });

  it('declined, answer lost: the retry reports the decline, the session fails', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(withTestGateway(timingOut({ charged: true })), { sessionId, card: validCard(CARDS.declined) }), 'payment_outcome_unknown', 500);
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'card_declined', 402);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'failed', failureCode: 'card_declined' });
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
  });

  it('never reached the gateway: not trusted as absent at once; after the grace period the session may be paid by a new attempt', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    await expectPaymentError(payCheckoutSession(withTestGateway(timingOut({ charged: false })), { sessionId, card: validCard() }), 'payment_outcome_unknown', 500);
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'payment_outcome_unknown', 500);
    expect(await chargesOf(fx, sessionId)).toEqual([]);

    fx.clock.advance(121);
    const result = await payCheckoutSession(fx, { sessionId, card: validCard() });
    expect(result.status).toBe('paid');
    expect((await attemptsOf(sessionId)).map((a) => [a.idempotencyKey, a.status])).toEqual([
      [`charge:${sessionId}:1`, 'abandoned'],
      [`charge:${sessionId}:2`, 'succeeded'],
    ]);
    expect((await chargesOf(fx, sessionId)).map((c) => c.idempotencyKey)).toEqual([`charge:${sessionId}:2`]);
  });

  it('a request that died mid-call (attempt left processing) is settled once stale, from the gateway record', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    const now = fx.clock.now();
    const key = `charge:${sessionId}:1`;
    await fx.db.insert(paymentAttempts).values({
      id: `pa_test_crash${sessionId.slice(-12)}`,
      checkoutSessionId: sessionId,
      storeId: store.id,
      livemode: false,
      idempotencyKey: key,
      amount: 1999,
      status: 'processing',
      createdAt: now,
      updatedAt: now,
    });
    await fx.db.update(checkoutSessions).set({ attemptCount: 1 }).where(eq(checkoutSessions.id, sessionId));
    await fx.gateways.test.charge({ idempotencyKey: key, amount: 1999, description: 'x', card: validateCard(validCard(), now), returnUrl: 'https://x.test' });

    // Young: its own request may still be waiting for the gateway, so a new submit waits, then gives up.
    const impatient: PaymentDeps = { ...fx, settings: { inFlightWaitMs: 150 } };
    await expectPaymentError(payCheckoutSession(impatient, { sessionId, card: validCard() }), 'payment_outcome_unknown', 500);
    expect(await reconcilePaymentAttempts(fx, { sessionId })).toBe(0);

    fx.clock.advance(61);
    expect(await reconcilePaymentAttempts(fx, { sessionId })).toBe(1);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
  });
});

describe('attempt limit (429 too_many_attempts)', () => {
  it('gateway attempts per 15 minutes per session; local failures count none; Retry-After says when', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    for (let i = 0; i < 5; i += 1) {
      await expectPaymentError(payCheckoutSession(fx, { sessionId, card: { ...validCard(), number: '4242424242424241' } }), 'invalid_card_number', 402, { param: 'card_number' });
      await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard(CARDS.unsupported) }), 'unsupported_test_card', 400);
    }
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'too_many_attempts', 429, { retryAfter: 900 });
    expect(await sessionRow(sessionId)).toMatchObject({ attemptCount: 5, paymentStatus: 'unpaid' });
    fx.clock.advance(300);
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'too_many_attempts', 429, { retryAfter: 600 });
    fx.clock.advance(600);
    expect((await payCheckoutSession(fx, { sessionId, card: validCard() })).status).toBe('paid');
    expect(await sessionRow(sessionId)).toMatchObject({ attemptCount: 6, status: 'complete' });
  });
});

describe('live mode without gateway credentials', () => {
  it('500 internal_error, nothing charged, the attempt is abandoned and the session stays payable', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store, { livemode: true });
    await expectPaymentError(payCheckoutSession(fx, { sessionId, card: validCard() }), 'internal_error', 500);
    expect(await attemptsOf(sessionId)).toMatchObject([{ status: 'abandoned', livemode: true, idempotencyKey: `charge:${sessionId}:1` }]);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });
  });
});
