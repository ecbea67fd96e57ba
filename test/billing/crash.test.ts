import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, openMigratedDatabase, type DatabaseHandle } from '@/db/client';
import { subscriptions } from '@/db/schema';
import { runBillingPass } from '@/server/billing/jobs';
import { systemClock } from '@/server/clock';
import { loadConfig } from '@/server/config';
import { createGateways } from '@/server/gateway';
import { createTestDatabase } from '../support/database';
import { createStore } from '../support/factories';
import { createSubscription } from '../support/subscriptions';
import { chargesOf, DAY, eventsOf, recurringLedger } from './support';

const WORKER = path.join(import.meta.dirname, 'fixtures', 'crash-worker.ts');

/**
 * The database both processes use: the test database on PostgreSQL; on PGlite a data directory
 * that the parent and the child open one after the other (PGlite allows one process at a time).
 */
async function sharedDatabase(): Promise<{
  database: DatabaseHandle;
  env: Record<string, string>;
  beforeChild(): Promise<void>;
  afterChild(): Promise<DatabaseHandle>;
  cleanup(): Promise<void>;
}> {
  if (process.env.DATABASE_URL) {
    const database = await createTestDatabase();
    return { database, env: { DATABASE_URL: database.url! }, beforeChild: async () => {}, afterChild: async () => database, cleanup: () => database.close() };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'billing-crash-'));
  const database = await openMigratedDatabase({ pgliteDir: dir });
  let reopened: DatabaseHandle | undefined;
  return {
    database,
    env: { PGLITE_DIR: dir },
    beforeChild: () => database.close(),
    afterChild: async () => (reopened = await openDatabase({ pgliteDir: dir })),
    cleanup: async () => {
      await reopened?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function runChild(env: Record<string, string>): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  return new Promise((resolve) => {
    // tsx as a loader, not its CLI: the CLI would run the script in a grandchild process.
    execFile(process.execPath, ['--import', 'tsx', WORKER], { cwd: process.cwd(), env: { ...inherited, ...env }, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ signal: (error as { signal?: NodeJS.Signals } | null)?.signal ?? null, stderr });
    });
  });
}

let cleanup: () => Promise<void> = async () => {};
afterAll(() => cleanup(), 60_000);

describe('a worker killed between the gateway call and the commit', () => {
  it('leaves one charge at the gateway; a fresh worker settles it from the gateway under the same key, never charging again', async () => {
    const shared = await sharedDatabase();
    cleanup = shared.cleanup;
    const prepared = shared.database;
    const store = await createStore({ db: prepared.db });
    // A daily subscription started 25 hours ago: its second payment fell due an hour ago.
    const anchor = new Date(Date.now() - 25 * 60 * 60 * 1000);
    const services = { db: prepared.db, clock: systemClock, gateways: createGateways({ db: prepared.db, clock: systemClock, config: loadConfig({}) }) };
    const sub = await createSubscription(services, store.id, { interval: 'day', anchor, metadata: { order: 'K-9' } });

    await shared.beforeChild();
    const child = await runChild(shared.env);
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const { db } = await shared.afterChild();

    // The gateway charged; the service never recorded the outcome.
    const ledger = await recurringLedger(db, sub.recurringId);
    expect(ledger.map((charge) => [charge.idempotencyKey, charge.status])).toEqual([[`subscription:${sub.id}:2:0`, 'succeeded']]);
    expect((await chargesOf(db, sub.id)).map((charge) => [charge.cycle, charge.status])).toEqual([
      [1, 'succeeded'],
      [2, 'processing'],
    ]);
    expect(await eventsOf(db, sub.id)).toEqual([]);

    const config = loadConfig({});
    const deps = { db, clock: systemClock, config, gateways: createGateways({ db, clock: systemClock, config }) };
    expect(await runBillingPass(deps, { staleAfterSeconds: 0 })).toBe(1);
    // A second worker run finds nothing left to do.
    expect(await runBillingPass(deps, { staleAfterSeconds: 0 })).toBe(0);

    expect(await recurringLedger(db, sub.recurringId)).toEqual(ledger);
    const charges = await chargesOf(db, sub.id);
    expect(charges[1]).toMatchObject({ status: 'succeeded', gatewayPaymentId: ledger[0]!.paymentId, cardLast4: '4242' });
    const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
    expect(row).toMatchObject({ status: 'active', paymentsMade: 2, failureCount: 0, currentPeriodStart: new Date(anchor.getTime() + DAY * 1000) });
    expect((await eventsOf(db, sub.id)).map((event) => event.type)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
  }, 120_000);
});
