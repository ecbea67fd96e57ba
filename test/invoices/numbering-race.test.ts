import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/db/client';
import { creditNotes, invoices } from '@/db/schema';
import { loadConfig } from '@/server/config';
import { createGateways } from '@/server/gateway';
import { nextDocumentNumber } from '@/server/invoices/numbering';
import { payCheckoutSession } from '@/server/payments/service';
import { createRefund } from '@/server/orders/refunds/service';
import { OPERATOR } from '@/server/audit/service';
import { createTestDatabase } from '../support/database';
import { createStore } from '../support/factories';
import { createTestClock } from '../support/server';
import { insertSession } from '../payments/support';
import { storeCodeOf } from './support';

/**
 * Two service instances, each with its own connection pool on one PostgreSQL (on PGlite both
 * share its one connection), paying and refunding at once, while other transactions take a
 * number and roll back: the invoices and credit notes of a store are numbered 1..N, no gap, no
 * duplicate.
 */
const PAYMENTS = 60;
const ROLLED_BACK = 12;
const T0 = new Date('2026-03-01T12:00:00.000Z');
const clock = createTestClock(T0);
const config = { ...loadConfig({}), authSecret: 'test-auth-secret' };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let secondDb: { db: Database; close(): Promise<void> } | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  if (database.url) secondDb = await openDatabase({ url: database.url, poolSize: 5 });
}, 60_000);
afterAll(async () => {
  await secondDb?.close();
  await database?.close();
}, 60_000);

function instance(db: Database) {
  return { db, clock, config, gateways: createGateways({ db, clock, config }) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A transaction that takes a number, then fails before it commits, as a payment whose commit failed would. */
async function rolledBack(db: Database, kind: 'invoice' | 'credit_note', scope: { storeId: string; livemode: boolean }, delayMs: number) {
  await db
    .transaction(async (tx) => {
      await nextDocumentNumber(tx, kind, scope);
      await sleep(delayMs);
      throw new Error('rolled back');
    })
    .catch((error: Error) => expect(error.message).toBe('rolled back'));
}

describe('document numbers under concurrency', () => {
  it(`${PAYMENTS} payments and then their refunds across two instances, with rollbacks among them: numbers 1..N, gapless and unique`, async () => {
    const instances = [instance(database.db), instance(secondDb?.db ?? database.db)];
    const store = await createStore(database);
    const scope = { storeId: store.id, livemode: false };
    const sessions = [];
    for (let i = 0; i < PAYMENTS; i += 1) sessions.push(await insertSession(instances[0]!, store, { lines: [{ unitAmount: 1000 + i }] }));

    await Promise.all([
      ...sessions.map((session, index) => payCheckoutSession(instances[index % 2]!, { sessionId: session.sessionId, card: { number: '4242424242424242', expiry: '12/30', cvc: '123' } })),
      ...Array.from({ length: ROLLED_BACK }, (_, index) => rolledBack(instances[index % 2]!.db, 'invoice', scope, index % 3)),
    ]);
    const code = await storeCodeOf(database.db, store.id);
    const issued = await database.db.select({ number: invoices.number, orderId: invoices.orderId }).from(invoices).where(eq(invoices.storeId, store.id)).orderBy(asc(invoices.number));
    expect(issued.map((row) => row.number)).toEqual(Array.from({ length: PAYMENTS }, (_, i) => `TEST-INV-${code}-${String(i + 1).padStart(6, '0')}`));
    expect(new Set(issued.map((row) => row.orderId)).size).toBe(PAYMENTS);

    const refundDeps = (db: Database) => ({ db, clock, wallClock: clock, gateway: instances[0]!.gateways.test, actor: OPERATOR });
    await Promise.all([
      ...sessions.map((session, index) => createRefund(refundDeps(instances[index % 2]!.db), scope, { order_id: session.orderId, amount: 100 })),
      ...Array.from({ length: ROLLED_BACK }, (_, index) => rolledBack(instances[index % 2]!.db, 'credit_note', scope, index % 3)),
    ]);
    const notes = await database.db
      .select({ number: creditNotes.number })
      .from(creditNotes)
      .where(and(eq(creditNotes.storeId, store.id), eq(creditNotes.livemode, false)))
      .orderBy(asc(creditNotes.number));
    expect(notes.map((row) => row.number)).toEqual(Array.from({ length: PAYMENTS }, (_, i) => `TEST-CN-${code}-${String(i + 1).padStart(6, '0')}`));
  }, 300_000);
});
