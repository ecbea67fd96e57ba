import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, useMigrationsBefore } from '../support/migrations';

/**
 * Migration 0023 on data written before it: a paid subscription charge with its invoice and
 * receipt, becomes an order (lines, amounts, tax, customer, invoice, dates, store,
 * environment) that the charge and its invoice point at; a declined one stays without.
 */
const migrationsBefore = useMigrationsBefore();

describe('migration 0023: paid subscription charges become orders', () => {
  it('creates the order with its line and points the charge and the invoice at it; a declined charge stays without one', async () => {
    const client = new PGlite();
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsBefore('0023') });
    const paidAt = '2026-03-01T12:00:00.000Z';
    await client.exec(`
      insert into stores (id, name) values ('acct_a', 'Cloud Notes');
      insert into customers (id, store_id, livemode, email, created_at) values ('cus_live_1', 'acct_a', true, 'ada@example.com', '${paidAt}');
      insert into subscriptions (id, store_id, livemode, status, amount, interval, interval_count, total_payments, recurring_id, customer_id, customer_email, customer_name, language, plan_name,
        current_period_start, current_period_end, next_billing_at, metadata, created_at)
        values ('sub_live_1', 'acct_a', true, 'active', 990, 'month', 1, 12, 'rc_1', 'cus_live_1', 'ada@example.com', 'Ada', 'de', 'Pro plan', '${paidAt}', '2026-04-01T12:00:00Z', '2026-04-01T12:00:00Z', '{}', '${paidAt}');
      insert into subscription_charges (id, subscription_id, store_id, livemode, cycle, attempt, idempotency_key, amount, status, card_brand, card_last4, gateway_payment_id, scheduled_at, created_at, settled_at)
        values ('subch_1', 'sub_live_1', 'acct_a', true, 2, 0, 'subscription:sub_live_1:2:0', 990, 'succeeded', 'visa', '4242', 'pay_1', '${paidAt}', '${paidAt}', '${paidAt}'),
               ('subch_2', 'sub_live_1', 'acct_a', true, 3, 0, 'subscription:sub_live_1:3:0', 990, 'declined', null, null, null, '${paidAt}', '${paidAt}', '${paidAt}');
      insert into invoices (id, store_id, livemode, number, subscription_id, subscription_charge_id, customer_id, customer_email, customer_name, seller_name, seller_address, seller_vat_id, seller_email, store_name,
        lines, tax_breakdown, amount_subtotal, amount_tax, amount_total, language, supplied_from, supplied_until, created_at)
        values ('in_live_1', 'acct_a', true, 'INV-X-000001', 'sub_live_1', 'subch_1', 'cus_live_1', 'ada@example.com', 'Ada', 'Op', 'Addr', 'DE1', 'op@example.com', 'Cloud Notes',
        '[{"description":"Pro plan","quantity":1,"unit_amount":990,"amount_subtotal":990,"tax_rate":0,"amount_tax":0,"amount_total":990}]', '[{"rate":0,"amount_net":990,"amount_tax":0}]', 990, 0, 990, 'de', '${paidAt}', '2026-04-01T12:00:00Z', '${paidAt}');
      insert into emails (id, store_id, livemode, template, to_address, language, data, attachments, subscription_id, invoice_id, status, next_attempt_at, created_at)
        values ('em_live_1', 'acct_a', true, 'receipt', 'ada@example.com', 'de', '{}', '[]', 'sub_live_1', 'in_live_1', 'pending', '${paidAt}', '${paidAt}');
    `);

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const charges = (await client.query<{ id: string; order_id: string | null }>('select id, order_id from subscription_charges order by id')).rows;
    expect(charges[0]!.order_id).toMatch(/^ord_live_[0-9A-Za-z]{24}$/);
    expect(charges[1]).toEqual({ id: 'subch_2', order_id: null });
    const orderId = charges[0]!.order_id!;
    const orders = (await client.query('select * from orders')).rows;
    expect(orders).toEqual([
      expect.objectContaining({
        id: orderId,
        store_id: 'acct_a',
        livemode: true,
        status: 'paid',
        customer_id: 'cus_live_1',
        customer_email: 'ada@example.com',
        amount_subtotal: 990,
        amount_tax: 0,
        amount_total: 990,
        amount_refunded: 0,
        card_brand: 'visa',
        card_last4: '4242',
        gateway_payment_id: 'pay_1',
        created_at: new Date(paidAt),
        paid_at: new Date(paidAt),
        language: 'de',
        invoice_id: 'in_live_1',
        billing_reason: 'subscription_cycle',
        subscription_id: 'sub_live_1',
      }),
    ]);
    const lines = (await client.query('select * from order_lines')).rows;
    expect(lines).toEqual([
      expect.objectContaining({
        id: `${orderId}_l0`,
        order_id: orderId,
        position: 0,
        description: 'Pro plan',
        quantity: 1,
        unit_amount: 990,
        amount_subtotal: 990,
        amount_tax: 0,
        amount_total: 990,
        // numeric(5,2) since rates may have decimals: read raw, it is its text.
        tax_rate: '0.00',
        tax_inclusive: false,
        has_license: false,
      }),
    ]);
    expect((await client.query('select order_id from invoices')).rows).toEqual([{ order_id: orderId }]);
    // Invoices stay immutable after the one correction.
    await expect(client.query(`update invoices set number = 'x'`)).rejects.toThrow();
    await client.close();
  });
});

describe('migration 0024: charges paid back after a cancel become refunded orders', () => {
  const paidAt = '2026-03-01T12:00:00.000Z';
  const subscriptionAndCharge = (status: string) => `
    insert into stores (id, name) values ('acct_a', 'Cloud Notes');
    insert into subscriptions (id, store_id, livemode, status, amount, interval, interval_count, total_payments, recurring_id, customer_email, customer_name, language, plan_name,
      current_period_start, current_period_end, next_billing_at, metadata, created_at, canceled_at)
      values ('sub_test_1', 'acct_a', false, 'canceled', 990, 'month', 1, 12, 'rc_1', 'ada@example.com', 'Ada', 'en', 'Pro plan', '${paidAt}', '2026-04-01T12:00:00Z', '2026-04-01T12:00:00Z', '{}', '${paidAt}', '${paidAt}');
    insert into subscription_charges (id, subscription_id, store_id, livemode, cycle, attempt, idempotency_key, amount, status, card_brand, card_last4, gateway_payment_id, scheduled_at, created_at, settled_at)
      values ('subch_1', 'sub_test_1', 'acct_a', false, 2, 0, 'subscription:sub_test_1:2:0', 990, '${status}', 'visa', '4242', 'pay_1', '${paidAt}', '${paidAt}', '${paidAt}');`;

  it('a charge paid back is a succeeded charge whose order was refunded in full by a succeeded refund', async () => {
    const client = new PGlite();
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsBefore('0024') });
    await client.exec(subscriptionAndCharge('refunded'));
    await migrate(db, { migrationsFolder: MIGRATIONS });

    const [charge] = (await client.query<{ status: string; order_id: string }>('select status, order_id from subscription_charges')).rows;
    expect(charge).toEqual({ status: 'succeeded', order_id: expect.stringMatching(/^ord_test_[0-9A-Za-z]{24}$/) });
    expect((await client.query('select * from orders')).rows).toEqual([
      expect.objectContaining({
        id: charge!.order_id,
        store_id: 'acct_a',
        livemode: false,
        status: 'refunded',
        customer_email: 'ada@example.com',
        amount_subtotal: 990,
        amount_tax: 0,
        amount_total: 990,
        amount_refunded: 990,
        gateway_payment_id: 'pay_1',
        paid_at: new Date(paidAt),
        invoice_id: null,
        billing_reason: 'subscription_cycle',
        subscription_id: 'sub_test_1',
      }),
    ]);
    expect((await client.query('select order_id, description, amount_total from order_lines')).rows).toEqual([{ order_id: charge!.order_id, description: 'Pro plan', amount_total: 990 }]);
    expect((await client.query('select id, order_id, amount, status, created_at from refunds')).rows).toEqual([
      { id: expect.stringMatching(/^re_test_[0-9A-Za-z]{24}$/), order_id: charge!.order_id, amount: 990, status: 'succeeded', created_at: new Date(paidAt) },
    ]);
    await expect(client.query(`update subscription_charges set status = 'refunded'`)).rejects.toThrow(/subscription_charges_status_check/);
    await client.close();
  });

  it('refuses to run while a charge is still being paid back the old way, and changes nothing', async () => {
    const client = new PGlite();
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsBefore('0024') });
    await client.exec(subscriptionAndCharge('refund_due'));
    await expect(migrate(db, { migrationsFolder: MIGRATIONS })).rejects.toThrow(/still being paid back/);
    expect((await client.query('select status, order_id from subscription_charges')).rows).toEqual([{ status: 'refund_due', order_id: null }]);
    expect((await client.query('select count(*)::int as n from orders')).rows).toEqual([{ n: 0 }]);
    await client.close();
  });
});
