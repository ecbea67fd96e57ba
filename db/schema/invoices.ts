import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, json, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { DOCUMENT_LANGUAGES, oneOf, TAX_TREATMENTS, timestamptz, type CustomerDetails, type DocumentLanguage, type TaxTreatment } from './columns';
import type { DiscountTerms } from './coupons';
import { customers } from './customers';
import { disputes } from './disputes';
import { orders, refunds } from './orders';
import { stores } from './stores';
import { subscriptionCharges, subscriptions } from './subscriptions';

/**
 * A line of an invoice or credit note, as the API shows it: amounts in cents, positive but for a
 * plan change's unused time. `amount_subtotal` is `unit_amount × quantity` less `amount_discount`.
 */
export interface DocumentLine {
  description: string;
  quantity: number;
  unit_amount: number;
  /** Absent in documents issued before discounts existed (none of theirs was discounted). */
  amount_discount?: number;
  amount_subtotal: number;
  /** Percent with at most two decimals (`5.5`); 0 where no VAT was charged. */
  tax_rate: number;
  amount_tax: number;
  amount_total: number;
}

/** The VAT of one rate over a document's lines. */
export interface TaxBreakdownEntry {
  rate: number;
  amount_net: number;
  amount_tax: number;
}

export interface WithdrawalWaiver {
  accepted_at: number;
  text_version: string;
}

/**
 * Invoices: issued in the transaction that records a payment (a paid order, a paid subscription
 * charge) and never changed afterwards (a trigger refuses updates and deletes: a correction is a
 * credit note). Buyer and seller are copied in at issue time, so the document reads the same
 * forever whatever later happens to the customer, the store or the operator's configuration.
 * Lines and breakdown are `json`, not `jsonb`, so they keep their key order.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    number: text('number').notNull(),
    orderId: text('order_id').references(() => orders.id),
    subscriptionId: text('subscription_id').references(() => subscriptions.id),
    /** The subscription charge this invoice documents (one invoice per charge). */
    subscriptionChargeId: text('subscription_charge_id').references(() => subscriptionCharges.id),
    customerId: text('customer_id').references(() => customers.id),
    customerEmail: text('customer_email').notNull(),
    customerName: text('customer_name'),
    buyerVatId: text('buyer_vat_id'),
    sellerName: text('seller_name').notNull(),
    sellerAddress: text('seller_address').notNull(),
    sellerVatId: text('seller_vat_id').notNull(),
    /** For the PDF's footer: the operator's contact address when the invoice was issued. */
    sellerEmail: text('seller_email').notNull(),
    /** The store the operator sold on behalf of, as named when the invoice was issued. */
    storeName: text('store_name').notNull(),
    lines: json('lines').$type<DocumentLine[]>().notNull(),
    taxBreakdown: json('tax_breakdown').$type<TaxBreakdownEntry[]>().notNull(),
    amountSubtotal: integer('amount_subtotal').notNull(),
    amountTax: integer('amount_tax').notNull(),
    amountTotal: integer('amount_total').notNull(),
    amountDiscount: integer('amount_discount').notNull().default(0),
    discount: json('discount').$type<DiscountTerms>(),
    language: text('language').$type<DocumentLanguage>().notNull(),
    withdrawalWaiver: json('withdrawal_waiver').$type<WithdrawalWaiver>(),
    /** The date or period of supply: the payment's date, or the subscription period it pays for. */
    suppliedFrom: timestamptz('supplied_from').notNull(),
    suppliedUntil: timestamptz('supplied_until').notNull(),
    /** When it was issued (the store's clock): the API's `issued_at`. */
    createdAt: timestamptz('created_at').notNull(),
    /** The buyer's billing details, where and how the sale was taxed, and the note that says why no VAT was charged. */
    customerDetails: json('customer_details').$type<CustomerDetails>(),
    taxCountry: text('tax_country'),
    taxTreatment: text('tax_treatment').$type<TaxTreatment>(),
    taxNote: text('tax_note'),
  },
  (t) => [
    uniqueIndex('invoices_number_unique').on(t.number),
    uniqueIndex('invoices_order_unique').on(t.orderId),
    uniqueIndex('invoices_subscription_charge_unique').on(t.subscriptionChargeId),
    // GET /invoices, newest first, unfiltered and by each filter.
    index('invoices_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('invoices_subscription_list_idx').on(t.storeId, t.livemode, t.subscriptionId, t.createdAt.desc(), t.id.desc()),
    index('invoices_customer_list_idx').on(t.storeId, t.livemode, t.customerId, t.createdAt.desc(), t.id.desc()),
    check('invoices_amounts', sql`${t.amountSubtotal} >= 0 and ${t.amountTax} >= 0 and ${t.amountTotal} = ${t.amountSubtotal} + ${t.amountTax}`),
    // Every invoice documents an order (a subscription charge's too, which also names its charge).
    check('invoices_documents_one_payment', sql`${t.orderId} is not null`),
    check('invoices_language_check', oneOf(t.language, DOCUMENT_LANGUAGES)),
    check('invoices_tax_treatment_check', oneOf(t.taxTreatment, TAX_TREATMENTS)),
    // The OSS report: a quarter's documents of one environment, by issue time.
    index('invoices_issued_idx').on(t.livemode, t.createdAt),
  ],
);

/** Why a credit note was issued: a refund, or a dispute the store lost. */
export const CREDIT_NOTE_REASONS = ['refund', 'dispute_lost'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];

/**
 * Credit notes: one per succeeded refund and per lost dispute, issued in the transaction that records it, against the
 * order's invoice; never changed afterwards (the same trigger as invoices).
 */
export const creditNotes = pgTable(
  'credit_notes',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    number: text('number').notNull(),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    /** What the credit note reverses: a succeeded refund, or a lost dispute (exactly one). */
    refundId: text('refund_id').references(() => refunds.id),
    disputeId: text('dispute_id').references(() => disputes.id),
    reason: text('reason').$type<CreditNoteReason>().notNull().default('refund'),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    lines: json('lines').$type<DocumentLine[]>().notNull(),
    taxBreakdown: json('tax_breakdown').$type<TaxBreakdownEntry[]>().notNull(),
    amountSubtotal: integer('amount_subtotal').notNull(),
    amountTax: integer('amount_tax').notNull(),
    amountTotal: integer('amount_total').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    /** Its invoice's: the buyer's billing details, where and how the sale was taxed, and the note that says why no VAT was charged. */
    customerDetails: json('customer_details').$type<CustomerDetails>(),
    taxCountry: text('tax_country'),
    taxTreatment: text('tax_treatment').$type<TaxTreatment>(),
    taxNote: text('tax_note'),
  },
  (t) => [
    uniqueIndex('credit_notes_number_unique').on(t.number),
    uniqueIndex('credit_notes_refund_unique').on(t.refundId),
    uniqueIndex('credit_notes_dispute_unique').on(t.disputeId),
    check('credit_notes_reason_check', oneOf(t.reason, CREDIT_NOTE_REASONS)),
    check('credit_notes_reverses_one', sql`case ${t.reason} when 'refund' then ${t.refundId} is not null and ${t.disputeId} is null else ${t.disputeId} is not null and ${t.refundId} is null end`),
    check('credit_notes_tax_treatment_check', oneOf(t.taxTreatment, TAX_TREATMENTS)),
    index('credit_notes_issued_idx').on(t.livemode, t.createdAt),
    index('credit_notes_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('credit_notes_invoice_list_idx').on(t.storeId, t.livemode, t.invoiceId, t.createdAt.desc(), t.id.desc()),
    index('credit_notes_order_list_idx').on(t.storeId, t.livemode, t.orderId, t.createdAt.desc(), t.id.desc()),
    check('credit_notes_amounts', sql`${t.amountSubtotal} >= 0 and ${t.amountTax} >= 0 and ${t.amountTotal} > 0 and ${t.amountTotal} = ${t.amountSubtotal} + ${t.amountTax}`),
  ],
);

export const DOCUMENT_KINDS = ['invoice', 'credit_note'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/**
 * The last number issued of each sequence: per store, environment and kind. The row is locked by
 * the transaction that issues a document until it commits, so two instances take numbers one at a
 * time, and a transaction that rolls back gives its number back with it: no gap, no duplicate.
 */
export const documentSequences = pgTable(
  'document_sequences',
  {
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    livemode: boolean('livemode').notNull(),
    kind: text('kind').$type<DocumentKind>().notNull(),
    lastNumber: integer('last_number').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.livemode, t.kind] }), check('document_sequences_kind_check', oneOf(t.kind, DOCUMENT_KINDS))],
);
