/**
 * `npm run bench`: recurring billing throughput. N subscriptions fall due at once on a
 * fresh PostgreSQL database; the billing pass (server/billing/engine.ts: claim with SKIP LOCKED,
 * charge row, simulator gateway call, settle with events) bills them, first as one worker, then
 * as two workers with a connection pool each (two instances sharing the database). Prints due
 * subscriptions billed per second and checks that each was charged exactly once.
 *
 * BENCH_BILLING_SUBSCRIPTIONS (default 2000) sets N.
 */
import { and, eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, openMigratedDatabase, type Database } from '@/db/client';
import { simulatorCharges } from '@/db/schema';
import { billDueSubscriptions } from '@/server/billing/engine';
import { loadConfig } from '@/server/config';
import { createGateways } from '@/server/gateway';
import { randomBase62 } from '@/server/ids';
import { createStore } from '../support/factories';
import { createTestClock } from '../support/server';
import { createSubscriptions } from '../support/subscriptions';

const COUNT = Number(process.env.BENCH_BILLING_SUBSCRIPTIONS ?? 2000);
const DAY_SECONDS = 24 * 60 * 60;

async function billOnce(url: string, workers: number): Promise<number> {
  const pools = await Promise.all(Array.from({ length: workers }, () => openDatabase({ url, poolSize: 10 })));
  const clock = createTestClock(new Date('2026-03-01T12:00:00Z'));
  const config = loadConfig({});
  const deps = (db: Database) => ({ db, clock, config, gateways: createGateways({ db, clock, config }) });
  try {
    const { db } = pools[0]!;
    const store = await createStore({ db });
    const subs = await createSubscriptions(deps(db), store.id, { interval: 'day', count: COUNT });
    clock.advance(DAY_SECONDS);
    const started = performance.now();
    const billed = await Promise.all(pools.map((pool) => billDueSubscriptions(deps(pool.db))));
    const seconds = (performance.now() - started) / 1000;
    const [ledger] = await db
      .select({ keys: sql<number>`count(distinct ${simulatorCharges.idempotencyKey})::int`, charges: sql<number>`count(*)::int` })
      .from(simulatorCharges)
      .where(and(eq(simulatorCharges.recurringId, subs[0]!.recurringId), eq(simulatorCharges.kind, 'recurring')));
    const total = billed.reduce((sum, count) => sum + count, 0);
    if (total !== COUNT || ledger?.charges !== COUNT || ledger.keys !== COUNT) {
      throw new Error(`billing bench: ${total} billed, ${ledger?.charges} charges for ${COUNT} subscriptions`);
    }
    return COUNT / seconds;
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
}

/** Runs on its own database `bench_billing_<random>` on the server at `serverUrl`, dropped afterwards. */
export async function printBillingThroughput(serverUrl: string): Promise<void> {
  const name = `bench_billing_${randomBase62(10).toLowerCase()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await (await openMigratedDatabase({ url: url.toString(), poolSize: 1 })).close();
    const one = await billOnce(url.toString(), 1);
    const two = await billOnce(url.toString(), 2);
    console.log(
      `\nRecurring billing on PostgreSQL (${COUNT} due subscriptions, simulator gateway, each charged exactly once): ` +
        `${one.toFixed(0)} subscriptions/s with one worker, ${two.toFixed(0)} subscriptions/s with two workers.`,
    );
  } finally {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end({ timeout: 5 });
  }
}
