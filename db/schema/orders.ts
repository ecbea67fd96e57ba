import { boolean, check, index, integer, json, numeric, pgTable, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { DOCUMENT_LANGUAGES, oneOf, TAX_CATEGORIES, TAX_TREATMENTS, timestamptz, type CustomerDetails, type DocumentLanguage, type TaxCategory, type TaxEvidence, type TaxTreatment } from './columns';
import type { DiscountTerms } from './coupons';
import { customers } from './customers';
import { products } from './products';
import { stores } from './stores';

export const ORDER_STATUSES = ['pending', 'paid', 'partially_refunded', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Why an order was paid: a checkout session, a subscription's first charge, a renewal, or a prorated plan change. */
export const BILLING_REASONS = ['purchase', 'subscription_create', 'subscription_cycle', 'subscription_update'] as const;
export type BillingReason = (typeof BILLING_REASONS)[number];

/**
 * Every collected payment is an order: one per checkout session, created with it and `pending`
 * until paid; one per paid subscription charge, created `paid`. Amounts in cents.
 */
export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<OrderStatus>().notNull(),
    customerId: text('customer_id').references(() => customers.id),
    customerEmail: text('customer_email'),
    amountSubtotal: integer('amount_subtotal').notNull(),
    amountTax: integer('amount_tax').notNull(),
    amountTotal: integer('amount_total').notNull(),
    amountRefunded: integer('amount_refunded').notNull().default(0),
    /** Taken off the lines before tax (in amount_subtotal already), and the terms it came from. */
    amountDiscount: integer('amount_discount').notNull().default(0),
    discount: json('discount').$type<DiscountTerms>(),
    /** Card brand and last 4 only: card numbers are never stored. */
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    gatewayPaymentId: text('gateway_payment_id'),
    createdAt: timestamptz('created_at').notNull(),
    paidAt: timestamptz('paid_at'),
    /** The language the customer paid in on the hosted page (`en`, `de`): their invoice's. */
    language: text('language').$type<DocumentLanguage>().notNull().default('en'),
    /** A business buyer's VAT ID, normalised and checked on the hosted page; printed on the invoice. */
    buyerVatId: text('buyer_vat_id'),
    /** The invoice issued when the order was paid (server/invoices). */
    invoiceId: text('invoice_id'),
    /**
     * The customer's waiver of the right of withdrawal (both checkboxes of a checkout with a digital
     * product), and which wording they agreed to: both set, or both null.
     */
    withdrawalWaiverAcceptedAt: timestamptz('withdrawal_waiver_accepted_at'),
    withdrawalWaiverTextVersion: text('withdrawal_waiver_text_version'),
    billingReason: text('billing_reason').$type<BillingReason>().notNull().default('purchase'),
    /** The subscription whose charge this order is; null for a purchase. */
    subscriptionId: text('subscription_id'),
    /** The store's fee rates when the order was paid (hundredths of a percent, cents): its `fee` entry is computed from them. */
    feeBasisPoints: integer('fee_basis_points'),
    feeFixed: integer('fee_fixed'),
    /** The order's dispute, if the cardholder disputed it (at most one). */
    disputeId: text('dispute_id'),
    /**
     * The buyer's IP address and user agent when they paid on the hosted page: evidence for a
     * dispute, erased 540 days after the payment (server/disputes/jobs.ts).
     */
    buyerIp: text('buyer_ip'),
    buyerUserAgent: text('buyer_user_agent'),
    /** The buyer's billing details and the tax they led to (its checkout session's, or its subscription's). */
    customerDetails: json('customer_details').$type<CustomerDetails>(),
    taxCountry: text('tax_country'),
    taxTreatment: text('tax_treatment').$type<TaxTreatment>(),
    /** Where the buyer is, as the payment attempt found it: billing and card country, and whether they differ. */
    taxEvidence: json('tax_evidence').$type<TaxEvidence>(),
    evidenceConflict: boolean('evidence_conflict'),
  },
  (t) => [
    // GET /orders, newest first, unfiltered and by each selective filter.
    index('orders_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('orders_status_list_idx').on(t.storeId, t.livemode, t.status, t.createdAt.desc(), t.id.desc()),
    index('orders_customer_list_idx').on(t.storeId, t.livemode, t.customerId, t.createdAt.desc(), t.id.desc()),
    index('orders_email_list_idx').on(t.storeId, t.livemode, sql`lower(${t.customerEmail})`, t.createdAt.desc(), t.id.desc()),
    index('orders_subscription_list_idx').on(t.storeId, t.livemode, t.subscriptionId, t.createdAt.desc(), t.id.desc()),
    index('orders_billing_reason_list_idx').on(t.storeId, t.livemode, t.billingReason, t.createdAt.desc(), t.id.desc()),
    index('orders_customer_idx').on(t.customerId),
    // The dashboard's volume by day: a store's paid orders by payment time, the summed columns
    // in the index so 100,000 orders are read without touching the table.
    index('orders_paid_idx').on(t.storeId, t.livemode, t.paidAt, t.status, t.amountTotal, t.amountRefunded).where(sql`${t.paidAt} is not null`),
    check('orders_refund_within_total', sql`${t.amountRefunded} >= 0 and ${t.amountRefunded} <= ${t.amountTotal}`),
    check('orders_status_check', oneOf(t.status, ORDER_STATUSES)),
    check('orders_language_check', oneOf(t.language, DOCUMENT_LANGUAGES)),
    check('orders_billing_reason_check', oneOf(t.billingReason, BILLING_REASONS)),
    check('orders_subscription_whole', sql`(${t.billingReason} = 'purchase') = (${t.subscriptionId} is null)`),
    check('orders_fee_rates_whole', sql`(${t.feeBasisPoints} is null) = (${t.feeFixed} is null)`),
    check('orders_tax_treatment_check', oneOf(t.taxTreatment, TAX_TREATMENTS)),
    check('orders_withdrawal_waiver_whole', sql`(${t.withdrawalWaiverAcceptedAt} is null) = (${t.withdrawalWaiverTextVersion} is null)`),
  ],
);

/** The lines of an order, priced and taxed when the session was created (a snapshot of the catalog). */
export const orderLines = pgTable(
  'order_lines',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    /** Detached (null) when the product is deleted, so the order survives it. */
    productId: text('product_id').references(() => products.id, { onDelete: 'set null' }),
    priceId: text('price_id'),
    description: text('description').notNull(),
    quantity: integer('quantity').notNull(),
    unitAmount: integer('unit_amount').notNull(),
    /** Off `unit_amount × quantity` before tax: amount_subtotal is what is left. */
    amountDiscount: integer('amount_discount').notNull().default(0),
    amountSubtotal: integer('amount_subtotal').notNull(),
    amountTax: integer('amount_tax').notNull(),
    amountTotal: integer('amount_total').notNull(),
    /** Percent with at most two decimals (`5.5`). */
    taxRate: numeric('tax_rate', { precision: 5, scale: 2, mode: 'number' }),
    taxInclusive: boolean('tax_inclusive').notNull(),
    /** The product's VAT category at sale time: where the buyer's country sets the rate, it picks the row. */
    taxCategory: text('tax_category').$type<TaxCategory>().notNull().default('standard'),
    /** Whether license keys are issued for this line when paid (the product's flag at sale time). */
    hasLicense: boolean('has_license').notNull(),
    /** Downloads served of the line's file: raised by one conditional update per download, never past DOWNLOAD_LIMIT. */
    downloadCount: integer('download_count').notNull().default(0),
  },
  (t) => [
    index('order_lines_order_idx').on(t.orderId, t.position),
    check('order_lines_download_count_check', sql`${t.downloadCount} >= 0`),
    check('order_lines_tax_category_check', oneOf(t.taxCategory, TAX_CATEGORIES)),
  ],
);

export const REFUND_STATUSES = ['succeeded', 'pending', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Refunds of paid orders, full or partial up to what remains. */
export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    amount: integer('amount').notNull(),
    status: text('status').$type<RefundStatus>().notNull(),
    gatewayRefundId: text('gateway_refund_id'),
    createdAt: timestamptz('created_at').notNull(),
    /** When the reconciler last asked the gateway about this refund (wall clock): least recently asked goes first. */
    checkedAt: timestamptz('checked_at'),
    /** Until when a background pass holds this refund (server/kit/lease.ts); null or past: free. */
    leasedUntil: timestamptz('leased_until'),
    /** The credit note issued when the refund succeeded (server/invoices). */
    creditNoteId: text('credit_note_id'),
  },
  (t) => [
    index('refunds_order_idx').on(t.orderId),
    // GET /refunds, newest first, unfiltered and by each filter.
    index('refunds_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('refunds_order_list_idx').on(t.storeId, t.livemode, t.orderId, t.createdAt.desc(), t.id.desc()),
    index('refunds_status_list_idx').on(t.storeId, t.livemode, t.status, t.createdAt.desc(), t.id.desc()),
    check('refunds_amount_positive', sql`${t.amount} > 0`),
    check('refunds_status_check', oneOf(t.status, REFUND_STATUSES)),
  ],
);

export const WITHDRAWAL_STATUSES = ['requested', 'refunded'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/**
 * A customer's withdrawal from the contract of a paid order, declared on /withdraw: at most one per
 * order (a repeated declaration keeps the first, and with it the refund deadline). Name and e-mail
 * are kept as the customer typed them, as the record of the declaration.
 */
export const withdrawals = pgTable(
  'withdrawals',
  {
    orderId: text('order_id')
      .primaryKey()
      .references(() => orders.id, { onDelete: 'cascade' }),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<WithdrawalStatus>().notNull(),
    customerName: text('customer_name').notNull(),
    customerEmail: text('customer_email').notNull(),
    reason: text('reason'),
    requestedAt: timestamptz('requested_at').notNull(),
    refundDueBy: timestamptz('refund_due_by').notNull(),
  },
  (t) => [
    // The dashboard's list of requests, newest first.
    index('withdrawals_list_idx').on(t.storeId, t.livemode, t.requestedAt.desc(), t.orderId.desc()),
    check('withdrawals_status_check', oneOf(t.status, WITHDRAWAL_STATUSES)),
  ],
);

/** Each download of an order line's delivery file through its signed link: the count the merchant sees. */
export const fileDownloads = pgTable(
  'file_downloads',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    orderLineId: text('order_line_id')
      .notNull()
      .references(() => orderLines.id, { onDelete: 'cascade' }),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [index('file_downloads_line_idx').on(t.orderLineId)],
);
