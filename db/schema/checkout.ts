import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, json, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { oneOf, TAX_MODES, TAX_TREATMENTS, timestamptz, type CustomerDetails, type TaxMode, type TaxTreatment } from './columns';
import type { DiscountTerms } from './coupons';
import { customers } from './customers';
import { orders } from './orders';
import { stores } from './stores';

export const CHECKOUT_STATUSES = ['open', 'complete', 'expired'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
export const PAYMENT_STATUSES = ['unpaid', 'paid', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Checkout sessions. Amounts and lines live on the session's order. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<CheckoutStatus>().notNull(),
    paymentStatus: text('payment_status').$type<PaymentStatus>().notNull(),
    /** SHA-256 of the client secret; the secret itself is derived again for idempotent replays. */
    clientSecretHash: text('client_secret_hash').notNull(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    mode: text('mode').$type<'price' | 'line_items' | 'amount'>().notNull(),
    quantity: integer('quantity').notNull(),
    priceId: text('price_id'),
    productId: text('product_id'),
    description: text('description'),
    amountSubtotal: integer('amount_subtotal').notNull(),
    amountTax: integer('amount_tax').notNull(),
    amountTotal: integer('amount_total').notNull(),
    customerEmail: text('customer_email'),
    customerId: text('customer_id').references(() => customers.id),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    /** `json`, not `jsonb`: metadata is echoed verbatim, key order included, and `jsonb` reorders keys. */
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    /** Hosted-page payment attempts so far (per-session limit, 429 too_many_attempts). */
    attemptCount: integer('attempt_count').notNull().default(0),
    failureCode: text('failure_code'),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    completedAt: timestamptz('completed_at'),
    /** The store's tax mode when the session was created: the session keeps it. */
    taxMode: text('tax_mode').$type<TaxMode>().notNull().default('product_rate'),
    /** The buyer's billing details and the tax they lead to, as last entered on the hosted page. */
    customerDetails: json('customer_details').$type<CustomerDetails>(),
    taxCountry: text('tax_country'),
    taxTreatment: text('tax_treatment').$type<TaxTreatment>(),
    /** The discount given at creation or applied by a code on the page (its amounts are on the order); whether the page offers a code field. */
    discount: json('discount').$type<DiscountTerms>(),
    allowPromotionCodes: boolean('allow_promotion_codes').notNull().default(false),
  },
  (t) => [
    // GET /checkout/sessions, newest first, unfiltered and by each selective filter.
    index('checkout_sessions_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('checkout_sessions_status_list_idx').on(t.storeId, t.livemode, t.status, t.createdAt.desc(), t.id.desc()),
    index('checkout_sessions_payment_status_list_idx').on(t.storeId, t.livemode, t.paymentStatus, t.createdAt.desc(), t.id.desc()),
    index('checkout_sessions_email_list_idx').on(t.storeId, t.livemode, sql`lower(${t.customerEmail})`, t.createdAt.desc(), t.id.desc()),
    // The expiry sweep: open sessions by deadline, across stores.
    index('checkout_sessions_open_expiry_idx').on(t.expiresAt).where(sql`${t.status} = 'open'`),
    check('checkout_sessions_status_check', oneOf(t.status, CHECKOUT_STATUSES)),
    check('checkout_sessions_payment_status_check', oneOf(t.paymentStatus, PAYMENT_STATUSES)),
    check('checkout_sessions_tax_mode_check', oneOf(t.taxMode, TAX_MODES)),
    check('checkout_sessions_tax_treatment_check', oneOf(t.taxTreatment, TAX_TREATMENTS)),
  ],
);

/**
 * `requires_action`: waiting for the customer's 3-D Secure challenge. `abandoned`: the gateway
 * never received the charge (refused up front, or reconciliation found nothing), so nothing was
 * charged and the session may be paid by a new attempt.
 */
export const PAYMENT_ATTEMPT_STATUSES = ['processing', 'succeeded', 'declined', 'unknown', 'requires_action', 'abandoned'] as const;
export type PaymentAttemptStatus = (typeof PAYMENT_ATTEMPT_STATUSES)[number];

/** Attempts whose outcome is not settled yet: at most one per session at a time (server/payments/service.ts). */
export const OPEN_ATTEMPT_STATUSES: readonly PaymentAttemptStatus[] = ['processing', 'unknown', 'requires_action'];

/**
 * Every charge sent to the gateway, written before the call with a deterministic idempotency
 * key (`charge:<session id>:<attempt>`), so a crash or timeout between the call and the commit
 * is reconciled against the gateway instead of charging twice.
 */
export const paymentAttempts = pgTable(
  'payment_attempts',
  {
    id: text('id').primaryKey(),
    checkoutSessionId: text('checkout_session_id')
      .notNull()
      .references(() => checkoutSessions.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    livemode: boolean('livemode').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    amount: integer('amount').notNull(),
    status: text('status').$type<PaymentAttemptStatus>().notNull(),
    failureCode: text('failure_code'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    gatewayPaymentId: text('gateway_payment_id'),
    /** Whether this attempt holds a redemption of the session's discount until it settles. */
    redemptionHeld: boolean('redemption_held').notNull().default(false),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    /** Until when a background pass holds this attempt (server/kit/lease.ts); null or past: free. */
    leasedUntil: timestamptz('leased_until'),
  },
  (t) => [
    uniqueIndex('payment_attempts_idempotency_unique').on(t.idempotencyKey),
    index('payment_attempts_session_idx').on(t.checkoutSessionId),
    // The reconciler scans attempts whose outcome is still open; they are few, so a partial index.
    index('payment_attempts_open_idx').on(t.createdAt).where(sql`${t.status} in ('processing', 'unknown', 'requires_action')`),
    check('payment_attempts_status_check', oneOf(t.status, PAYMENT_ATTEMPT_STATUSES)),
  ],
);

/**
 * Idempotency records of create operations, per store and environment, kept at least 24 hours.
 * The primary key makes racing requests with one key wait for the first and then replay it.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    storeId: text('store_id').notNull(),
    livemode: boolean('livemode').notNull(),
    operation: text('operation').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the canonical request (body, metadata included). */
    requestHash: text('request_hash').notNull(),
    resourceId: text('resource_id').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.livemode, t.operation, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);
