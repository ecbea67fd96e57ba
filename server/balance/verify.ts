/**
 * `ledger:verify`: the ledger checked against the documents it must follow from, recomputed from
 * orders, invoices, refunds and credit notes (not from the entries): each paid order's
 * `payment`, `tax` and `fee`, each credited refund's `refund` and `tax`, and each store's balance.
 * Set-based: one statement per check whatever the number of rows, so it runs on large ledgers.
 * The fee is recomputed here in SQL on purpose, apart from the code that wrote it.
 */
import { and, count, eq, isNotNull, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Executor } from '@/db/client';
import { balanceTransactions, creditNotes, invoices, orders, refunds, stores } from '@/db/schema';

export type LedgerCheck = 'order_entries' | 'refund_entries' | 'balance';

export interface LedgerMismatch {
  check: LedgerCheck;
  store: string;
  livemode: boolean;
  /** The order, the refund, or the store for its balance. */
  object_id: string;
  expected: Record<string, unknown>;
  actual: Record<string, unknown>;
}

export interface LedgerChecked {
  stores: number;
  orders: number;
  refunds: number;
  disputes: number;
  payouts: number;
  balance_transactions: number;
}

export type LedgerVerification = { ok: true; checked: LedgerChecked } | { ok: false; checked: LedgerChecked; mismatches: LedgerMismatch[] };

const entries = balanceTransactions;

/** The amounts of one type among a cause's entries, in recording order; null when there are none. */
const amountsOf = (condition: SQL) => sql<number[] | null>`array_agg(${entries.amount} order by ${entries.recordedOrder}) filter (where ${condition})`;

/** The fee of a paid order under the rates it was paid with: rounded half up, capped at the net. */
const orderFee = sql<number>`least((${orders.amountTotal}::bigint * ${orders.feeBasisPoints} + 5000) / 10000 + ${orders.feeFixed}, ${orders.amountTotal} - ${invoices.amountTax})::int`;

const onlyStore = (column: typeof orders.storeId | typeof entries.storeId | typeof refunds.storeId | typeof stores.id, storeId: string | undefined) =>
  storeId === undefined ? undefined : eq(column, storeId);

/** Every paid order, invoiced, has exactly its three entries; no other order has any. */
async function orderMismatches(db: Executor, storeId: string | undefined): Promise<LedgerMismatch[]> {
  const expected = db
    .select({
      id: sql<string>`${orders.id}`.as('expected_id'),
      storeId: sql<string>`${orders.storeId}`.as('expected_store'),
      livemode: sql<boolean>`${orders.livemode}`.as('expected_livemode'),
      payment: sql<number>`${orders.amountTotal}`.as('expected_payment'),
      tax: sql<number>`-${invoices.amountTax}`.as('expected_tax'),
      fee: sql<number>`-${orderFee}`.as('expected_fee'),
    })
    .from(orders)
    .innerJoin(invoices, eq(invoices.orderId, orders.id))
    .where(and(ne(orders.status, 'pending'), onlyStore(orders.storeId, storeId)))
    .as('expected');
  const actual = db
    .select({
      id: sql<string>`${entries.sourceId}`.as('actual_id'),
      storeId: sql<string>`${entries.storeId}`.as('actual_store'),
      livemode: sql<boolean>`${entries.livemode}`.as('actual_livemode'),
      payment: amountsOf(sql`${entries.type} = 'payment'`).as('actual_payment'),
      tax: amountsOf(sql`${entries.type} = 'tax'`).as('actual_tax'),
      fee: amountsOf(sql`${entries.type} = 'fee'`).as('actual_fee'),
      other: amountsOf(sql`${entries.type} not in ('payment', 'tax', 'fee')`).as('actual_other'),
    })
    .from(entries)
    .where(and(eq(entries.sourceType, 'order'), onlyStore(entries.storeId, storeId)))
    .groupBy(entries.sourceId, entries.storeId, entries.livemode)
    .as('actual');
  const rows = await db
    .select({
      id: sql<string>`coalesce(${expected.id}, ${actual.id})`,
      store: sql<string>`coalesce(${expected.storeId}, ${actual.storeId})`,
      livemode: sql<boolean>`coalesce(${expected.livemode}, ${actual.livemode})`,
      expected: { payment: expected.payment, tax: expected.tax, fee: expected.fee },
      actual: { payment: actual.payment, tax: actual.tax, fee: actual.fee, other: actual.other },
    })
    .from(expected)
    .fullJoin(actual, and(eq(actual.id, expected.id), eq(actual.storeId, expected.storeId), eq(actual.livemode, expected.livemode)))
    .where(
      or(
        isNull(expected.id),
        isNull(actual.id),
        sql`${actual.payment} is distinct from array[${expected.payment}]::int[]`,
        sql`${actual.tax} is distinct from array[${expected.tax}]::int[]`,
        sql`${actual.fee} is distinct from array[${expected.fee}]::int[]`,
        isNotNull(actual.other),
      ),
    );
  return rows.map((row) => ({
    check: 'order_entries',
    store: row.store,
    livemode: row.livemode,
    object_id: row.id,
    expected: row.expected.payment === null ? { payment: [], tax: [], fee: [] } : { payment: [row.expected.payment], tax: [row.expected.tax], fee: [row.expected.fee] },
    actual: {
      payment: row.actual.payment ?? [],
      tax: row.actual.tax ?? [],
      fee: row.actual.fee ?? [],
      ...(row.actual.other ? { other: row.actual.other } : {}),
    },
  }));
}

/** Every succeeded refund with its credit note has exactly its `refund` and `tax`; no other refund has any. */
async function refundMismatches(db: Executor, storeId: string | undefined): Promise<LedgerMismatch[]> {
  const expected = db
    .select({
      id: sql<string>`${refunds.id}`.as('expected_id'),
      storeId: sql<string>`${refunds.storeId}`.as('expected_store'),
      livemode: sql<boolean>`${refunds.livemode}`.as('expected_livemode'),
      refund: sql<number>`-${creditNotes.amountTotal}`.as('expected_refund'),
      tax: sql<number>`${creditNotes.amountTax}`.as('expected_tax'),
    })
    .from(refunds)
    .innerJoin(creditNotes, eq(creditNotes.refundId, refunds.id))
    .where(and(eq(refunds.status, 'succeeded'), onlyStore(refunds.storeId, storeId)))
    .as('expected');
  const actual = db
    .select({
      id: sql<string>`${entries.sourceId}`.as('actual_id'),
      storeId: sql<string>`${entries.storeId}`.as('actual_store'),
      livemode: sql<boolean>`${entries.livemode}`.as('actual_livemode'),
      refund: amountsOf(sql`${entries.type} = 'refund'`).as('actual_refund'),
      tax: amountsOf(sql`${entries.type} = 'tax'`).as('actual_tax'),
      other: amountsOf(sql`${entries.type} not in ('refund', 'tax')`).as('actual_other'),
    })
    .from(entries)
    .where(and(eq(entries.sourceType, 'refund'), onlyStore(entries.storeId, storeId)))
    .groupBy(entries.sourceId, entries.storeId, entries.livemode)
    .as('actual');
  const rows = await db
    .select({
      id: sql<string>`coalesce(${expected.id}, ${actual.id})`,
      store: sql<string>`coalesce(${expected.storeId}, ${actual.storeId})`,
      livemode: sql<boolean>`coalesce(${expected.livemode}, ${actual.livemode})`,
      expected: { refund: expected.refund, tax: expected.tax },
      actual: { refund: actual.refund, tax: actual.tax, other: actual.other },
    })
    .from(expected)
    .fullJoin(actual, and(eq(actual.id, expected.id), eq(actual.storeId, expected.storeId), eq(actual.livemode, expected.livemode)))
    .where(
      or(
        isNull(expected.id),
        isNull(actual.id),
        sql`${actual.refund} is distinct from array[${expected.refund}]::int[]`,
        sql`${actual.tax} is distinct from array[${expected.tax}]::int[]`,
        isNotNull(actual.other),
      ),
    );
  return rows.map((row) => ({
    check: 'refund_entries',
    store: row.store,
    livemode: row.livemode,
    object_id: row.id,
    expected: row.expected.refund === null ? { refund: [], tax: [] } : { refund: [row.expected.refund], tax: [row.expected.tax] },
    actual: { refund: row.actual.refund ?? [], tax: row.actual.tax ?? [], ...(row.actual.other ? { other: row.actual.other } : {}) },
  }));
}

/**
 * Each store's balance in each environment: what its documents add up to (each paid order's net,
 * each credited refund, the operator's adjustments, which are their own record) against its
 * entries summed as the balance sums them, available and pending on the store's clock.
 */
async function balanceMismatches(db: Executor, storeId: string | undefined, wallNow: Date): Promise<LedgerMismatch[]> {
  const documents = unionAll(
    db
      .select({
        storeId: sql<string>`${orders.storeId}`.as('document_store'),
        livemode: sql<boolean>`${orders.livemode}`.as('document_livemode'),
        amount: sql<number>`${orders.amountTotal} - ${invoices.amountTax} - ${orderFee}`.as('document_amount'),
      })
      .from(orders)
      .innerJoin(invoices, eq(invoices.orderId, orders.id))
      .where(and(ne(orders.status, 'pending'), onlyStore(orders.storeId, storeId))),
    db
      .select({ storeId: refunds.storeId, livemode: refunds.livemode, amount: sql<number>`${creditNotes.amountTax} - ${creditNotes.amountTotal}` })
      .from(refunds)
      .innerJoin(creditNotes, eq(creditNotes.refundId, refunds.id))
      .where(and(eq(refunds.status, 'succeeded'), onlyStore(refunds.storeId, storeId))),
    db
      .select({ storeId: entries.storeId, livemode: entries.livemode, amount: entries.amount })
      .from(entries)
      .where(and(eq(entries.type, 'adjustment'), onlyStore(entries.storeId, storeId))),
  ).as('documents');
  const expected = db
    .select({
      storeId: sql<string>`${documents.storeId}`.as('expected_store'),
      livemode: sql<boolean>`${documents.livemode}`.as('expected_livemode'),
      total: sql<number>`sum(${documents.amount})`.mapWith(Number).as('expected_total'),
    })
    .from(documents)
    .groupBy(documents.storeId, documents.livemode)
    .as('expected');
  // The store's clock: wall time in live mode, its test clock in test mode.
  const storeNow = sql`(${wallNow.toISOString()}::timestamptz + case when ${entries.livemode} then interval '0 seconds' else ${stores.testClockOffsetSeconds} * interval '1 second' end)`;
  const actual = db
    .select({
      storeId: sql<string>`${entries.storeId}`.as('actual_store'),
      livemode: sql<boolean>`${entries.livemode}`.as('actual_livemode'),
      available: sql<number>`coalesce(sum(${entries.amount}) filter (where ${entries.availableOn} <= ${storeNow}), 0)`.mapWith(Number).as('actual_available'),
      pending: sql<number>`coalesce(sum(${entries.amount}) filter (where ${entries.availableOn} > ${storeNow}), 0)`.mapWith(Number).as('actual_pending'),
    })
    .from(entries)
    .innerJoin(stores, eq(stores.id, entries.storeId))
    .where(onlyStore(entries.storeId, storeId))
    .groupBy(entries.storeId, entries.livemode)
    .as('actual');
  const rows = await db
    .select({
      store: sql<string>`coalesce(${expected.storeId}, ${actual.storeId})`,
      livemode: sql<boolean>`coalesce(${expected.livemode}, ${actual.livemode})`,
      total: sql<number>`coalesce(${expected.total}, 0)`.mapWith(Number),
      available: sql<number>`coalesce(${actual.available}, 0)`.mapWith(Number),
      pending: sql<number>`coalesce(${actual.pending}, 0)`.mapWith(Number),
    })
    .from(expected)
    .fullJoin(actual, and(eq(actual.storeId, expected.storeId), eq(actual.livemode, expected.livemode)))
    .where(sql`coalesce(${expected.total}, 0) <> coalesce(${actual.available}, 0) + coalesce(${actual.pending}, 0)`);
  return rows.map((row) => ({
    check: 'balance',
    store: row.store,
    livemode: row.livemode,
    object_id: row.store,
    expected: { total: row.total },
    actual: { total: row.available + row.pending, available: row.available, pending: row.pending },
  }));
}

async function countOf(db: Executor, table: typeof stores | typeof orders | typeof refunds | typeof entries, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ value: count() }).from(table).where(where);
  return row!.value;
}

/** Checks every store (or one) in both environments; `wallNow` is real time, each store's clock follows from it. */
export async function verifyLedger(db: Executor, wallNow: Date, storeId?: string): Promise<LedgerVerification> {
  const checked: LedgerChecked = {
    stores: await countOf(db, stores, onlyStore(stores.id, storeId)),
    orders: await countOf(db, orders, onlyStore(orders.storeId, storeId)),
    refunds: await countOf(db, refunds, onlyStore(refunds.storeId, storeId)),
    // Disputes and payouts do not exist yet: nothing of theirs to check.
    disputes: 0,
    payouts: 0,
    balance_transactions: await countOf(db, entries, onlyStore(entries.storeId, storeId)),
  };
  const mismatches = [...(await orderMismatches(db, storeId)), ...(await refundMismatches(db, storeId)), ...(await balanceMismatches(db, storeId, wallNow))];
  return mismatches.length === 0 ? { ok: true, checked } : { ok: false, checked, mismatches };
}
