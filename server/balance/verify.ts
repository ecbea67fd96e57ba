/**
 * `ledger:verify`: the ledger checked against the documents it must follow from, recomputed from
 * orders, invoices, refunds, credit notes, disputes and payouts (not from the entries): each paid
 * order's `payment`, `tax` and `fee`, each credited refund's `refund` and `tax`, each dispute's
 * entries for its status (and a lost one's credit note), each payout's entries and what it
 * settled, and each store's balance.
 * Set-based: one statement per check whatever the number of rows, so it runs on large ledgers.
 * The fee is recomputed here in SQL on purpose, apart from the code that wrote it.
 */
import { and, count, eq, isNotNull, isNull, ne, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Executor } from '@/db/client';
import { balanceTransactions, creditNotes, disputes, invoices, orders, payouts, payoutSettlements, refunds, stores } from '@/db/schema';

export type LedgerCheck = 'order_entries' | 'refund_entries' | 'dispute_entries' | 'payout_entries' | 'balance';

export interface LedgerMismatch {
  check: LedgerCheck;
  store: string;
  livemode: boolean;
  /** The order, the refund, the dispute, the payout, or the store for its balance. */
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

const onlyStore = (
  column: typeof orders.storeId | typeof entries.storeId | typeof refunds.storeId | typeof disputes.storeId | typeof payouts.storeId | typeof stores.id,
  storeId: string | undefined,
) => (storeId === undefined ? undefined : eq(column, storeId));

/**
 * The entries of one kind of cause, one row per cause: the amounts of each of `types` and of any
 * other type (which no cause of this kind may have), each in recording order, null when none.
 */
function entriesByCause<const T extends string>(db: Executor, sourceType: 'order' | 'refund' | 'dispute' | 'payout', types: readonly T[], storeId: string | undefined) {
  const amounts = Object.fromEntries(types.map((type) => [type, amountsOf(sql`${entries.type} = ${type}`).as(`actual_${type}`)])) as Record<T, SQL.Aliased<number[] | null>>;
  return db
    .select({
      id: sql<string>`${entries.sourceId}`.as('actual_id'),
      storeId: sql<string>`${entries.storeId}`.as('actual_store'),
      livemode: sql<boolean>`${entries.livemode}`.as('actual_livemode'),
      ...amounts,
      other: amountsOf(notInArray(entries.type, [...types] as (typeof entries.type._.data)[])).as('actual_other'),
    })
    .from(entries)
    .where(and(eq(entries.sourceType, sourceType), onlyStore(entries.storeId, storeId)))
    .groupBy(entries.sourceId, entries.storeId, entries.livemode)
    .as('actual');
}

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
  const actual = entriesByCause(db, 'order', ['payment', 'tax', 'fee'], storeId);
  const rows = await db
    .select({
      id: sql<string>`coalesce(${expected.id}, ${actual.id})`,
      store: sql<string>`coalesce(${expected.storeId}, ${actual.storeId})`,
      livemode: sql<boolean>`coalesce(${expected.livemode}, ${actual.livemode})`,
      expected: {
        payment: expected.payment,
        tax: expected.tax,
        fee: expected.fee,
      },
      actual: {
        payment: actual.payment,
        tax: actual.tax,
        fee: actual.fee,
        other: actual.other,
      },
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
    expected:
      row.expected.payment === null
        ? { payment: [], tax: [], fee: [] }
        : {
            payment: [row.expected.payment],
            tax: [row.expected.tax],
            fee: [row.expected.fee],
          },
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
  const actual = entriesByCause(db, 'refund', ['refund', 'tax'], storeId);
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
    actual: {
      refund: row.actual.refund ?? [],
      tax: row.actual.tax ?? [],
      ...(row.actual.other ? { other: row.actual.other } : {}),
    },
  }));
}

/**
 * Every dispute has the entries of its status: at opening `dispute` (− amount), `tax` (+ the VAT
 * given back) and `dispute_fee` (− fee); when won also `dispute_reversal` (+ amount) and a `tax`
 * taking that VAT again; and a lost one has its credit note for the amount (none otherwise).
 */
async function disputeMismatches(db: Executor, storeId: string | undefined): Promise<LedgerMismatch[]> {
  const credited = db
    .select({
      disputeId: sql<string>`${creditNotes.disputeId}`.as('credited_dispute'),
      total: sql<number>`sum(${creditNotes.amountTotal})`.mapWith(Number).as('credited_total'),
    })
    .from(creditNotes)
    .where(isNotNull(creditNotes.disputeId))
    .groupBy(creditNotes.disputeId)
    .as('credited');
  const expected = db
    .select({
      id: sql<string>`${disputes.id}`.as('expected_id'),
      storeId: sql<string>`${disputes.storeId}`.as('expected_store'),
      livemode: sql<boolean>`${disputes.livemode}`.as('expected_livemode'),
      amount: sql<number>`${disputes.amount}`.as('expected_amount'),
      amountTax: sql<number>`${disputes.amountTax}`.as('expected_amount_tax'),
      fee: sql<number>`${disputes.fee}`.as('expected_fee'),
      status: sql<string>`${disputes.status}`.as('expected_status'),
      credited: sql<number | null>`${credited.total}`.as('expected_credited'),
    })
    .from(disputes)
    .leftJoin(credited, eq(credited.disputeId, disputes.id))
    .where(onlyStore(disputes.storeId, storeId))
    .as('expected');
  const actual = entriesByCause(db, 'dispute', ['dispute', 'tax', 'dispute_fee', 'dispute_reversal'], storeId);
  const won = sql`${expected.status} = 'won'`;
  const rows = await db
    .select({
      id: sql<string>`coalesce(${expected.id}, ${actual.id})`,
      store: sql<string>`coalesce(${expected.storeId}, ${actual.storeId})`,
      livemode: sql<boolean>`coalesce(${expected.livemode}, ${actual.livemode})`,
      amount: expected.amount,
      amountTax: expected.amountTax,
      fee: expected.fee,
      status: expected.status,
      credited: expected.credited,
      actual: {
        dispute: actual.dispute,
        tax: actual.tax,
        fee: actual.dispute_fee,
        reversal: actual.dispute_reversal,
        other: actual.other,
      },
    })
    .from(expected)
    .fullJoin(actual, and(eq(actual.id, expected.id), eq(actual.storeId, expected.storeId), eq(actual.livemode, expected.livemode)))
    .where(
      or(
        isNull(expected.id),
        sql`${actual.dispute} is distinct from array[-${expected.amount}]::int[]`,
        sql`${actual.tax} is distinct from case when ${won} then array[${expected.amountTax}, -${expected.amountTax}]::int[] else array[${expected.amountTax}]::int[] end`,
        sql`${actual.dispute_fee} is distinct from array[-${expected.fee}]::int[]`,
        sql`${actual.dispute_reversal} is distinct from case when ${won} then array[${expected.amount}]::int[] end`,
        isNotNull(actual.other),
        sql`${expected.credited} is distinct from case when ${expected.status} = 'lost' then ${expected.amount} end`,
      ),
    );
  return rows.map((row) => ({
    check: 'dispute_entries',
    store: row.store,
    livemode: row.livemode,
    object_id: row.id,
    expected:
      row.amount === null
        ? { dispute: [], tax: [], dispute_fee: [], dispute_reversal: [] }
        : {
            dispute: [-row.amount],
            tax: row.status === 'won' ? [row.amountTax, -row.amountTax!] : [row.amountTax],
            dispute_fee: [-row.fee!],
            dispute_reversal: row.status === 'won' ? [row.amount] : [],
            credited: row.status === 'lost' ? row.amount : 0,
          },
    actual: {
      dispute: row.actual.dispute ?? [],
      tax: row.actual.tax ?? [],
      dispute_fee: row.actual.fee ?? [],
      dispute_reversal: row.actual.reversal ?? [],
      ...(row.actual.other ? { other: row.actual.other } : {}),
      ...(row.amount === null ? {} : { credited: row.credited ?? 0 }),
    },
  }));
}

/**
 * Every payout has its `payout` entry (− amount), and a `payout_failure` or `payout_cancel`
 * (+ amount) iff it failed or was canceled; the entries it settled are of its store and
 * environment, not payouts' own, were available at its `created` and sum to its amount. (An entry
 * is settled at most once by the settlements' key.)
 */
async function payoutMismatches(db: Executor, storeId: string | undefined): Promise<LedgerMismatch[]> {
  const actual = entriesByCause(db, 'payout', ['payout', 'payout_failure', 'payout_cancel'], storeId);
  const settled = db
    .select({
      payoutId: sql<string>`${payoutSettlements.payoutId}`.as('settled_payout'),
      total: sql<number>`sum(${entries.amount})`.mapWith(Number).as('settled_total'),
      // Settled entries of another scope, of a payout's own, or not yet available at its creation.
      misplaced:
        sql<number>`count(*) filter (where ${entries.storeId} <> ${payouts.storeId} or ${entries.livemode} <> ${payouts.livemode} or ${entries.type} = 'payout' or ${entries.availableOn} > ${payouts.createdAt})`
          .mapWith(Number)
          .as('settled_misplaced'),
    })
    .from(payoutSettlements)
    .innerJoin(entries, eq(entries.id, payoutSettlements.balanceTransactionId))
    .innerJoin(payouts, eq(payouts.id, payoutSettlements.payoutId))
    .where(onlyStore(payouts.storeId, storeId))
    .groupBy(payoutSettlements.payoutId)
    .as('settled');
  const expected = db
    .select({
      id: sql<string>`${payouts.id}`.as('expected_id'),
      storeId: sql<string>`${payouts.storeId}`.as('expected_store'),
      livemode: sql<boolean>`${payouts.livemode}`.as('expected_livemode'),
      amount: sql<number>`${payouts.amount}`.as('expected_amount'),
      status: sql<string>`${payouts.status}`.as('expected_status'),
    })
    .from(payouts)
    .where(onlyStore(payouts.storeId, storeId))
    .as('expected');
  const undone = (status: string) => sql`case when ${expected.status} = ${status} then array[${expected.amount}]::int[] end`;
  const rows = await db
    .select({
      id: sql<string>`coalesce(${expected.id}, ${actual.id})`,
      store: sql<string>`coalesce(${expected.storeId}, ${actual.storeId})`,
      livemode: sql<boolean>`coalesce(${expected.livemode}, ${actual.livemode})`,
      amount: expected.amount,
      status: expected.status,
      actual: {
        payout: actual.payout,
        failure: actual.payout_failure,
        cancel: actual.payout_cancel,
        other: actual.other,
      },
      settledTotal: sql<number>`coalesce(${settled.total}, 0)`.mapWith(Number),
      misplaced: sql<number>`coalesce(${settled.misplaced}, 0)`.mapWith(Number),
    })
    .from(expected)
    .fullJoin(actual, and(eq(actual.id, expected.id), eq(actual.storeId, expected.storeId), eq(actual.livemode, expected.livemode)))
    .leftJoin(settled, eq(settled.payoutId, expected.id))
    .where(
      or(
        isNull(expected.id),
        sql`${actual.payout} is distinct from array[-${expected.amount}]::int[]`,
        sql`${actual.payout_failure} is distinct from ${undone('failed')}`,
        sql`${actual.payout_cancel} is distinct from ${undone('canceled')}`,
        isNotNull(actual.other),
        sql`coalesce(${settled.total}, 0) <> ${expected.amount}`,
        sql`coalesce(${settled.misplaced}, 0) <> 0`,
      ),
    );
  return rows.map((row) => ({
    check: 'payout_entries',
    store: row.store,
    livemode: row.livemode,
    object_id: row.id,
    expected:
      row.amount === null
        ? { payout: [], payout_failure: [], payout_cancel: [] }
        : {
            payout: [-row.amount],
            payout_failure: row.status === 'failed' ? [row.amount] : [],
            payout_cancel: row.status === 'canceled' ? [row.amount] : [],
            settled: row.amount,
            settled_unavailable: 0,
          },
    actual: {
      payout: row.actual.payout ?? [],
      payout_failure: row.actual.failure ?? [],
      payout_cancel: row.actual.cancel ?? [],
      ...(row.actual.other ? { other: row.actual.other } : {}),
      ...(row.amount === null ? {} : { settled: row.settledTotal, settled_unavailable: row.misplaced }),
    },
  }));
}

/**
 * Each store's balance in each environment: what its documents add up to (each paid order's net,
 * each credited refund, each dispute, each payout less what a failure or cancellation gave back, the operator's
 * adjustments, which are their own record) against its entries summed as the balance sums them,
 * available and pending on the store's clock; and what is available against what a payout would
 * settle now (the available, unsettled entries but payouts' own).
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
      .select({
        storeId: refunds.storeId,
        livemode: refunds.livemode,
        amount: sql<number>`${creditNotes.amountTax} - ${creditNotes.amountTotal}`,
      })
      .from(refunds)
      .innerJoin(creditNotes, eq(creditNotes.refundId, refunds.id))
      .where(and(eq(refunds.status, 'succeeded'), onlyStore(refunds.storeId, storeId))),
    db
      .select({
        storeId: disputes.storeId,
        livemode: disputes.livemode,
        // Opening takes the amount less its VAT and the fee; winning gives the amount less its VAT back.
        amount: sql<number>`case when ${disputes.status} = 'won' then 0 else ${disputes.amountTax} - ${disputes.amount} end - ${disputes.fee}`,
      })
      .from(disputes)
      .where(onlyStore(disputes.storeId, storeId)),
    db
      .select({
        storeId: payouts.storeId,
        livemode: payouts.livemode,
        amount: sql<number>`case when ${payouts.status} in ('failed', 'canceled') then 0 else -${payouts.amount} end`,
      })
      .from(payouts)
      .where(onlyStore(payouts.storeId, storeId)),
    db
      .select({
        storeId: entries.storeId,
        livemode: entries.livemode,
        amount: entries.amount,
      })
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
      unsettled: sql<number>`coalesce(sum(${entries.amount}) filter (where ${entries.availableOn} <= ${storeNow} and ${entries.type} <> 'payout' and ${payoutSettlements.payoutId} is null), 0)`
        .mapWith(Number)
        .as('actual_unsettled'),
    })
    .from(entries)
    .innerJoin(stores, eq(stores.id, entries.storeId))
    .leftJoin(payoutSettlements, eq(payoutSettlements.balanceTransactionId, entries.id))
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
      unsettled: sql<number>`coalesce(${actual.unsettled}, 0)`.mapWith(Number),
    })
    .from(expected)
    .fullJoin(actual, and(eq(actual.storeId, expected.storeId), eq(actual.livemode, expected.livemode)))
    .where(or(sql`coalesce(${expected.total}, 0) <> coalesce(${actual.available}, 0) + coalesce(${actual.pending}, 0)`, sql`coalesce(${actual.available}, 0) <> coalesce(${actual.unsettled}, 0)`));
  return rows.map((row) => ({
    check: 'balance',
    store: row.store,
    livemode: row.livemode,
    object_id: row.store,
    expected: { total: row.total, available: row.unsettled },
    actual: {
      total: row.available + row.pending,
      available: row.available,
      pending: row.pending,
    },
  }));
}

async function countOf(db: Executor, table: typeof stores | typeof orders | typeof refunds | typeof disputes | typeof payouts | typeof entries, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ value: count() }).from(table).where(where);
  return row!.value;
}

/** Checks every store (or one) in both environments; `wallNow` is real time, each store's clock follows from it. */
export async function verifyLedger(db: Executor, wallNow: Date, storeId?: string): Promise<LedgerVerification> {
  const checked: LedgerChecked = {
    stores: await countOf(db, stores, onlyStore(stores.id, storeId)),
    orders: await countOf(db, orders, onlyStore(orders.storeId, storeId)),
    refunds: await countOf(db, refunds, onlyStore(refunds.storeId, storeId)),
    disputes: await countOf(db, disputes, onlyStore(disputes.storeId, storeId)),
    payouts: await countOf(db, payouts, onlyStore(payouts.storeId, storeId)),
    balance_transactions: await countOf(db, entries, onlyStore(entries.storeId, storeId)),
  };
  const mismatches = [
    ...(await orderMismatches(db, storeId)),
    ...(await refundMismatches(db, storeId)),
    ...(await disputeMismatches(db, storeId)),
    ...(await payoutMismatches(db, storeId)),
    ...(await balanceMismatches(db, storeId, wallNow)),
  ];
  return mismatches.length === 0 ? { ok: true, checked } : { ok: false, checked, mismatches };
}
