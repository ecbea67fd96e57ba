/**
 * The merchant's money as the API reads it: the balance (the store's entries summed by
 * availability on the store's clock, never a stored number), and the entries themselves.
 */
import { and, eq, getTableColumns, gte, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { balanceTransactions, payouts, payoutSettlements, stores, type PayoutSchedule } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import type { Subject } from '../auth/service';
import { DESTINATION_CHANGE_HOLD_MS, savedBankAccount } from '../bank-accounts/service';
import { epochSeconds, type Clock } from '../clock';
import { resourceMissing } from '../errors';
import { createdWithin, listEnvelope } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import type { BalanceTransactionRow } from './ledger';
import { lastPayoutDate, nextPayoutDate } from './schedule';
import type { Balance, BalanceTransaction, BalanceTransactionList, ListBalanceTransactionsQuery } from './schemas';

export interface BalanceDeps {
  db: Executor;
  /** The store's clock: what is available by now. */
  clock: Clock;
}

/** An entry with the payout that settled it, if one did. */
export type SettledEntryRow = BalanceTransactionRow & { payoutId: string | null };

/** The columns of SettledEntryRow, for a select left-joined to payout_settlements (settledEntries). */
const settledEntryColumns = { ...getTableColumns(balanceTransactions), payoutId: payoutSettlements.payoutId };

/** Entries with what settled them: `select settledEntries(db).where(…)`. */
function settledEntries(db: Executor) {
  return db.select(settledEntryColumns).from(balanceTransactions).leftJoin(payoutSettlements, eq(payoutSettlements.balanceTransactionId, balanceTransactions.id));
}

export function balanceTransactionView(row: SettledEntryRow, now: Date): BalanceTransaction {
  return {
    id: row.id,
    object: 'balance_transaction',
    type: row.type,
    amount: row.amount,
    currency: 'eur',
    source: row.sourceType === null || row.sourceId === null ? null : { type: row.sourceType, id: row.sourceId },
    description: row.description,
    created: epochSeconds(row.createdAt),
    available_on: epochSeconds(row.availableOn),
    status: row.availableOn.getTime() <= now.getTime() ? 'available' : 'pending',
    payout_id: row.payoutId,
    livemode: row.livemode,
  };
}

/** The scope's entries summed: available by `now`, and not yet. */
export async function balanceSums(db: Executor, scope: Scope, now: Date): Promise<{ available: number; pending: number }> {
  // As text: a Date bound in raw SQL is not serialised by every driver.
  const at = sql`${now.toISOString()}::timestamptz`;
  const [sums] = await db
    .select({
      available: sql`coalesce(sum(${balanceTransactions.amount}) filter (where ${balanceTransactions.availableOn} <= ${at}), 0)`.mapWith(Number),
      pending: sql`coalesce(sum(${balanceTransactions.amount}) filter (where ${balanceTransactions.availableOn} > ${at}), 0)`.mapWith(Number),
    })
    .from(balanceTransactions)
    .where(ownedBy(balanceTransactions, scope));
  return sums!;
}

export type PayoutHold = NonNullable<Balance['payout_hold']>;

/**
 * Why no payout can be made now, the first that applies: a suspended store or no bank account
 * (live mode only); a failed payout not followed by a save of the bank account; a save that
 * changed the IBAN or the holder less than 7 days ago (until then). `now` is the store's clock.
 */
export async function payoutHold(db: Executor, scope: Scope, store: { suspended: boolean; now: Date }): Promise<PayoutHold | null> {
  if (scope.livemode && store.suspended) return { reason: 'account_suspended', until: null };
  const account = await savedBankAccount(db, scope);
  if (scope.livemode && !account) return { reason: 'destination_missing', until: null };
  const [failed] = await db
    .select({ id: payouts.id })
    .from(payouts)
    .where(and(ownedBy(payouts, scope), eq(payouts.status, 'failed'), account && gte(payouts.failedAt, account.savedAt)))
    .limit(1);
  if (failed) return { reason: 'payout_failed', until: null };
  const changeHeldUntil = account && account.changedAt.getTime() + DESTINATION_CHANGE_HOLD_MS;
  if (changeHeldUntil && store.now.getTime() < changeHeldUntil) return { reason: 'destination_changed', until: epochSeconds(new Date(changeHeldUntil)) };
  return null;
}

/** The store's payout schedule in the scope's environment. */
export async function payoutScheduleOf(db: Executor, scope: Scope): Promise<PayoutSchedule> {
  const [store] = await db
    .select({ schedule: scope.livemode ? stores.payoutScheduleLive : stores.payoutScheduleTest })
    .from(stores)
    .where(eq(stores.id, scope.storeId));
  return store!.schedule;
}

/**
 * Sets the scope's payout schedule, audited. A schedule date that passed before the switch counts
 * as taken up: the new schedule pays out from its next date, as `next_payout_at` then says, never
 * at once for a date it did not have.
 */
export async function changePayoutSchedule(deps: { db: Database; clock: Clock; actor: Actor }, scope: Scope, schedule: PayoutSchedule): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const through = scope.livemode ? stores.payoutsScheduledThroughLive : stores.payoutsScheduledThroughTest;
    // Locked as a payout locks it: a scheduled pass sees the old schedule or the new one, whole.
    const [store] = await tx.select({ through }).from(stores).where(eq(stores.id, scope.storeId)).for('no key update');
    const passed = lastPayoutDate(schedule, deps.clock.now());
    const takenUpTo = passed && (store!.through === null || store!.through.getTime() < passed.getTime()) ? passed : store!.through;
    await tx
      .update(stores)
      .set(scope.livemode ? { payoutScheduleLive: schedule, payoutsScheduledThroughLive: takenUpTo } : { payoutScheduleTest: schedule, payoutsScheduledThroughTest: takenUpTo })
      .where(eq(stores.id, scope.storeId));
    await recordAudit(tx, actorAudit(scope, deps.actor, 'payout_schedule.update', { livemode: scope.livemode, schedule }));
  });
}

/** GET /balance; `subject` is the key's, or a scope with its store's flags (storeBalance). */
export async function getBalance(deps: BalanceDeps, subject: Scope & { flags: Pick<Subject['flags'], 'suspended'> }): Promise<Balance> {
  const now = deps.clock.now();
  const { available, pending } = await balanceSums(deps.db, subject, now);
  const schedule = await payoutScheduleOf(deps.db, subject);
  const nextPayout = nextPayoutDate(schedule, now);
  return {
    object: 'balance',
    available,
    pending,
    currency: 'eur',
    livemode: subject.livemode,
    payout_schedule: schedule,
    next_payout_at: nextPayout === null ? null : epochSeconds(nextPayout),
    payout_hold: await payoutHold(deps.db, subject, { suspended: subject.flags.suspended, now }),
  };
}

/** The balance of a scope without a key (the dashboard's), the store's flags read from its row. */
export async function storeBalance(deps: BalanceDeps, scope: Scope): Promise<Balance> {
  const [store] = await deps.db.select({ suspended: stores.suspended }).from(stores).where(eq(stores.id, scope.storeId));
  return getBalance(deps, { ...scope, flags: { suspended: store!.suspended } });
}

/** GET /balance_transactions/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getBalanceTransaction(deps: BalanceDeps, scope: Scope, id: string): Promise<BalanceTransaction> {
  const [row] = await settledEntries(deps.db)
    .where(and(eq(balanceTransactions.id, id), ownedBy(balanceTransactions, scope)))
    .limit(1);
  if (!row) throw resourceMissing('balance transaction', id);
  return balanceTransactionView(row, deps.clock.now());
}

function listConditions(query: ListBalanceTransactionsQuery): (SQL | undefined)[] {
  return [
    query.type === undefined ? undefined : eq(balanceTransactions.type, query.type),
    query.payout_id === undefined ? undefined : eq(payoutSettlements.payoutId, query.payout_id),
    query.source_id === undefined ? undefined : eq(balanceTransactions.sourceId, query.source_id),
    ...createdWithin(balanceTransactions.createdAt, query),
    ...createdWithin(balanceTransactions.availableOn, { created_gte: query.available_on_gte, created_lte: query.available_on_lte }),
  ];
}

/**
 * GET /balance_transactions: newest first in the order the entries were recorded (a payment's
 * read `fee`, `tax`, `payment`), so the keyset is `recorded_order`. The cursor is looked up under
 * the scope inside the page query; only an empty page takes a second look to tell an unknown
 * cursor (404 naming `starting_after`) from the end of the list.
 */
export async function listBalanceTransactions(deps: BalanceDeps, scope: Scope, query: ListBalanceTransactionsQuery): Promise<BalanceTransactionList> {
  const cursor = deps.db
    .select({ recordedOrder: balanceTransactions.recordedOrder })
    .from(balanceTransactions)
    .where(and(eq(balanceTransactions.id, query.starting_after ?? ''), ownedBy(balanceTransactions, scope)));
  const conditions = [ownedBy(balanceTransactions, scope), ...listConditions(query)];
  if (query.starting_after !== undefined) conditions.push(sql`${balanceTransactions.recordedOrder} < (${cursor})`);
  const rows = await settledEntries(deps.db)
    .where(and(...conditions))
    .orderBy(sql`${balanceTransactions.recordedOrder} desc nulls last`)
    .limit(query.limit + 1);
  if (rows.length === 0 && query.starting_after !== undefined && (await cursor).length === 0) {
    throw resourceMissing('balance transaction', query.starting_after, 'starting_after');
  }
  const now = deps.clock.now();
  const page = rows.slice(0, query.limit).map((row) => balanceTransactionView(row, now));
  return listEnvelope('/api/v1/balance_transactions', scope, page, rows.length > query.limit);
}
