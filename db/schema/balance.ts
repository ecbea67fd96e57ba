import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
import { stores } from './stores';

/** What moved a store's balance; each cause writes the types it owns (server/balance/ledger.ts). */
export const BALANCE_TRANSACTION_TYPES = ['payment', 'tax', 'fee', 'refund', 'dispute', 'dispute_fee', 'dispute_reversal', 'payout', 'payout_failure', 'payout_cancel', 'adjustment'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/** The object an entry comes from; an operator's adjustment has none. */
export const BALANCE_SOURCE_TYPES = ['order', 'refund', 'dispute', 'payout'] as const;
export type BalanceSourceType = (typeof BALANCE_SOURCE_TYPES)[number];

/**
 * The ledger: every movement of a store's money, in signed cents from the store's side, written
 * in the transaction of its cause. The balance is their sum, never a stored number. Entries are
 * never changed or removed (a trigger refuses UPDATE and DELETE): a correction is a new entry.
 * `recorded_order` numbers the entries as they were written, so one cause's entries list in the
 * order they were recorded and lists are newest first in that order.
 */
export const balanceTransactions = pgTable(
  'balance_transactions',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    type: text('type').$type<BalanceTransactionType>().notNull(),
    amount: integer('amount').notNull(),
    sourceType: text('source_type').$type<BalanceSourceType>(),
    sourceId: text('source_id'),
    description: text('description').notNull(),
    /** The store's clock when the cause was recorded (its test clock in test mode). */
    createdAt: timestamptz('created_at').notNull(),
    /** From then on the amount can be paid out; fixed when written. */
    availableOn: timestamptz('available_on').notNull(),
    recordedOrder: bigint('recorded_order', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
  },
  (t) => [
    uniqueIndex('balance_transactions_recorded_order_unique').on(t.recordedOrder),
    // An order's, refund's or payout's entries are written once: a second write of its cause fails.
    uniqueIndex('balance_transactions_cause_unique').on(t.sourceId, t.type).where(sql`${t.sourceType} in ('order', 'refund', 'payout')`),
    // A dispute writes `tax` twice (opening, won), each with its own description: each entry once.
    uniqueIndex('balance_transactions_dispute_cause_unique').on(t.sourceId, t.description).where(sql`${t.sourceType} = 'dispute'`),
    // GET /balance_transactions, newest first, unfiltered and by each selective filter.
    index('balance_transactions_list_idx').on(t.storeId, t.livemode, t.recordedOrder.desc()),
    index('balance_transactions_type_list_idx').on(t.storeId, t.livemode, t.type, t.recordedOrder.desc()),
    index('balance_transactions_source_list_idx').on(t.storeId, t.livemode, t.sourceId, t.recordedOrder.desc()),
    // The balance: sums by availability, read from the index alone.
    index('balance_transactions_available_idx').on(t.storeId, t.livemode, t.availableOn, t.amount),
    check('balance_transactions_type_check', oneOf(t.type, BALANCE_TRANSACTION_TYPES)),
    check('balance_transactions_source_type_check', oneOf(t.sourceType, BALANCE_SOURCE_TYPES)),
    check('balance_transactions_source_whole', sql`(${t.sourceType} is null) = (${t.sourceId} is null)`),
    check('balance_transactions_adjustment_unsourced', sql`(${t.type} = 'adjustment') = (${t.sourceType} is null)`),
    check('balance_transactions_adjustment_nonzero', sql`${t.type} <> 'adjustment' or ${t.amount} <> 0`),
    check('balance_transactions_available_after_created', sql`${t.availableOn} >= ${t.createdAt}`),
  ],
);

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_FAILURE_REASONS = ['account_closed', 'invalid_account', 'name_mismatch', 'bank_rejected'] as const;
export type PayoutFailureReason = (typeof PAYOUT_FAILURE_REASONS)[number];

/**
 * A transfer of a store's available balance to its bank account. What it settled is recorded in
 * payout_settlements, beside the entries (which stay as written); its own `payout` entry takes
 * the amount off the balance.
 */
export const payouts = pgTable(
  'payouts',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    amount: integer('amount').notNull(),
    status: text('status').$type<PayoutStatus>().notNull(),
    failureReason: text('failure_reason').$type<PayoutFailureReason>(),
    /** Null until sent: then the execution date plus one weekday, 00:00 UTC. */
    arrivalDate: timestamptz('arrival_date'),
    /** The destination as it was at creation: the whole IBAN goes into the bank's transfer file. */
    iban: text('iban').notNull(),
    accountHolder: text('account_holder').notNull(),
    /** The store's clock at creation (its test clock in test mode). */
    createdAt: timestamptz('created_at').notNull(),
    /** The schedule date a scheduled payout was made for; null for one asked for by API. */
    scheduledFor: timestamptz('scheduled_for'),
    /** The bank transfer file that sent it (live mode); null while pending. */
    exportMessageId: text('export_message_id').references(() => payoutExports.messageId),
    /** The store's clock when it failed: a bank account saved after it ends the hold. */
    failedAt: timestamptz('failed_at'),
  },
  (t) => [
    // One scheduled payout per store, environment and date, whichever instance or worker makes it.
    uniqueIndex('payouts_schedule_unique').on(t.storeId, t.livemode, t.scheduledFor),
    index('payouts_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('payouts_status_list_idx').on(t.storeId, t.livemode, t.status, t.createdAt.desc(), t.id.desc()),
    check('payouts_status_check', oneOf(t.status, PAYOUT_STATUSES)),
    check('payouts_failure_reason_check', oneOf(t.failureReason, PAYOUT_FAILURE_REASONS)),
    check('payouts_failure_reason_iff_failed', sql`(${t.status} = 'failed') = (${t.failureReason} is not null)`),
    check('payouts_amount_positive', sql`${t.amount} > 0`),
    check('payouts_failed_at_iff_failed', sql`(${t.status} = 'failed') = (${t.failedAt} is not null)`),
  ],
);

/**
 * Which payout settled an entry: one row per entry settled, so an entry is settled once. Kept
 * apart from the entries, which are never changed.
 */
export const payoutSettlements = pgTable(
  'payout_settlements',
  {
    balanceTransactionId: text('balance_transaction_id')
      .primaryKey()
      .references(() => balanceTransactions.id),
    payoutId: text('payout_id')
      .notNull()
      .references(() => payouts.id),
  },
  (t) => [index('payout_settlements_payout_idx').on(t.payoutId)],
);

/**
 * Where a store's payouts go, per environment; saved only by an owner in the dashboard. A test
 * store without a row pays to the test IBAN in its own name. Times are on the store's clock.
 */
export const bankAccounts = pgTable(
  'bank_accounts',
  {
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    /** Normalised: no spaces, upper case, checked (country, length, mod-97). */
    iban: text('iban').notNull(),
    accountHolder: text('account_holder').notNull(),
    /** The last save that changed the IBAN or the holder (the first included): payouts wait 7 days from it. */
    changedAt: timestamptz('changed_at').notNull(),
    /** The last save, changed or not: it ends a failed payout's hold. */
    savedAt: timestamptz('saved_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.livemode] })],
);

/**
 * A SEPA credit-transfer file (pain.001.001.09) given to the operator for its bank: the document
 * is kept as written, so asking for it again by its message id gives the same bytes.
 */
export const payoutExports = pgTable('payout_exports', {
  /** `PAYOUTS-<YYYYMMDD>-<n>`: the n-th file for that execution date. */
  messageId: text('message_id').primaryKey(),
  executionDate: date('execution_date', { mode: 'string' }).notNull(),
  document: text('document').notNull(),
  createdAt: timestamptz('created_at').notNull(),
});
