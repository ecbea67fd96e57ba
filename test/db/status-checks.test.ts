import { sql, TransactionRollbackError } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '@/db/schema';
import { createTestDatabase } from '../support/database';

/**
 * Every status column, and every tax column of fixed values, admits exactly the values the code writes (the lists in db/schema), by a
 * CHECK constraint: a bad value is refused by the database, on both drivers.
 */
const STATUS_COLUMNS: Record<string, readonly string[]> = {
  'checkout_sessions.status': schema.CHECKOUT_STATUSES,
  'checkout_sessions.payment_status': schema.PAYMENT_STATUSES,
  'payment_attempts.status': schema.PAYMENT_ATTEMPT_STATUSES,
  'orders.status': schema.ORDER_STATUSES,
  'refunds.status': schema.REFUND_STATUSES,
  'withdrawals.status': schema.WITHDRAWAL_STATUSES,
  'emails.status': schema.EMAIL_STATUSES,
  'subscriptions.status': schema.SUBSCRIPTION_STATUSES,
  'subscription_checkouts.status': schema.SUBSCRIPTION_CHECKOUT_STATUSES,
  'subscription_charges.status': schema.SUBSCRIPTION_CHARGE_STATUSES,
  'webhook_deliveries.status': schema.WEBHOOK_DELIVERY_STATUSES,
  'simulator_charges.status': schema.SIMULATOR_CHARGE_STATUSES,
  'simulator_refunds.status': schema.SIMULATOR_REFUND_STATUSES,
  'payouts.status': schema.PAYOUT_STATUSES,
  'disputes.status': schema.DISPUTE_STATUSES,
  'payment_method_updates.status': schema.PAYMENT_METHOD_UPDATE_STATUSES,
  'plan_changes.status': schema.PLAN_CHANGE_STATUSES,
};

/** The other columns of a fixed set of values: the taxation's, the cancellations' and the coupons'. */
const VALUE_COLUMNS: Record<string, readonly string[]> = {
  'stores.tax_mode': schema.TAX_MODES,
  'products.tax_category': schema.TAX_CATEGORIES,
  'order_lines.tax_category': schema.TAX_CATEGORIES,
  'checkout_sessions.tax_mode': schema.TAX_MODES,
  'checkout_sessions.tax_treatment': schema.TAX_TREATMENTS,
  'orders.tax_treatment': schema.TAX_TREATMENTS,
  'subscription_checkouts.tax_mode': schema.TAX_MODES,
  'subscription_checkouts.tax_category': schema.TAX_CATEGORIES,
  'subscription_checkouts.tax_treatment': schema.TAX_TREATMENTS,
  'subscriptions.tax_mode': schema.TAX_MODES,
  'subscriptions.tax_category': schema.TAX_CATEGORIES,
  'subscriptions.tax_treatment': schema.TAX_TREATMENTS,
  'invoices.tax_treatment': schema.TAX_TREATMENTS,
  'credit_notes.tax_treatment': schema.TAX_TREATMENTS,
  'subscriptions.cancellation_type': schema.CANCELLATION_TYPES,
  'cancellations.cancel_at': schema.CANCELLATION_TIMINGS,
  'cancellations.language': schema.DOCUMENT_LANGUAGES,
  'coupons.duration': schema.COUPON_DURATIONS,
};

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(() => database.close());

const CHECK_VIOLATION = '23514';

function codeOf(error: unknown): string | undefined {
  for (let current = error; current && typeof current === 'object'; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Inserts `value` into `column` of a row of `table` with nothing else set: a temporary copy of
 * the table with the column's CHECK constraint and without its NOT NULLs (rolled back). Answers
 * 'accepted' or the error's SQLSTATE.
 */
async function insertStatus(table: string, column: string, value: string): Promise<string | undefined> {
  try {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`create temp table status_probe (like "${table}" including constraints) on commit drop`));
      const columns = await tx.execute<{ column_name: string }>(sql`select column_name from information_schema.columns where table_name = 'status_probe' and is_nullable = 'NO'`);
      const rows = Array.isArray(columns) ? columns : (columns as { rows: { column_name: string }[] }).rows;
      for (const { column_name } of rows) await tx.execute(sql.raw(`alter table status_probe alter column "${column_name}" drop not null`));
      // Only the column's own check: others tie the status to columns this row leaves empty.
      const checks = await tx.execute<{ conname: string }>(
        sql`select conname from pg_constraint where conrelid = 'status_probe'::regclass and contype = 'c' and conname <> ${`${table}_${column}_check`}`,
      );
      for (const { conname } of Array.isArray(checks) ? checks : (checks as { rows: { conname: string }[] }).rows) {
        await tx.execute(sql.raw(`alter table status_probe drop constraint "${conname}"`));
      }
      await tx.execute(sql`insert into status_probe (${sql.identifier(column)}) values (${value})`);
      tx.rollback();
    });
  } catch (error) {
    return error instanceof TransactionRollbackError ? 'accepted' : codeOf(error);
  }
  return undefined;
}

describe('status columns are constrained to their values', () => {
  it('every status column of the schema is listed here', async () => {
    const result = await database.db.execute<{ column: string }>(
      sql`select table_name || '.' || column_name as column from information_schema.columns where table_schema = 'public' and (column_name = 'status' or column_name like '%\\_status') and data_type = 'text' order by 1`,
    );
    const rows = Array.isArray(result) ? result : (result as { rows: { column: string }[] }).rows;
    expect(rows.map((row) => row.column)).toEqual(Object.keys(STATUS_COLUMNS).sort());
  });

  it.each(Object.entries({ ...STATUS_COLUMNS, ...VALUE_COLUMNS }))('%s: each allowed value is accepted, anything else is refused', async (qualified, allowed) => {
    const [table, column] = qualified.split('.') as [string, string];
    for (const value of allowed) expect(await insertStatus(table, column, value), value).toBe('accepted');
    for (const value of ['bogus', '', allowed[0]!.toUpperCase(), ` ${allowed[0]}`]) expect(await insertStatus(table, column, value), JSON.stringify(value)).toBe(CHECK_VIOLATION);
  });
});
