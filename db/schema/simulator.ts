import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';

export const SIMULATOR_CHARGE_STATUSES = ['succeeded', 'declined'] as const;
export const SIMULATOR_REFUND_STATUSES = ['succeeded', 'failed'] as const;

/**
 * The test-mode gateway's ledger (server/gateway/simulator.ts). Kept in the database rather than
 * in memory so that idempotency holds across restarts and across several instances sharing one
 * database, and so tests can count what was really charged ("charged exactly once").
 * Card numbers are never stored here either: only the brand, the last 4 and the test scenario.
 */
export const simulatorCharges = pgTable(
  'simulator_charges',
  {
    /** The caller's idempotency key: the same key always answers the same result. */
    idempotencyKey: text('idempotency_key').primaryKey(),
    paymentId: text('payment_id').notNull().unique(),
    kind: text('kind').$type<'charge' | 'recurring'>().notNull(),
    status: text('status').$type<(typeof SIMULATOR_CHARGE_STATUSES)[number]>().notNull(),
    failureCode: text('failure_code'),
    amount: integer('amount').notNull(),
    description: text('description').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    /** The recurring contract this charge set up (first charge) or was made on (recurring charge). */
    recurringId: text('recurring_id'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [index('simulator_charges_recurring_idx').on(t.recurringId), check('simulator_charges_status_check', oneOf(t.status, SIMULATOR_CHARGE_STATUSES))],
);

/** Recurring contracts: the card's scenario decides how its later recurring charges go (test cards 0341 and 3063). */
export const simulatorRecurring = pgTable('simulator_recurring', {
  id: text('id').primaryKey(),
  scenario: text('scenario').$type<'approve' | 'decline_recurring' | 'decline_first_recurring'>().notNull(),
  brand: text('brand').notNull(),
  last4: text('last4').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  canceledAt: timestamptz('canceled_at'),
});

export const simulatorRefunds = pgTable(
  'simulator_refunds',
  {
    idempotencyKey: text('idempotency_key').primaryKey(),
    refundId: text('refund_id').notNull().unique(),
    paymentId: text('payment_id').notNull(),
    amount: integer('amount').notNull(),
    status: text('status').$type<(typeof SIMULATOR_REFUND_STATUSES)[number]>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [index('simulator_refunds_payment_idx').on(t.paymentId), check('simulator_refunds_status_check', oneOf(t.status, SIMULATOR_REFUND_STATUSES))],
);
