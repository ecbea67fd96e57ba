import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkoutSessions, paymentAttempts } from '@/db/schema';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { payCheckoutSession } from '@/server/payments/service';
import { startPaymentReconcileJob } from '@/server/payments/jobs';
import { chargesOf, expectPaymentError, insertSession, newStore, usePayments, validCard } from './support';

const fx = usePayments();

describe('background reconciliation', () => {
  it('settles a timed-out payment without the customer coming back, and charges nothing new', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    const real = fx.gateways.test;
    const lostAnswer = {
      ...real,
      async charge(request: Parameters<typeof real.charge>[0]) {
        await real.charge(request);
        throw new GatewayTimeoutError();
      },
    };
    await expectPaymentError(payCheckoutSession({ ...fx, gateways: { test: lostAnswer, live: fx.gateways.live } }, { sessionId, card: validCard() }), 'payment_outcome_unknown', 500);

    const errors: unknown[] = [];
    const reconciler = startPaymentReconcileJob(fx, { intervalMs: 20, onError: (error) => errors.push(error) });
    try {
      const deadline = Date.now() + 20_000;
      let session = (await fx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId)))[0]!;
      while (session.paymentStatus !== 'paid' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        session = (await fx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId)))[0]!;
      }
      expect(session).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    } finally {
      await reconciler.stop();
    }
    expect(errors).toEqual([]);
    expect(await chargesOf(fx, sessionId)).toHaveLength(1);
    expect(await fx.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, sessionId))).toMatchObject([{ status: 'succeeded' }]);
  });

  it('runOnce: one sweep on demand; an attempt still open is marked checked so others get their turn', async () => {
    const store = await newStore(fx);
    const { sessionId } = await insertSession(fx, store);
    const now = fx.clock.now();
    const key = `charge:${sessionId}:1`;
    // A processing attempt that is still young: left alone, but its check time moves.
    await fx.db.insert(paymentAttempts).values({
      id: `pa_test_young${sessionId.slice(-12)}`,
      checkoutSessionId: sessionId,
      storeId: store.id,
      livemode: false,
      idempotencyKey: key,
      amount: 1999,
      status: 'processing',
      createdAt: now,
      updatedAt: new Date(now.getTime() - 5000),
    });
    const reconciler = startPaymentReconcileJob(fx, { intervalMs: 60_000 });
    try {
      expect(await reconciler.runOnce()).toBe(0);
    } finally {
      await reconciler.stop();
    }
    const [attempt] = await fx.db.select().from(paymentAttempts).where(eq(paymentAttempts.idempotencyKey, key));
    expect(attempt).toMatchObject({ status: 'processing', updatedAt: now });
  });
});
