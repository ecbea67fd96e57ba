import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorRecurring } from '@/db/schema';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { CARDS, createSubscription } from '../support/subscriptions';
import { advanceClock, chargesOf, DAY, eventsOf, recurringLedger, retrieveSubscription } from './support';

const api = useTestApi({ subscriptionsEnabled: true });
beforeEach(() => api.clock.set(T0));

const monthly = (n: number) => periodBoundary(T0, 'month', 1, n);
/** The first renewal falls due 31 days after T0 (1 March → 1 April). */
const RENEWAL = epoch(monthly(1)) - epoch(T0);
const afterFailure = (days: number) => epoch(monthly(1)) + days * DAY;

async function newStore() {
  const store = await createStore(api.services, { subscriptions: true });
  return { id: store.id, key: store.keys.sk_test };
}

describe('failed renewals and retries', () => {
  it('4000 0000 0000 0341: past_due with retries at +1, +3, +5, +7 days, canceled after the fourth failed retry', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { card: CARDS.declinesRecurring, metadata: { order: 'B-3' } });
    const types = async () => (await eventsOf(api.services.db, sub.id)).map((event) => event.type);

    await advanceClock(api, store.key, RENEWAL);
    const pastDue = await retrieveSubscription(api, store.key, sub.id);
    expect(pastDue).toMatchObject({
      status: 'past_due',
      failure_count: 1,
      next_billing_at: afterFailure(1),
      current_period_start: epoch(T0),
      current_period_end: epoch(monthly(1)),
      canceled_at: null,
      ended_at: null,
      metadata: { order: 'B-3' },
    });
    expect(await types()).toEqual(['subscription.payment_failed', 'subscription.past_due', 'subscription.updated']);
    for (const event of await eventsOf(api.services.db, sub.id)) expect(event.data.object).toEqual(pastDue);

    // Retries 1–3: each declined, the next one scheduled from the first failure.
    for (const [attempt, nextDay] of [
      [1, 3],
      [2, 5],
      [3, 7],
    ] as const) {
      await advanceClock(api, store.key, (attempt === 1 ? 1 : 2) * DAY - 1);
      expect(await chargesOf(api.services.db, sub.id)).toHaveLength(attempt + 1);
      await advanceClock(api, store.key, 1);
      expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({ status: 'past_due', failure_count: attempt + 1, next_billing_at: afterFailure(nextDay) });
    }
    expect((await types()).slice(3)).toEqual(Array.from({ length: 3 }, () => ['subscription.payment_failed', 'subscription.updated']).flat());

    await advanceClock(api, store.key, 2 * DAY);
    const canceled = await retrieveSubscription(api, store.key, sub.id);
    expect(canceled).toMatchObject({ status: 'canceled', failure_count: 5, canceled_at: afterFailure(7), ended_at: afterFailure(7), current_period_end: epoch(monthly(1)) });
    expect((await types()).slice(9)).toEqual(['subscription.payment_failed', 'subscription.canceled', 'subscription.updated']);
    const last = (await eventsOf(api.services.db, sub.id)).slice(9);
    for (const event of last) expect(event.data.object).toEqual(canceled);

    const charges = await chargesOf(api.services.db, sub.id);
    expect(charges.slice(1).map((charge) => [charge.cycle, charge.attempt, charge.status, charge.failureCode, epoch(charge.scheduledAt)])).toEqual([
      [2, 0, 'declined', 'card_declined', epoch(monthly(1))],
      [2, 1, 'declined', 'card_declined', afterFailure(1)],
      [2, 2, 'declined', 'card_declined', afterFailure(3)],
      [2, 3, 'declined', 'card_declined', afterFailure(5)],
      [2, 4, 'declined', 'card_declined', afterFailure(7)],
    ]);
    const ledger = await recurringLedger(api.services.db, sub.recurringId);
    expect(ledger.map((charge) => [charge.idempotencyKey, charge.status])).toEqual([0, 1, 2, 3, 4].map((attempt) => [`subscription:${sub.id}:2:${attempt}`, 'declined']));
    // The contract ends at the gateway too, and nothing is charged afterwards.
    const [contract] = await api.services.db.select().from(simulatorRecurring).where(eq(simulatorRecurring.id, sub.recurringId));
    expect(contract!.canceledAt).not.toBeNull();
    await advanceClock(api, store.key, 90 * DAY);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(5);
    expect(await types()).toHaveLength(12);
  });

  it('4000 0000 0000 3063: the first renewal fails (past_due), the first retry succeeds and returns it to active; later renewals succeed', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { card: CARDS.declinesFirstRecurring });
    await advanceClock(api, store.key, RENEWAL);
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({ status: 'past_due', failure_count: 1, next_billing_at: afterFailure(1) });

    await advanceClock(api, store.key, DAY);
    const active = await retrieveSubscription(api, store.key, sub.id);
    expect(active).toMatchObject({
      status: 'active',
      failure_count: 0,
      current_period_start: epoch(monthly(1)),
      current_period_end: epoch(monthly(2)),
      next_billing_at: epoch(monthly(2)),
    });
    const events = await eventsOf(api.services.db, sub.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.payment_failed', 'subscription.past_due', 'subscription.updated', 'subscription.payment_succeeded', 'subscription.updated']);
    expect(events[3]!.data.object).toEqual(active);
    expect(events[3]!.created).toBe(afterFailure(1));

    await advanceClock(api, store.key, epoch(monthly(2)) - afterFailure(1));
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({ status: 'active', current_period_start: epoch(monthly(2)) });
    const charges = await chargesOf(api.services.db, sub.id);
    expect(charges.map((charge) => [charge.cycle, charge.attempt, charge.status])).toEqual([
      [1, 0, 'succeeded'],
      [2, 0, 'declined'],
      [2, 1, 'succeeded'],
      [3, 0, 'succeeded'],
    ]);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(3);
  });

  it('a clock jump over the whole retry schedule runs every retry once, in order, then cancels', async () => {
    const store = await newStore();
    const sub = await createSubscription(api.services, store.id, { card: CARDS.declinesRecurring });
    await advanceClock(api, store.key, RENEWAL);
    const now = await advanceClock(api, store.key, 40 * DAY);
    const charges = await chargesOf(api.services.db, sub.id);
    expect(charges.slice(1).map((charge) => [charge.attempt, epoch(charge.scheduledAt)])).toEqual([
      [0, epoch(monthly(1))],
      [1, afterFailure(1)],
      [2, afterFailure(3)],
      [3, afterFailure(5)],
      [4, afterFailure(7)],
    ]);
    expect(await recurringLedger(api.services.db, sub.recurringId)).toHaveLength(5);
    expect(await retrieveSubscription(api, store.key, sub.id)).toMatchObject({ status: 'canceled', failure_count: 5, canceled_at: now });
  });
});
