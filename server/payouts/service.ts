/**
 * Payouts: the store's available balance, paid to its bank account. A payout is made in one
 * transaction per store and environment with the store's row locked, so two payouts never settle
 * the same entries and a scheduled one is made once per date: it settles every available,
 * unsettled entry but payouts' own (recorded beside them in payout_settlements), writes its
 * `payout` entry taking their sum off the balance, and records its events. Test mode has no bank:
 * a test payout is paid the moment it is made.
 */
import { and, asc, eq, isNull, lte, ne, sql } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '@/db/client';
import {
  balanceTransactions,
  creditNotes,
  invoices,
  orders,
  payoutSettlements,
  payouts,
  refunds,
  stores,
  type BalanceSourceType,
  type BalanceTransactionType,
  type DocumentLanguage,
  type PayoutFailureReason,
  type PayoutSchedule,
  type PayoutStatus,
} from '@/db/schema';
import { recordPayoutEntry, type PayoutEntryType } from '../balance/ledger';
import type { BalanceTransactionList } from '../balance/schemas';
import { listBalanceTransactions, payoutHold, type PayoutHold } from '../balance/service';
import { payoutDestination } from '../bank-accounts/service';
import { epochSeconds, storeClock, type Clock } from '../clock';
import { ApiError, resourceMissing } from '../errors';
import { newId } from '../ids';
import { formatEuros } from '../kit/fees';
import { ibanLast4 } from '../kit/iban';
import { createIdempotently, type IdempotentRequest } from '../kit/idempotency';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import { enqueueMemberEmails } from '../mail/members';
import type { EmailTimes } from '../mail/outbox';
import { recordEvents, type EventType, type RecordEventInput } from '../webhooks/events';
import type { ListPayoutsQuery, Payout, PayoutList } from './schemas';

export type PayoutRow = typeof payouts.$inferSelect;

export function payoutView(row: PayoutRow): Payout {
  return {
    id: row.id,
    object: 'payout',
    amount: row.amount,
    currency: 'eur',
    status: row.status,
    failure_reason: row.failureReason,
    arrival_date: row.arrivalDate === null ? null : epochSeconds(row.arrivalDate),
    destination: { iban_last4: ibanLast4(row.iban), account_holder: row.accountHolder },
    created: epochSeconds(row.createdAt),
    livemode: row.livemode,
  };
}

/** A store's row, locked for the payout transaction, with its clock in the scope's environment. */
export interface LockedPayoutStore {
  name: string;
  suspended: boolean;
  schedule: PayoutSchedule;
  /** The last schedule date a pass took up in this environment. */
  scheduledThrough: Date | null;
  /** The store's clock now (its test clock in test mode). */
  now: Date;
}

/** Locks the store's row until the transaction ends; undefined when there is no such store. */
export async function lockPayoutStore(tx: Executor, scope: Scope, wallClock: Clock): Promise<LockedPayoutStore | undefined> {
  const [row] = await tx
    .select({
      name: stores.name,
      suspended: stores.suspended,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
      schedule: scope.livemode ? stores.payoutScheduleLive : stores.payoutScheduleTest,
      scheduledThrough: scope.livemode ? stores.payoutsScheduledThroughLive : stores.payoutsScheduledThroughTest,
    })
    .from(stores)
    .where(eq(stores.id, scope.storeId))
    // Not `update`: that would also stall every insert naming the store (an order, a refund) until the payout commits.
    .for('no key update');
  if (!row) return undefined;
  const now = storeClock(wallClock, { livemode: scope.livemode, testClockOffsetSeconds: row.testClockOffsetSeconds }).now();
  return { name: row.name, suspended: row.suspended, schedule: row.schedule, scheduledThrough: row.scheduledThrough, now };
}

export type PayoutAttempt = { made: PayoutRow } | { held: PayoutHold } | { insufficient: number };

export interface PayoutTerms {
  /** PAYOUT_MINIMUM: no payout below it. */
  minimum: number;
  /** Real time: when the events' first deliveries fall due. */
  wallNow: Date;
}

/**
 * Pays out the scope's available balance, the store's row locked by lockPayoutStore in `tx`:
 * under a hold or below the minimum nothing is written and the attempt says why. `scheduledFor`
 * is the schedule date of a scheduled payout (one per date), null for one asked for.
 */
export async function attemptPayout(tx: Transaction, scope: Scope, store: LockedPayoutStore, terms: PayoutTerms, made: { id: string; scheduledFor: Date | null }): Promise<PayoutAttempt> {
  const hold = await payoutHold(tx, scope, store);
  if (hold) return { held: hold };
  const { now } = store;
  // Read once, then settled by id: an entry committed meanwhile is left for the next payout.
  const settled = await tx
    .select({ id: balanceTransactions.id, amount: balanceTransactions.amount })
    .from(balanceTransactions)
    .leftJoin(payoutSettlements, eq(payoutSettlements.balanceTransactionId, balanceTransactions.id))
    .where(and(ownedBy(balanceTransactions, scope), lte(balanceTransactions.availableOn, now), ne(balanceTransactions.type, 'payout'), isNull(payoutSettlements.payoutId)));
  const amount = settled.reduce((sum, entry) => sum + entry.amount, 0);
  if (amount < terms.minimum) return { insufficient: amount };
  // Copied onto the payout: a later save of the bank account never moves it. Live mode without one was held above.
  const destination = (await payoutDestination(tx, scope, store.name))!;

  const [pending] = await tx
    .insert(payouts)
    .values({
      id: made.id,
      ...scope,
      amount,
      status: 'pending',
      failureReason: null,
      arrivalDate: null,
      iban: destination.iban,
      accountHolder: destination.accountHolder,
      createdAt: now,
      scheduledFor: made.scheduledFor,
    })
    .returning();
  // One JSON parameter whatever the number of entries settled.
  await tx.execute(
    sql`insert into ${payoutSettlements} (balance_transaction_id, payout_id) select value, ${made.id} from json_array_elements_text(${JSON.stringify(settled.map((entry) => entry.id))}::json)`,
  );
  await recordPayoutEntry(tx, pending!, 'payout', now);
  const times = { storeId: scope.storeId, livemode: scope.livemode, now, wallNow: terms.wallNow };
  const events: RecordEventInput[] = [{ ...times, type: 'payout.created', object: payoutView(pending!) }];
  let payout = pending!;
  if (!scope.livemode) {
    [payout] = (await tx.update(payouts).set({ status: 'paid', arrivalDate: now }).where(eq(payouts.id, made.id)).returning()) as [PayoutRow];
    events.push({ ...times, type: 'payout.paid', object: payoutView(payout), previous: payoutView(pending!) });
  }
  await recordEvents(tx, events);
  return { made: payout };
}

/** `-3.50` rather than formatEuros' form for a negative balance. */
const signedEuros = (cents: number) => `${cents < 0 ? '-' : ''}${formatEuros(Math.abs(cents))}`;

export function balanceInsufficientError(available: number, minimum: number): ApiError {
  return new ApiError('balance_insufficient', `The available balance (${signedEuros(available)} EUR) is below the payout minimum (${formatEuros(minimum)} EUR).`);
}

export function payoutsHeldError(hold: PayoutHold): ApiError {
  const until = hold.until === null ? 'until its cause is removed' : `until ${new Date(hold.until * 1000).toISOString()}`;
  return new ApiError('payouts_held', `Payouts are held (${hold.reason}) ${until}.`);
}

export interface PayoutDeps {
  db: Database;
  /** The store's clock. */
  clock: Clock;
  wallClock: Clock;
  config: { ledger: { payoutMinimum: number } };
}

export const CREATE_PAYOUT_OPERATION = 'payout.create';

/** POST /payouts: the available balance paid out now, whatever the schedule, under an optional `Idempotency-Key`. */
export async function createPayout(deps: PayoutDeps, scope: Scope, idempotency?: IdempotentRequest): Promise<Payout> {
  const id = newId('po', scope.livemode);
  const minimum = deps.config.ledger.payoutMinimum;
  const { result } = await createIdempotently({
    db: deps.db,
    scope,
    operation: CREATE_PAYOUT_OPERATION,
    request: idempotency,
    now: deps.clock.now(),
    resourceId: id,
    create: (executor) =>
      executor.transaction(async (tx) => {
        const store = (await lockPayoutStore(tx, scope, deps.wallClock))!;
        const attempt = await attemptPayout(tx, scope, store, { minimum, wallNow: deps.wallClock.now() }, { id, scheduledFor: null });
        if ('held' in attempt) throw payoutsHeldError(attempt.held);
        if ('insufficient' in attempt) throw balanceInsufficientError(attempt.insufficient, minimum);
        return payoutView(attempt.made);
      }),
    replay: (replayedId) => getPayout(deps.db, scope, replayedId),
  });
  return result;
}

/** A payout of the scope: unknown, foreign and other-environment ids answer alike. */
async function readPayout(db: Executor, scope: Scope, id: string): Promise<PayoutRow> {
  const [row] = await db
    .select()
    .from(payouts)
    .where(and(eq(payouts.id, id), ownedBy(payouts, scope)))
    .limit(1);
  if (!row) throw resourceMissing('payout', id);
  return row;
}

/** GET /payouts/{id}. */
export async function getPayout(db: Executor, scope: Scope, id: string): Promise<Payout> {
  return payoutView(await readPayout(db, scope, id));
}

/** An entry a payout settled, with the number of the document behind it: a payment's invoice, a refund's credit note. */
export interface StatementEntry {
  id: string;
  type: BalanceTransactionType;
  amount: number;
  source: { type: BalanceSourceType; id: string } | null;
  description: string;
  createdAt: Date;
  documentNumber: string | null;
}

/** What a payout's statement shows: the payout, its store, and the entries it settled in the order they were recorded. */
export interface PayoutStatement {
  payout: PayoutRow;
  store: { id: string; name: string; language: DocumentLanguage };
  entries: StatementEntry[];
}

/** A paid payout's statement; any other status is 409 payout_not_paid (a payout still on its way may yet fail). */
export async function readPayoutStatement(db: Executor, scope: Scope, id: string): Promise<PayoutStatement> {
  const payout = await readPayout(db, scope, id);
  if (payout.status !== 'paid') throw new ApiError('payout_not_paid', `Payout ${id} is ${payout.status}: only a paid payout has a statement.`);
  const [[store], rows] = await Promise.all([
    db.select({ id: stores.id, name: stores.name, language: stores.language }).from(stores).where(eq(stores.id, scope.storeId)),
    db
      .select({
        id: balanceTransactions.id,
        type: balanceTransactions.type,
        amount: balanceTransactions.amount,
        sourceType: balanceTransactions.sourceType,
        sourceId: balanceTransactions.sourceId,
        description: balanceTransactions.description,
        createdAt: balanceTransactions.createdAt,
        invoiceNumber: invoices.number,
        creditNoteNumber: creditNotes.number,
      })
      .from(payoutSettlements)
      .innerJoin(balanceTransactions, eq(balanceTransactions.id, payoutSettlements.balanceTransactionId))
      .leftJoin(orders, and(eq(balanceTransactions.sourceType, 'order'), eq(orders.id, balanceTransactions.sourceId)))
      .leftJoin(invoices, eq(invoices.id, orders.invoiceId))
      .leftJoin(refunds, and(eq(balanceTransactions.sourceType, 'refund'), eq(refunds.id, balanceTransactions.sourceId)))
      .leftJoin(creditNotes, eq(creditNotes.id, refunds.creditNoteId))
      .where(eq(payoutSettlements.payoutId, payout.id))
      .orderBy(asc(balanceTransactions.recordedOrder)),
  ]);
  const entries = rows.map(
    (row): StatementEntry => ({
      id: row.id,
      type: row.type,
      amount: row.amount,
      source: row.sourceType === null || row.sourceId === null ? null : { type: row.sourceType, id: row.sourceId },
      description: row.description,
      createdAt: row.createdAt,
      documentNumber: row.invoiceNumber ?? row.creditNoteNumber,
    }),
  );
  return { payout, store: store!, entries };
}

/** GET /payouts: newest first. */
export async function listPayouts(db: Database, scope: Scope, query: ListPayoutsQuery): Promise<PayoutList> {
  const { rows, hasMore } = await listPage(db, payouts, {
    scope,
    page: query,
    kind: 'payout',
    where: [query.status === undefined ? undefined : eq(payouts.status, query.status), ...createdWithin(payouts.createdAt, query)],
  });
  return listEnvelope('/api/v1/payouts', scope, rows.map(payoutView), hasMore);
}

/** GET /payouts/{id}/balance_transactions: the entries it settled, as `GET /balance_transactions?payout_id=` lists them. */
export async function listPayoutBalanceTransactions(
  deps: { db: Database; clock: Clock },
  scope: Scope,
  query: { id: string; limit: number; starting_after?: string | undefined },
): Promise<BalanceTransactionList> {
  await getPayout(deps.db, scope, query.id);
  return listBalanceTransactions(deps, scope, { limit: query.limit, starting_after: query.starting_after, payout_id: query.id });
}

/** The operator's changes of a payout's status, each from the statuses it may leave. */
export type PayoutChange = { to: 'paid' } | { to: 'failed'; reason: PayoutFailureReason } | { to: 'canceled' };

const CHANGES: Record<PayoutChange['to'], { from: readonly PayoutStatus[]; event: EventType; entry?: PayoutEntryType }> = {
  paid: { from: ['in_transit'], event: 'payout.paid' },
  failed: { from: ['in_transit', 'paid'], event: 'payout.failed', entry: 'payout_failure' },
  canceled: { from: ['pending'], event: 'payout.updated', entry: 'payout_cancel' },
};

/**
 * Moves a payout to `change.to` in `tx`, the store's row locked first as a payout's creation does:
 * a failure or cancellation gives its amount back to the balance (an entry available at once, paid
 * out with the next payout), and a failure holds payouts and is e-mailed to the owners. Undefined
 * when there is no such payout; a payout in a status the change does not leave is refused and
 * nothing is written.
 */
export async function changePayoutStatus(tx: Transaction, id: string, change: PayoutChange, wallClock: Clock): Promise<PayoutRow | undefined> {
  const [found] = await tx.select({ storeId: payouts.storeId, livemode: payouts.livemode }).from(payouts).where(eq(payouts.id, id));
  if (!found) return undefined;
  const store = (await lockPayoutStore(tx, found, wallClock))!;
  const [before] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
  const rule = CHANGES[change.to];
  if (!rule.from.includes(before!.status)) {
    throw new ApiError('parameter_invalid', `Payout ${id} is ${before!.status}: only a payout ${rule.from.join(' or ')} can become ${change.to}.`, { param: 'id' });
  }
  const [after] = (await tx
    .update(payouts)
    .set(change.to === 'failed' ? { status: 'failed', failureReason: change.reason, failedAt: store.now } : { status: change.to })
    .where(eq(payouts.id, id))
    .returning()) as [PayoutRow];
  if (rule.entry) await recordPayoutEntry(tx, after, rule.entry, store.now);
  await recordEvents(tx, [{ storeId: after.storeId, livemode: after.livemode, type: rule.event, object: payoutView(after), previous: payoutView(before!), now: store.now, wallNow: wallClock.now() }]);
  if (change.to === 'failed') await enqueuePayoutFailed(tx, after, change.reason, { now: store.now, wallNow: wallClock.now() });
  return after;
}

/** Tells every owner that the bank returned the payout, and that saving the bank account resumes payouts. */
function enqueuePayoutFailed(tx: Transaction, payout: PayoutRow, failureReason: PayoutFailureReason, times: EmailTimes): Promise<number> {
  const data = {
    payoutId: payout.id,
    amount: payout.amount,
    failureReason,
    failedAt: epochSeconds(times.now),
    ibanLast4: ibanLast4(payout.iban),
    accountHolder: payout.accountHolder,
  };
  return enqueueMemberEmails(tx, payout, ['owner'], { content: { template: 'payout_failed', data }, related: { payoutId: payout.id } }, times);
}
