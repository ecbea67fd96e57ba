import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/db/client';
import { simulatorCharges, subscriptionCharges, subscriptions, webhookEvents } from '@/db/schema';
import { billDueSubscriptions } from '@/server/billing/engine';
import { createTestClock } from '../support/server';
import { createGateways } from '@/server/gateway';
import { loadConfig } from '@/server/config';
import { createTestDatabase } from '../support/database';
import { createStore } from '../support/factories';
import { createSubscriptions } from '../support/subscriptions';

const COUNT = 1000;
const T0 = new Date('2026-03-01T12:00:00.000Z');
const clock = createTestClock(T0);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
/** On PostgreSQL the second worker has its own connection pool, as another instance would. */
let secondDb: { db: Database; close(): Promise<void> } | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  if (database.url) secondDb = await openDatabase({ url: database.url, poolSize: 5 });
}, 60_000);
afterAll(async () => {
  await secondDb?.close();
  await database?.close();
}, 60_000);

function worker(db: Database) {
  const config = loadConfig({});
  return { db, clock, config, gateways: createGateways({ db, clock, config }) };
}

describe('two workers on one database', () => {
  it(`bill ${COUNT} due subscriptions: every one charged exactly once`, async () => {
    const { db } = database;
    const store = await createStore({ db });
    const subs = await createSubscriptions(worker(db), store.id, { interval: 'day', count: COUNT });
    const recurringId = subs[0]!.recurringId;
    clock.advance(24 * 60 * 60);

    const [first, second] = await Promise.all([
      billDueSubscriptions(worker(db), { kind: 'all' }, { batchSize: 25 }),
      billDueSubscriptions(worker(secondDb?.db ?? db), { kind: 'all' }, { batchSize: 25 }),
    ]);
    expect(first + second).toBe(COUNT);

    const [ledger] = await db
      .select({ charges: sql<number>`count(*)::int`, keys: sql<number>`count(distinct ${simulatorCharges.idempotencyKey})::int` })
      .from(simulatorCharges)
      .where(and(eq(simulatorCharges.recurringId, recurringId), eq(simulatorCharges.kind, 'recurring')));
    expect(ledger).toEqual({ charges: COUNT, keys: COUNT });

    const perSubscription = await db
      .select({ subscriptionId: subscriptionCharges.subscriptionId, charges: sql<number>`count(*)::int` })
      .from(subscriptionCharges)
      .where(and(eq(subscriptionCharges.cycle, 2), eq(subscriptionCharges.status, 'succeeded')))
      .groupBy(subscriptionCharges.subscriptionId);
    expect(perSubscription).toHaveLength(COUNT);
    expect(perSubscription.every((row) => row.charges === 1)).toBe(true);

    const states = await db
      .select({ status: subscriptions.status, paymentsMade: subscriptions.paymentsMade, count: sql<number>`count(*)::int` })
      .from(subscriptions)
      .groupBy(subscriptions.status, subscriptions.paymentsMade);
    expect(states).toEqual([{ status: 'active', paymentsMade: 2, count: COUNT }]);
    const [events] = await db.select({ count: sql<number>`count(*)::int` }).from(webhookEvents).where(eq(webhookEvents.type, 'subscription.payment_succeeded'));
    expect(events!.count).toBe(COUNT);
  }, 180_000);
});
