import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { stores, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from '@/db/schema';
import { homeMetrics } from '@/server/dashboard/service';
import { newId, randomBase62 } from '@/server/ids';
import { seedOrder, seedSubscription } from '../portal/factories';
import { T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';

const api = useTestApi();
beforeEach(() => api.clock.set(T0));
const DAY = 86_400;
const seed = () => ({ db: api.services.db, now: api.clock.now() });
const test = (store: { id: string }) => ({ storeId: store.id, livemode: false });
const live = (store: { id: string }) => ({ storeId: store.id, livemode: true });
const metrics = (scope: { storeId: string; livemode: boolean }, days: number) => homeMetrics({ db: api.services.db, clock: api.clock }, scope, { days });
const zero = (date: string) => ({ date, gross_volume: 0, orders: 0 });

/** One delivery attempt of the store's endpoint, `ageSeconds` before the wall clock; `failed` gives it an error. */
async function seedAttempt(store: { id: string }, options: { livemode?: boolean; failed: boolean; ageSeconds: number }) {
  const livemode = options.livemode ?? false;
  const now = api.clock.now();
  const endpointId = newId('we', livemode);
  const eventId = newId('evt', livemode);
  const deliveryId = `wd_${randomBase62(24)}`;
  await api.services.db.insert(webhookEndpoints).values({ id: endpointId, storeId: store.id, livemode, url: 'https://hooks.example.com', createdAt: now });
  await api.services.db
    .insert(webhookEvents)
    .values({ id: eventId, storeId: store.id, livemode, type: 'order.paid', objectId: newId('ord', livemode), objectSequence: 1, payload: {}, createdAt: now });
  await api.services.db.insert(webhookDeliveries).values({
    id: deliveryId,
    eventId,
    endpointId,
    storeId: store.id,
    livemode,
    objectId: eventId,
    sequence: 1,
    status: options.failed ? 'pending' : 'succeeded',
    attempts: 1,
    createdAt: now,
  });
  await api.services.db.insert(webhookDeliveryAttempts).values({
    deliveryId,
    attempt: 1,
    responseStatus: options.failed ? 500 : 200,
    error: options.failed ? 'The endpoint answered 500; only a 2xx counts as delivered.' : null,
    durationMs: 12,
    attemptedAt: new Date(now.getTime() - options.ageSeconds * 1000),
  });
}

describe('homeMetrics', () => {
  it('volume net of refunds, paid orders and the daily series over the last `days` UTC days; pending, live and other stores apart', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    // T0 is 2026-03-01T12:00Z.
    await seedOrder(seed(), store, { lines: [{ description: 'A', unitAmount: 1999 }] });
    await seedOrder(seed(), store, { lines: [{ description: 'B', unitAmount: 5000, amountTax: 950 }], refunds: [1000], ageSeconds: DAY });
    await seedOrder(seed(), store, { lines: [{ description: 'C', unitAmount: 3000 }], refunds: [1000, 2000], ageSeconds: 2 * DAY });
    await seedOrder(seed(), store, { lines: [{ description: 'D', unitAmount: 7000 }], ageSeconds: 10 * DAY });
    await seedOrder(seed(), store, { status: 'pending', lines: [{ description: 'E', unitAmount: 8000 }] });
    await seedOrder(seed(), store, { livemode: true, lines: [{ description: 'F', unitAmount: 100_000 }] });
    await seedOrder(seed(), other, { lines: [{ description: 'G', unitAmount: 200_000 }] });

    const week = await metrics(test(store), 7);
    expect(week).toMatchObject({ from: '2026-02-23', to: '2026-03-01', gross_volume: 1999 + 4950 + 0, orders: 3 });
    expect(week.daily).toEqual([
      zero('2026-02-23'),
      zero('2026-02-24'),
      zero('2026-02-25'),
      zero('2026-02-26'),
      { date: '2026-02-27', gross_volume: 0, orders: 1 },
      { date: '2026-02-28', gross_volume: 4950, orders: 1 },
      { date: '2026-03-01', gross_volume: 1999, orders: 1 },
    ]);

    const month = await metrics(test(store), 30);
    expect(month).toMatchObject({ from: '2026-01-31', to: '2026-03-01', gross_volume: 13_949, orders: 4 });
    expect(month.daily).toHaveLength(30);
    expect(month.daily.find((entry) => entry.date === '2026-02-19')).toEqual({ date: '2026-02-19', gross_volume: 7000, orders: 1 });

    expect(await metrics(live(store), 1)).toMatchObject({ gross_volume: 100_000, orders: 1, daily: [{ date: '2026-03-01', gross_volume: 100_000, orders: 1 }] });
    expect(await metrics(test(other), 1)).toMatchObject({ gross_volume: 200_000, orders: 1 });
  });

  it('the window starts at UTC midnight `days - 1` days before today and ends with today', async () => {
    const store = await createStore(api.services);
    const firstMidnight = Date.parse('2026-02-23T00:00:00Z');
    const ageOf = (instant: number) => (T0.getTime() - instant) / 1000;
    await seedOrder(seed(), store, { lines: [{ description: 'in', unitAmount: 1000 }], ageSeconds: ageOf(firstMidnight) });
    await seedOrder(seed(), store, { lines: [{ description: 'out', unitAmount: 2000 }], ageSeconds: ageOf(firstMidnight - 1000) });
    const week = await metrics(test(store), 7);
    expect(week).toMatchObject({ gross_volume: 1000, orders: 1 });
    expect(week.daily[0]).toEqual({ date: '2026-02-23', gross_volume: 1000, orders: 1 });
    expect((await metrics(test(store), 8)).daily[0]).toEqual({ date: '2026-02-22', gross_volume: 2000, orders: 1 });
  });

  it('test mode runs on the store’s test clock; live mode and the webhook window on the wall clock', async () => {
    const store = await createStore(api.services);
    await seedOrder(seed(), store, { lines: [{ description: 'today', unitAmount: 1000 }] });
    await seedOrder(seed(), store, { livemode: true, lines: [{ description: 'live today', unitAmount: 3000 }] });
    await api.services.db
      .update(stores)
      .set({ testClockOffsetSeconds: 3 * DAY })
      .where(eq(stores.id, store.id));
    // Paid on the test clock, three days ahead of the wall.
    await seedOrder({ db: api.services.db, now: new Date(T0.getTime() + 3 * DAY * 1000) }, store, { lines: [{ description: 'later', unitAmount: 2000 }] });
    await seedAttempt(store, { failed: true, ageSeconds: 3600 });

    const testMode = await metrics(test(store), 3);
    expect(testMode).toMatchObject({ from: '2026-03-02', to: '2026-03-04', gross_volume: 2000, orders: 1, webhook_failures_24h: 1 });
    expect((await metrics(test(store), 4)).daily[0]).toEqual({ date: '2026-03-01', gross_volume: 1000, orders: 1 });
    expect(await metrics(live(store), 3)).toMatchObject({ from: '2026-02-27', to: '2026-03-01', gross_volume: 3000, orders: 1 });
  });

  it('active subscriptions, MRR rounded per subscription, past-due count; other statuses, live and other stores apart', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const active = (amount: number, interval: 'day' | 'week' | 'month' | 'year', intervalCount = 1) => seedSubscription(seed(), store, { amount, interval, intervalCount });
    await active(990, 'month'); // 990
    await active(1000, 'month', 3); // 333.3 → 333
    await active(1000, 'year'); // 83.3 → 83
    await active(1001, 'week'); // 1001 × 52 / 12 = 4337.67 → 4338
    await active(100, 'day'); // × 30 = 3000
    await active(1000, 'week', 2); // 1000 × 52 / 24 = 2166.67 → 2167
    await active(5, 'month', 2); // 2.5 → 3, half up
    await seedSubscription(seed(), store, { status: 'past_due', amount: 5000 });
    await seedSubscription(seed(), store, { status: 'past_due', amount: 7000, interval: 'year' });
    for (const status of ['canceled', 'expired', 'pending', 'suspended', 'incomplete'] as const) await seedSubscription(seed(), store, { status, amount: 9999 });
    await seedSubscription(seed(), store, { livemode: true, amount: 7777 });
    await seedSubscription(seed(), other, { amount: 8888 });

    expect(await metrics(test(store), 1)).toMatchObject({ active_subscriptions: 7, mrr: 990 + 333 + 83 + 4338 + 3000 + 2167 + 3, past_due: 2 });
    expect(await metrics(live(store), 1)).toMatchObject({ active_subscriptions: 1, mrr: 7777, past_due: 0 });
    expect(await metrics(test(other), 1)).toMatchObject({ active_subscriptions: 1, mrr: 8888, past_due: 0 });
  });

  it('webhook failures: failed attempts of the store and environment in the last 24 hours of wall time', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    await seedAttempt(store, { failed: true, ageSeconds: 3600 });
    await seedAttempt(store, { failed: true, ageSeconds: DAY - 1 });
    await seedAttempt(store, { failed: true, ageSeconds: DAY });
    await seedAttempt(store, { failed: true, ageSeconds: 3 * DAY });
    await seedAttempt(store, { failed: false, ageSeconds: 60 });
    await seedAttempt(store, { livemode: true, failed: true, ageSeconds: 60 });
    await seedAttempt(other, { failed: true, ageSeconds: 60 });

    expect((await metrics(test(store), 1)).webhook_failures_24h).toBe(2);
    expect((await metrics(live(store), 1)).webhook_failures_24h).toBe(1);
    api.clock.advance(2 * 3600);
    expect((await metrics(test(store), 1)).webhook_failures_24h).toBe(1);
  });

  it('an empty store answers zeros, one entry per day', async () => {
    const store = await createStore(api.services);
    expect(await metrics(test(store), 2)).toEqual({
      from: '2026-02-28',
      to: '2026-03-01',
      gross_volume: 0,
      orders: 0,
      active_subscriptions: 0,
      mrr: 0,
      past_due: 0,
      webhook_failures_24h: 0,
      daily: [zero('2026-02-28'), zero('2026-03-01')],
    });
  });

  it('`days` is an integer from 1 to 366', async () => {
    const store = await createStore(api.services);
    for (const days of [0, 367, 1.5]) {
      await expect(metrics(test(store), days)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'days' });
    }
    expect((await metrics(test(store), 366)).daily).toHaveLength(366);
  });
});
