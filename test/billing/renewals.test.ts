import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { subscriptions } from '@/db/schema';
import { runBillingPass } from '@/server/billing/jobs';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';
import { advanceClock, chargesOf, DAY, eventsOf, recurringLedger, retrieveSubscription } from './support';

const api = useTestApi({ subscriptionsEnabled: true });
beforeEach(() => api.clock.set(T0));

const monthly = (n: number) => periodBoundary(T0, 'month', 1, n);
const weekly = (n: number) => periodBoundary(T0, 'week', 1, n);
const seconds = (from: Date, to: Date) => epoch(to) - epoch(from);

async function newStore() {
  const store = await createStore(api.services, { subscriptions: true });
  return { id: store.id, key: store.keys.sk_test };
}

describe('renewal', () => {
  it('a due subscription is charged once at the end of its period: periods move, events payment_succeeded then updated', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { metadata: { order: 'A-17' } });

    await advanceClock(api, store.key, seconds(T0, monthly(1)) - 1);
    expect(await chargesOf(api.services.db, sub.id)).toHaveLength(1);
    expect(await eventsOf(api.services.db, sub.id)).toEqual([]);

    await advanceClock(api, store.key, 1);
    const body = await retrieveSubscription(api, store.key, sub.id);
    expect(body).toMatchObject({
      id: sub.id,
      status: 'active',
      amount: 990,
      failure_count: 0,
      current_period_start: epoch(monthly(1)),
      current_period_end: epoch(monthly(2)),
      next_billing_at: epoch(monthly(2)),
      canceled_at: null,
      ended_at: null,
      metadata: { order: 'A-17' },
      created: epoch(T0),
    });
    const [row] = await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
    expect(row!.paymentsMade).toBe(2);

    const charges = await chargesOf(api.services.db, sub.id);
    expect(charges.map((charge) => [charge.cycle, charge.attempt, charge.status])).toEqual([
      [1, 0, 'succeeded'],
      [2, 0, 'succeeded'],
    ]);
    expect(charges[1]).toMatchObject({
      idempotencyKey: `subscription:${sub.id}:2:0`,
      amount: 990,
      cardBrand: 'visa',
      cardLast4: '4242',
      scheduledAt: monthly(1),
      settledAt: monthly(1),
      failureCode: null,
    });
    const ledger = await recurringLedger(api.services.db, sub.recurringId);
    expect(ledger.map((charge) => [charge.idempotencyKey, charge.status, charge.amount])).toEqual([[`subscription:${sub.id}:2:0`, 'succeeded', 990]]);
    expect(charges[1]!.gatewayPaymentId).toBe(ledger[0]!.paymentId);

    const events = await eventsOf(api.services.db, sub.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
    for (const event of events) {
      expect(event).toMatchObject({ object: 'event', created: epoch(monthly(1)), livemode: false });
      expect(event.id).toMatch(/^evt_test_/);
      expect(event.data.object).toEqual(body);
    }
  });

  it('the final scheduled payment expires the subscription (payment_succeeded, expired, updated) and nothing is charged after it', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { totalPayments: 3 });
    await advanceClock(api, store.key, seconds(T0, monthly(1)));
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({ status: 'active', next_billing_at: epoch(monthly(2)) });

    await advanceClock(api, store.key, seconds(monthly(1), monthly(2)));
    const body = await retrieveSubscription(api, store.key, sub.id);
    expect(body).toMatchObject({
      status: 'expired',
      total_payments: 3,
      current_period_start: epoch(monthly(2)),
      current_period_end: epoch(monthly(3)),
      ended_at: epoch(monthly(2)),
      canceled_at: null,
    });
    const events = await eventsOf(api.services.db, sub.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.payment_succeeded', 'subscription.updated', 'subscription.payment_succeeded', 'subscription.expired', 'subscription.updated']);
    for (const event of events.slice(2)) expect(event.data.object).toEqual(body);

    await advanceClock(api, store.key, 400 * DAY);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(2);
    expect(await chargesOf(api.services.db, sub.id)).toHaveLength(3);
    expect(await eventsOf(api.services.db, sub.id)).toHaveLength(5);
  });

  it('total_payments = 1: never charged again; it expires when its period ends (expired, updated)', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { totalPayments: 1, metadata: { plan: 'once' } });
    await advanceClock(api, store.key, seconds(T0, monthly(1)));
    const body = await retrieveSubscription(api, store.key, sub.id);
    expect(body).toMatchObject({ status: 'expired', ended_at: epoch(monthly(1)), current_period_start: epoch(T0), current_period_end: epoch(monthly(1)), metadata: { plan: 'once' } });
    const events = await eventsOf(api.services.db, sub.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.expired', 'subscription.updated']);
    expect(events[0]!.data.object).toEqual(body);
    await advanceClock(api, store.key, 60 * DAY);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toEqual([]);
    expect(await chargesOf(api.services.db, sub.id)).toHaveLength(1);
  });

  it('the clock jumping several cycles charges each missed cycle once, in order, each with its own events', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { interval: 'week', totalPayments: 10 });
    const now = await advanceClock(api, store.key, 3 * 7 * DAY + DAY);

    const charges = await chargesOf(api.services.db, sub.id);
    expect(charges.map((charge) => [charge.cycle, charge.attempt, charge.status, charge.scheduledAt.toISOString()])).toEqual([
      [1, 0, 'succeeded', T0.toISOString()],
      [2, 0, 'succeeded', weekly(1).toISOString()],
      [3, 0, 'succeeded', weekly(2).toISOString()],
      [4, 0, 'succeeded', weekly(3).toISOString()],
    ]);
    expect(charges.slice(1).every((charge) => epoch(charge.settledAt!) === now)).toBe(true);
    const ledger = await recurringLedger(api.services.db, sub.recurringId);
    expect(ledger.map((charge) => charge.idempotencyKey).sort()).toEqual([2, 3, 4].map((cycle) => `subscription:${sub.id}:${cycle}:0`));

    const body = await retrieveSubscription(api, store.key, sub.id);
    expect(body).toMatchObject({ status: 'active', current_period_start: epoch(weekly(3)), current_period_end: epoch(weekly(4)), next_billing_at: epoch(weekly(4)) });
    const events = await eventsOf(api.services.db, sub.id);
    expect(events.map((event) => event.type)).toEqual(Array.from({ length: 3 }, () => ['subscription.payment_succeeded', 'subscription.updated']).flat());
    // Each cycle's events carry the subscription as that cycle left it.
    expect(events.map((event) => event.data.object.current_period_start)).toEqual([1, 1, 2, 2, 3, 3].map((n) => epoch(weekly(n))));

    await advanceClock(api, store.key, 1);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(3);
  });

  it('month ends do not drift: anchored on 31 January it renews on 28 February, then on 31 March', async () => {
    const anchor = new Date('2026-01-31T10:00:00Z');
    api.clock.set(anchor);
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id);
    await advanceClock(api, store.key, 28 * DAY);
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({
      current_period_start: epoch(new Date('2026-02-28T10:00:00Z')),
      next_billing_at: epoch(new Date('2026-03-31T10:00:00Z')),
    });
    await advanceClock(api, store.key, 31 * DAY);
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({
      current_period_start: epoch(new Date('2026-03-31T10:00:00Z')),
      current_period_end: epoch(new Date('2026-04-30T10:00:00Z')),
    });
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(2);
  });

  it('a jump past the end of the schedule charges the remaining payments only, then expires', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { interval: 'day', intervalCount: 2, totalPayments: 3 });
    await advanceClock(api, store.key, 30 * DAY);
    expect((await chargesOf(api.services.db, sub.id)).map((charge) => charge.cycle)).toEqual([1, 2, 3]);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(2);
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({ status: 'expired', current_period_start: epoch(T0) + 4 * DAY, ended_at: epoch(T0) + 30 * DAY });
  });

  it('canceled, expired, incomplete and pending subscriptions are never charged', async () => {
    const store = await newStore();
    const canceled = await createSubscription(api.services, store.id);
    const deleted = await api.request('DELETE', `/api/v1/subscriptions/${canceled.id}`, { key: store.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body.status).toBe('canceled');
    const others = [];
    for (const status of ['expired', 'incomplete', 'pending'] as const) {
      const sub = await createSubscription(api.services, store.id);
      await api.services.db.update(subscriptions).set({ status }).where(eq(subscriptions.id, sub.id));
      others.push(sub);
    }
    const before = await Promise.all([canceled, ...others].map((sub) => eventsOf(api.services.db, sub.id)));
    await advanceClock(api, store.key, 90 * DAY);
    for (const [index, sub] of [canceled, ...others].entries()) {
      expect(await recurringLedger(api.services.db, sub.recurringId)).toEqual([]);
      expect(await chargesOf(api.services.db, sub.id)).toHaveLength(1);
      expect(await eventsOf(api.services.db, sub.id)).toEqual(before[index]);
    }
  });

  it('live mode runs on wall time: the test clock never bills it, the background pass does when its renewal falls due', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const live = await createSubscription(api.services, store.id, { livemode: true });
    await advanceClock(api, store.keys.sk_test, 60 * DAY);
    expect(await chargesOf(api.services.db, live.id)).toHaveLength(1);

    api.clock.set(monthly(1));
    await runBillingPass(api.services);
    const charges = await chargesOf(api.services.db, live.id);
    // This process has no live acquirer credentials: the live gateway refuses, nothing moves, and
    // the renewal fails like a decline.
    expect(charges[1]).toMatchObject({ cycle: 2, attempt: 0, livemode: true, status: 'declined', failureCode: 'processing_error', settledAt: monthly(1) });
    expect(await retrieveSubscription(api, store.keys.sk_live, live.id)).toMatchObject({ livemode: true, status: 'past_due', failure_count: 1, next_billing_at: epoch(monthly(1)) + DAY });
  });

  it('the background pass bills every test-mode store on its own clock', async () => {
    const ahead = await newStore();
    const behind = await newStore();
    const early = await createSubscription(api.services, ahead.id);
    const late = await createSubscription(api.services, behind.id);
    await advanceClock(api, ahead.key, 10 * DAY);
    expect(await recurringLedger(api.services.db, early.recurringId)).toEqual([]);

    // Wall time T0 + 21 days: the first store's clock reads T0 + 31 days, past its renewal.
    api.clock.set(new Date(T0.getTime() + 21 * DAY * 1000));
    expect(await runBillingPass(api.services)).toBeGreaterThanOrEqual(1);
    expect(await retrieveSubscription(api, ahead.key, early.id)).toMatchObject({ status: 'active', current_period_start: epoch(monthly(1)) });
    expect(await recurringLedger(api.services.db, early.recurringId)).toHaveLength(1);
    expect(await recurringLedger(api.services.db, late.recurringId)).toEqual([]);
    const [charge] = (await chargesOf(api.services.db, early.id)).slice(1);
    expect(charge!.settledAt).toEqual(monthly(1));
  });
});
