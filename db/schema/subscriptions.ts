import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, json, numeric, pgTable, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import {
  DOCUMENT_LANGUAGES,
  oneOf,
  TAX_CATEGORIES,
  TAX_MODES,
  TAX_TREATMENTS,
  timestamptz,
  type CustomerDetails,
  type DocumentLanguage,
  type TaxCategory,
  type TaxEvidence,
  type TaxMode,
  type TaxTreatment,
} from './columns';
import type { DiscountTerms } from './coupons';
import { orders } from './orders';
import { products } from './products';
import { stores } from './stores';
import type { PriceInterval } from './products';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'incomplete', 'past_due', 'canceled', 'expired', 'pending', 'suspended'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Statuses that keep a product from being deleted: pending, trialing, active, past-due or suspended ones. */
export const PRODUCT_BLOCKING_SUBSCRIPTION_STATUSES: SubscriptionStatus[] = ['pending', 'trialing', 'active', 'past_due', 'suspended'];

/**
 * A plan a subscription bills, or is changed to: the price it came from (null for an amount given
 * directly), its name, amount and interval, and how it is taxed.
 */
export interface PlanTerms {
  price_id: string | null;
  product_id: string | null;
  plan_name: string;
  amount: number;
  interval: PriceInterval;
  interval_count: number;
  tax_category: TaxCategory;
  tax_inclusive: boolean;
}

/** A plan change waiting for the renewal at `effective_at` (epoch seconds, the period's end). */
export interface PendingChange extends PlanTerms {
  effective_at: number;
}

/**
 * How a subscription's charges are taxed, set on its checkout and copied to it: the store's tax
 * mode, and where the buyer's country sets the rate, the category and whether the amount includes
 * VAT (plan mode: it does, `standard`); the buyer's billing details and the tax country and
 * treatment they led to, fixed at the checkout. Fresh builders for each table.
 */
function chargeTaxColumns() {
  return {
    taxMode: text('tax_mode').$type<TaxMode>().notNull().default('product_rate'),
    taxCategory: text('tax_category').$type<TaxCategory>().notNull().default('standard'),
    taxInclusive: boolean('tax_inclusive').notNull().default(true),
    customerDetails: json('customer_details').$type<CustomerDetails>(),
    taxCountry: text('tax_country'),
    taxTreatment: text('tax_treatment').$type<TaxTreatment>(),
  };
}

function chargeTaxChecks(table: string, t: { taxMode: AnyPgColumn; taxCategory: AnyPgColumn; taxTreatment: AnyPgColumn }) {
  return [
    check(`${table}_tax_mode_check`, oneOf(t.taxMode, TAX_MODES)),
    check(`${table}_tax_category_check`, oneOf(t.taxCategory, TAX_CATEGORIES)),
    check(`${table}_tax_treatment_check`, oneOf(t.taxTreatment, TAX_TREATMENTS)),
  ];
}

/** `ordinary` ends at the period's end; `extraordinary` asks for an end as soon as possible (the store decides). */
export const CANCELLATION_TYPES = ['ordinary', 'extraordinary'] as const;
export type CancellationType = (typeof CANCELLATION_TYPES)[number];

/** Subscriptions. Billing fills them in; the catalog only reads them for its guard. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<SubscriptionStatus>().notNull(),
    amount: integer('amount').notNull(),
    interval: text('interval').$type<PriceInterval>().notNull(),
    intervalCount: integer('interval_count').notNull(),
    totalPayments: integer('total_payments').notNull(),
    /** Successful charges so far, the first included; `expired` when it reaches total_payments. */
    paymentsMade: integer('payments_made').notNull().default(0),
    planName: text('plan_name').notNull().default(''),
    /** The subscription checkout it was created from. */
    checkoutId: text('checkout_id'),
    recurringId: text('recurring_id').notNull(),
    customerId: text('customer_id'),
    customerEmail: text('customer_email').notNull(),
    customerName: text('customer_name'),
    productId: text('product_id').references(() => products.id, { onDelete: 'set null' }),
    priceId: text('price_id'),
    failureCount: integer('failure_count').notNull().default(0),
    /**
     * The start of the first period, from which every period boundary is counted (schedule.ts).
     * Null until billing first moves the subscription: until then it is current_period_start.
     */
    billingAnchor: timestamptz('billing_anchor'),
    /** The cycles paid before `billing_anchor`: 0, unless a plan change counted the periods anew from its own start while the cycles kept counting. */
    anchorCycle: integer('anchor_cycle').notNull().default(0),
    currentPeriodStart: timestamptz('current_period_start').notNull(),
    currentPeriodEnd: timestamptz('current_period_end').notNull(),
    nextBillingAt: timestamptz('next_billing_at').notNull(),
    canceledAt: timestamptz('canceled_at'),
    endedAt: timestamptz('ended_at'),
    /** `reason` of the cancel request, or `dispute_lost` when a lost dispute ended it. */
    cancelReason: text('cancel_reason'),
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
    /** The language the customer subscribed in on the hosted page (`en`, `de`): their invoices'. */
    language: text('language').$type<DocumentLanguage>().notNull().default('en'),
    ...chargeTaxColumns(),
    /** Where the buyer is, as the first charge's attempt found it. */
    taxEvidence: json('tax_evidence').$type<TaxEvidence>(),
    evidenceConflict: boolean('evidence_conflict'),
    /** The card the next charge uses, as the gateway named it; null until a charge or card check approved one. */
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    /** A scheduled end: the subscription is canceled at `cancel_at` (its period's end) instead of renewed. */
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    cancelAt: timestamptz('cancel_at'),
    /** The customer's declaration on the cancel page that scheduled the end (store clock), and the record it belongs to. */
    cancellationId: text('cancellation_id'),
    cancellationDeclaredAt: timestamptz('cancellation_declared_at'),
    cancellationType: text('cancellation_type').$type<CancellationType>(),
    cancellationReason: text('cancellation_reason'),
    /** A free trial: from its start (the checkout) to its end, when the first charge is due. */
    trialStart: timestamptz('trial_start'),
    trialEnd: timestamptz('trial_end'),
    /** When `subscription.trial_will_end` and the trial-ending e-mail went out (store clock): once per trial. */
    trialWillEndSentAt: timestamptz('trial_will_end_sent_at'),
    /** The discount redeemed at the checkout, and the end of the periods it discounts (null: forever, or not known before the first charge). */
    discount: json('discount').$type<DiscountTerms>(),
    discountEnd: timestamptz('discount_end'),
    pendingChange: json('pending_change').$type<PendingChange>(),
    /** Cents a plan change left to the customer, taken off the next charges. */
    creditBalance: integer('credit_balance').notNull().default(0),
  },
  (t) => [
    index('subscriptions_product_idx').on(t.productId),
    // The cancel page's match: subscriptions of one address in any store and environment.
    index('subscriptions_email_idx').on(sql`lower(${t.customerEmail})`),
    index('subscriptions_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('subscriptions_customer_idx').on(t.customerId),
    // The list filtered by customer e-mail, compared lower-cased, newest first.
    index('subscriptions_email_list_idx').on(t.storeId, t.livemode, sql`lower(${t.customerEmail})`, t.createdAt.desc(), t.id.desc()),
    // The dashboard's counts and MRR: a store's subscriptions in one status.
    index('subscriptions_status_idx').on(t.storeId, t.livemode, t.status),
    // The billing job's queue: subscriptions that can fall due, by due time.
    index('subscriptions_due_idx').on(t.nextBillingAt).where(sql`${t.status} in ('trialing', 'active', 'past_due')`),
    // The trial-ending pass: trials not yet told they end, by end.
    index('subscriptions_trial_end_idx').on(t.trialEnd).where(sql`${t.status} = 'trialing' and ${t.trialWillEndSentAt} is null`),
    check('subscriptions_credit_balance_check', sql`${t.creditBalance} >= 0`),
    check('subscriptions_trial_whole', sql`(${t.trialStart} is null) = (${t.trialEnd} is null)`),
    check('subscriptions_status_check', oneOf(t.status, SUBSCRIPTION_STATUSES)),
    check('subscriptions_language_check', oneOf(t.language, DOCUMENT_LANGUAGES)),
    check('subscriptions_cancellation_type_check', oneOf(t.cancellationType, CANCELLATION_TYPES)),
    ...chargeTaxChecks('subscriptions', t),
  ],
);

export const SUBSCRIPTION_CHECKOUT_STATUSES = ['open', 'complete', 'expired'] as const;
export type SubscriptionCheckoutStatus = (typeof SUBSCRIPTION_CHECKOUT_STATUSES)[number];

/** Subscription checkouts: the hosted link that starts a subscription. */
export const subscriptionCheckouts = pgTable(
  'subscription_checkouts',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<SubscriptionCheckoutStatus>().notNull(),
    amount: integer('amount').notNull(),
    interval: text('interval').$type<PriceInterval>().notNull(),
    intervalCount: integer('interval_count').notNull(),
    totalPayments: integer('total_payments').notNull(),
    planName: text('plan_name').notNull(),
    priceId: text('price_id'),
    productId: text('product_id').references(() => products.id, { onDelete: 'set null' }),
    customerEmail: text('customer_email').notNull(),
    customerName: text('customer_name'),
    successUrl: text('success_url'),
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    subscriptionId: text('subscription_id'),
    /** Set by the first payment attempt: the link is single-use and burns on the first attempt. */
    consumedAt: timestamptz('consumed_at'),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    ...chargeTaxColumns(),
    /** Days free before the first charge (1–365), or null. */
    trialDays: integer('trial_days'),
    /** The discount given at creation or applied by a code on the page; whether the page offers a code field. */
    discount: json('discount').$type<DiscountTerms>(),
    allowPromotionCodes: boolean('allow_promotion_codes').notNull().default(false),
  },
  (t) => [
    index('subscription_checkouts_store_idx').on(t.storeId, t.livemode, t.createdAt),
    check('subscription_checkouts_status_check', oneOf(t.status, SUBSCRIPTION_CHECKOUT_STATUSES)),
    ...chargeTaxChecks('subscription_checkouts', t),
  ],
);

/**
 * `requires_action`: a first charge waiting for the customer's 3-D Secure challenge (live mode).
 * A charge that took the money is `succeeded` and has an order, whatever came after: a charge taken
 * after its subscription was canceled is paid back by refunding that order.
 */
export const SUBSCRIPTION_CHARGE_STATUSES = ['processing', 'succeeded', 'declined', 'unknown', 'requires_action'] as const;
export type SubscriptionChargeStatus = (typeof SUBSCRIPTION_CHARGE_STATUSES)[number];

/**
 * Every charge of a subscription (the first on the hosted page, then one per cycle and retry),
 * written before the gateway call with a deterministic idempotency key
 * (`subscription:<sub id>:<cycle>:<attempt>`); the unique (subscription, cycle, attempt) makes a
 * second charge of the same cycle impossible however workers race or crash.
 */
export const subscriptionCharges = pgTable(
  'subscription_charges',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    livemode: boolean('livemode').notNull(),
    /** 1 for the first charge; cycle n covers the n-th period. */
    cycle: integer('cycle').notNull(),
    /** 0 for the scheduled charge, 1–4 for the retries at +1, +3, +5 and +7 days after a failure. */
    attempt: integer('attempt').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** What is charged: the subscription's amount, plus VAT where its price excludes it. */
    amount: integer('amount').notNull(),
    /** The VAT in `amount` and its rate (percent, two decimals at most) on the charge's date; 0 and null where no VAT is charged. */
    amountTax: integer('amount_tax').notNull().default(0),
    taxRate: numeric('tax_rate', { precision: 5, scale: 2, mode: 'number' }),
    /** Taken off the plan's amount before tax: the discount, and the credit balance used. */
    amountDiscount: integer('amount_discount').notNull().default(0),
    amountCredit: integer('amount_credit').notNull().default(0),
    /** Whether this charge holds a redemption of the subscription's discount (a first charge) until it settles. */
    redemptionHeld: boolean('redemption_held').notNull().default(false),
    status: text('status').$type<SubscriptionChargeStatus>().notNull(),
    failureCode: text('failure_code'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    gatewayPaymentId: text('gateway_payment_id'),
    /** When this charge was due (store clock). */
    scheduledAt: timestamptz('scheduled_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    settledAt: timestamptz('settled_at'),
    /** When the reconciler last asked the gateway about this open charge (wall clock): least recently asked goes first. */
    checkedAt: timestamptz('checked_at'),
    /** Until when a background pass holds this charge (server/kit/lease.ts); null or past: free. */
    leasedUntil: timestamptz('leased_until'),
    /** The order this charge paid (server/payments/settle.ts); null until it succeeded. */
    orderId: text('order_id').references(() => orders.id),
    /** The buyer's IP address and user agent on the hosted page (a first charge only): copied to its order when paid. */
    buyerIp: text('buyer_ip'),
    buyerUserAgent: text('buyer_user_agent'),
  },
  (t) => [
    uniqueIndex('subscription_charges_order_unique').on(t.orderId),
    uniqueIndex('subscription_charges_cycle_unique').on(t.subscriptionId, t.cycle, t.attempt),
    uniqueIndex('subscription_charges_idempotency_unique').on(t.idempotencyKey),
    index('subscription_charges_open_idx').on(t.createdAt).where(sql`${t.status} in ('processing', 'unknown')`),
    check('subscription_charges_status_check', oneOf(t.status, SUBSCRIPTION_CHARGE_STATUSES)),
  ],
);

/** When a declaration on the cancel page asks the subscription to end. */
export const CANCELLATION_TIMINGS = ['period_end', 'asap'] as const;
export type CancellationTiming = (typeof CANCELLATION_TIMINGS)[number];

/**
 * Every declaration sent on the cancel page, matched or not: the operator's record of what a
 * customer declared and when (an unmatched one may name a subscription under another address).
 */
export const cancellations = pgTable(
  'cancellations',
  {
    id: text('id').primaryKey(),
    /** Wall clock: when the declaration was received. */
    declaredAt: timestamptz('declared_at').notNull(),
    email: text('email').notNull(),
    /** The subscription or invoice number typed, if any. */
    number: text('number'),
    name: text('name').notNull(),
    reason: text('reason'),
    cancelAt: text('cancel_at').$type<CancellationTiming>().notNull(),
    language: text('language').$type<DocumentLanguage>().notNull(),
    /** The subscriptions it matched, in id order (none when it matched nothing). */
    subscriptionIds: json('subscription_ids').$type<string[]>().notNull(),
  },
  (t) => [
    index('cancellations_list_idx').on(t.declaredAt.desc(), t.id.desc()),
    index('cancellations_email_idx').on(sql`lower(${t.email})`, t.declaredAt.desc()),
    check('cancellations_cancel_at_check', oneOf(t.cancelAt, CANCELLATION_TIMINGS)),
    check('cancellations_language_check', oneOf(t.language, DOCUMENT_LANGUAGES)),
  ],
);

export const PAYMENT_METHOD_UPDATE_STATUSES = ['processing', 'unknown', 'requires_action', 'succeeded', 'declined'] as const;
export type PaymentMethodUpdateStatus = (typeof PAYMENT_METHOD_UPDATE_STATUSES)[number];
/** An update whose outcome is not recorded yet: at the gateway, unknown, or at the customer's challenge. */
export const OPEN_PAYMENT_METHOD_UPDATE_STATUSES = ['processing', 'unknown', 'requires_action'] as const satisfies readonly PaymentMethodUpdateStatus[];

/**
 * A new card given on the update page: checked at the gateway without moving money, or, for a
 * `past_due` subscription, charged the owed amount. Written `processing` before the gateway call
 * under its own idempotency key, so a crash leaves a row to reconcile and nothing is charged twice;
 * billing claims no subscription while one of these is open.
 */
export const paymentMethodUpdates = pgTable(
  'payment_method_updates',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<PaymentMethodUpdateStatus>().notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** 0 for a card check; the owed charge of a `past_due` subscription otherwise, with its VAT. */
    amount: integer('amount').notNull(),
    amountTax: integer('amount_tax').notNull().default(0),
    taxRate: numeric('tax_rate', { precision: 5, scale: 2, mode: 'number' }),
    /** As on subscription charges: the discount and the credit balance taken off the owed charge. */
    amountDiscount: integer('amount_discount').notNull().default(0),
    amountCredit: integer('amount_credit').notNull().default(0),
    /** The cycle and attempt the owed charge pays (null for a card check). */
    cycle: integer('cycle'),
    attempt: integer('attempt'),
    failureCode: text('failure_code'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    recurringId: text('recurring_id'),
    gatewayPaymentId: text('gateway_payment_id'),
    /** The buyer's IP address and user agent on the page: kept on the owed charge's order. */
    buyerIp: text('buyer_ip'),
    buyerUserAgent: text('buyer_user_agent'),
    /** Wall clock: when it was sent (the reconciler's grace period is measured on it). */
    createdAt: timestamptz('created_at').notNull(),
    settledAt: timestamptz('settled_at'),
    checkedAt: timestamptz('checked_at'),
    leasedUntil: timestamptz('leased_until'),
  },
  (t) => [
    uniqueIndex('payment_method_updates_idempotency_unique').on(t.idempotencyKey),
    index('payment_method_updates_subscription_idx').on(t.subscriptionId),
    index('payment_method_updates_open_idx').on(t.createdAt).where(sql`${t.status} in ('processing', 'unknown', 'requires_action')`),
    check('payment_method_updates_status_check', oneOf(t.status, PAYMENT_METHOD_UPDATE_STATUSES)),
  ],
);

export const PLAN_CHANGE_PRORATIONS = ['prorate_now', 'next_period'] as const;
export type PlanChangeProration = (typeof PLAN_CHANGE_PRORATIONS)[number];

export const PLAN_CHANGE_STATUSES = ['processing', 'unknown', 'succeeded', 'declined'] as const;
export type PlanChangeStatus = (typeof PLAN_CHANGE_STATUSES)[number];

/**
 * A prorated plan change that charges the card (charge − credit > 0): written `processing` before
 * the gateway call under its own idempotency key, applied to the subscription when approved (now,
 * or by the reconciler), so a crash neither charges twice nor loses an approved change. Changes
 * that charge nothing are applied at once and leave no row.
 */
export const planChanges = pgTable(
  'plan_changes',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<PlanChangeStatus>().notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    fromPlan: json('from_plan').$type<PlanTerms>().notNull(),
    toPlan: json('to_plan').$type<PlanTerms>().notNull(),
    /** The store-clock moment the change takes effect, and the period it prices. */
    changedAt: timestamptz('changed_at').notNull(),
    periodStart: timestamptz('period_start').notNull(),
    periodEnd: timestamptz('period_end').notNull(),
    /** The unused time of the old plan and the remaining time of the new, before tax. */
    credit: integer('credit').notNull(),
    charge: integer('charge').notNull(),
    /** What is charged: charge − credit, plus VAT where the plan excludes it. */
    amount: integer('amount').notNull(),
    amountTax: integer('amount_tax').notNull().default(0),
    taxRate: numeric('tax_rate', { precision: 5, scale: 2, mode: 'number' }),
    failureCode: text('failure_code'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    gatewayPaymentId: text('gateway_payment_id'),
    orderId: text('order_id').references(() => orders.id),
    /** Wall clock: when it was sent (the reconciler's grace period is measured on it). */
    createdAt: timestamptz('created_at').notNull(),
    settledAt: timestamptz('settled_at'),
    checkedAt: timestamptz('checked_at'),
    leasedUntil: timestamptz('leased_until'),
  },
  (t) => [
    uniqueIndex('plan_changes_idempotency_unique').on(t.idempotencyKey),
    uniqueIndex('plan_changes_order_unique').on(t.orderId),
    index('plan_changes_subscription_idx').on(t.subscriptionId),
    index('plan_changes_open_idx').on(t.createdAt).where(sql`${t.status} in ('processing', 'unknown')`),
    check('plan_changes_status_check', oneOf(t.status, PLAN_CHANGE_STATUSES)),
  ],
);
