import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
import { orders } from './orders';
import { stores } from './stores';

/** Why the cardholder disputed the payment, as the card network reports it. */
export const DISPUTE_REASONS = ['fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'unrecognized', 'general'] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** `needs_response` → `under_review` → `won` | `lost`, or `needs_response` → `lost`. */
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/**
 * A cardholder's dispute of a paid order: at most one per order. The card network takes the
 * amount back when it opens, so its entries are written then; the VAT and fee it took are kept
 * here as they were at opening, the document the ledger check recomputes them from.
 */
export const disputes = pgTable(
  'disputes',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /** Cents taken back: at most what was unrefunded at opening. */
    amount: integer('amount').notNull(),
    /** The VAT a credit note for `amount` would carry at opening: given back to the store, and taken again if won. */
    amountTax: integer('amount_tax').notNull(),
    /** The dispute fee charged at opening (DISPUTE_FEE then). */
    fee: integer('fee').notNull(),
    reason: text('reason').$type<DisputeReason>().notNull(),
    status: text('status').$type<DisputeStatus>().notNull(),
    evidenceCustomerCommunication: text('evidence_customer_communication'),
    evidenceProductDescription: text('evidence_product_description'),
    evidenceUncategorizedText: text('evidence_uncategorized_text'),
    /** The store's clock: from then on the evidence cannot change. */
    evidenceDueBy: timestamptz('evidence_due_by').notNull(),
    evidenceSubmittedAt: timestamptz('evidence_submitted_at'),
    closedAt: timestamptz('closed_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('disputes_order_unique').on(t.orderId),
    // GET /disputes, newest first, unfiltered and by status.
    index('disputes_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('disputes_status_list_idx').on(t.storeId, t.livemode, t.status, t.createdAt.desc(), t.id.desc()),
    // The deadline pass: the open disputes by their deadline.
    index('disputes_due_idx').on(t.evidenceDueBy).where(sql`${t.status} in ('needs_response', 'under_review')`),
    check('disputes_amount_positive', sql`${t.amount} > 0 and ${t.amountTax} >= 0 and ${t.amountTax} <= ${t.amount} and ${t.fee} >= 0`),
    check('disputes_reason_check', oneOf(t.reason, DISPUTE_REASONS)),
    check('disputes_status_check', oneOf(t.status, DISPUTE_STATUSES)),
    // Evidence is submitted to leave `needs_response` for review; the operator may record a close without it.
    check(
      'disputes_submitted_by_status',
      sql`case ${t.status} when 'needs_response' then ${t.evidenceSubmittedAt} is null when 'under_review' then ${t.evidenceSubmittedAt} is not null else true end`,
    ),
    check('disputes_closed_iff_won_or_lost', sql`(${t.closedAt} is not null) = (${t.status} in ('won', 'lost'))`),
  ],
);
