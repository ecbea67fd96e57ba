import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { describe, expect, it } from 'vitest';
import type { Executor } from '@/db/client';
import { verifyLedger } from '@/server/balance/verify';
import { MIGRATIONS, useMigrationsBefore } from '../support/migrations';

/**
 * Migration 0025 on data written before the ledger: each invoiced paid order gets its payment,
 * VAT and fee entries (at the default rates, which it records), each credited refund its refund
 * and VAT, in the order they happened; nothing for a pending order or a failed refund.
 */
const migrationsBefore = useMigrationsBefore();

describe('migration 0025: the ledger of what was paid and refunded before it', () => {
  it('writes the entries of paid orders and credited refunds, which ledger:verify then finds complete', async () => {
    const client = new PGlite();
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsBefore('0025') });
    const paidAt = '2026-03-01T12:00:00.000Z';
    const refundedAt = '2026-03-02T12:00:00.000Z';
    const document = `'Op', 'Addr', 'DE1', 'op@example.com', 'Books', '[]', '[]'`;
    await client.exec(`
      insert into stores (id, name) values ('acct_a', 'Books');
      insert into orders (id, store_id, livemode, status, customer_email, amount_subtotal, amount_tax, amount_total, amount_refunded, created_at, paid_at, invoice_id)
        values ('ord_test_paid', 'acct_a', false, 'partially_refunded', 'ada@example.com', 1000, 190, 1190, 500, '${paidAt}', '${paidAt}', 'in_test_1'),
               ('ord_test_open', 'acct_a', false, 'pending', null, 1000, 190, 1190, 0, '${paidAt}', null, null);
      insert into invoices (id, store_id, livemode, number, order_id, customer_email, seller_name, seller_address, seller_vat_id, seller_email, store_name, lines, tax_breakdown,
        amount_subtotal, amount_tax, amount_total, language, supplied_from, supplied_until, created_at)
        values ('in_test_1', 'acct_a', false, 'TEST-INV-X-000001', 'ord_test_paid', 'ada@example.com', ${document}, 1000, 190, 1190, 'en', '${paidAt}', '${paidAt}', '${paidAt}');
      insert into refunds (id, store_id, livemode, order_id, amount, status, created_at, credit_note_id)
        values ('re_test_ok', 'acct_a', false, 'ord_test_paid', 500, 'succeeded', '${refundedAt}', 'cn_test_1'),
               ('re_test_failed', 'acct_a', false, 'ord_test_paid', 100, 'failed', '${refundedAt}', null);
      insert into credit_notes (id, store_id, livemode, number, invoice_id, refund_id, order_id, lines, tax_breakdown, amount_subtotal, amount_tax, amount_total, created_at)
        values ('cn_test_1', 'acct_a', false, 'TEST-CN-X-000001', 'in_test_1', 're_test_ok', 'ord_test_paid', '[]', '[]', 420, 80, 500, '${refundedAt}');
    `);

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const entries = (
      await client.query<Record<string, unknown>>(
        'select id, store_id, livemode, type, amount, source_type, source_id, description, created_at, available_on from balance_transactions order by recorded_order',
      )
    ).rows;
    const id = expect.stringMatching(/^btx_test_[0-9A-Za-z]{24}$/);
    const paid = { id, store_id: 'acct_a', livemode: false, source_type: 'order', source_id: 'ord_test_paid', created_at: new Date(paidAt), available_on: new Date('2026-03-08T12:00:00.000Z') };
    const refunded = { id, store_id: 'acct_a', livemode: false, source_type: 'refund', source_id: 're_test_ok', created_at: new Date(refundedAt), available_on: new Date(refundedAt) };
    expect(entries).toEqual([
      { ...paid, type: 'payment', amount: 1190, description: 'Payment TEST-INV-X-000001' },
      { ...paid, type: 'tax', amount: -190, description: 'VAT TEST-INV-X-000001' },
      { ...paid, type: 'fee', amount: -110, description: 'Fee 5% + 0.50 EUR on TEST-INV-X-000001' },
      { ...refunded, type: 'refund', amount: -500, description: 'Refund TEST-CN-X-000001' },
      { ...refunded, type: 'tax', amount: 80, description: 'VAT TEST-CN-X-000001' },
    ]);
    expect((await client.query('select id, fee_basis_points, fee_fixed from orders order by id')).rows).toEqual([
      { id: 'ord_test_open', fee_basis_points: null, fee_fixed: null },
      { id: 'ord_test_paid', fee_basis_points: 500, fee_fixed: 50 },
    ]);
    expect(await verifyLedger(db as unknown as Executor, new Date('2026-03-03T00:00:00Z'))).toEqual({
      ok: true,
      checked: { stores: 1, orders: 2, refunds: 2, disputes: 0, payouts: 0, balance_transactions: 5 },
    });
    await client.close();
  });
});
