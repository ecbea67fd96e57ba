/**
 * The public contract of subscriptions: request schemas with
 * their field rules, and the response schemas as explicit allowlists.
 *
 * Check order of a create, first failure wins:
 * 1. the key (procedure base), then the availability gates: 503 `feature_unavailable`, 403
 *    `capability_disabled` (server/subscriptions/router.ts), before any lookup or validation;
 * 2. the `Idempotency-Key` format;
 * 3. fields with their own code: `currency`, `metadata`, `success_url` (below);
 * 4. the shape: unknown fields, types and ranges → `parameter_invalid`;
 * 5. how the fields combine (one of `price_id` or `amount`, what each mode refuses);
 * 6. what needs the database or the environment (the price, https in live mode; the service).
 */
import { buyerTaxFields, paidBuyerTaxFields } from '../kit/taxation-schemas';
import { discountSchema, subscriptionDiscountSchema } from '../kit/discount-schemas';
import { z } from 'zod';
import { CANCELLATION_TYPES, PLAN_CHANGE_PRORATIONS, SUBSCRIPTION_CHECKOUT_STATUSES, SUBSCRIPTION_STATUSES } from '@/db/schema';
import { answeredAs, EXAMPLE } from '../kit/examples';
import { isAbsoluteHttpUrl, MAX_EMAIL_LENGTH, MAX_URL_LENGTH, MIN_AMOUNT } from '../kit/fields';
import { pageFields } from '../kit/list';
import { metadataInputSchema, metadataOutputSchema, metadataProblem, METADATA_MAX_KEYS } from '../kit/metadata';
import type { ErrorCode } from '../errors';
import { strict } from '../kit/json-schema';
import { PRICE_INTERVALS } from '../products/schemas';

export const MAX_TOTAL_PAYMENTS = 10_000;
export const MAX_INTERVAL_COUNT = 365;
export const MAX_TRIAL_DAYS = 365;
/** Amounts stay within the 32-bit amount columns (as product prices do). */
export const MAX_SUBSCRIPTION_AMOUNT = 99_999_999;

type IssueSink = { issues: z.core.$ZodRawIssue[] };

function refuse(ctx: IssueSink, input: unknown, apiCode: ErrorCode, path: PropertyKey[], message: string): void {
  ctx.issues.push({ code: 'custom', message, path, input, params: { apiCode } });
}

/** Step 3: `currency`, `metadata` and `success_url` answer their own codes, before the shape. */
function checkingOwnCodeFields<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const body = value as Record<string, unknown>;
    if (Object.hasOwn(body, 'currency')) {
      refuse(ctx, value, 'currency_unsupported', ['currency'], 'Subscriptions always bill in EUR: remove `currency`. Amounts are integers in euro cents.');
      return value;
    }
    const problem = metadataProblem(body.metadata);
    if (problem) {
      refuse(ctx, value, 'metadata_invalid', problem.key ? ['metadata', problem.key] : ['metadata'], problem.message);
      return value;
    }
    const url = body.success_url;
    if (url !== undefined && (typeof url !== 'string' || !isAbsoluteHttpUrl(url))) {
      refuse(ctx, value, 'invalid_success_url', ['success_url'], `\`success_url\` must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters.`);
    }
    return value;
  }, schema);
}

const metadataValue = metadataInputSchema.nullable();

const metadataField = metadataValue
  .optional()
  .describe(`Up to ${METADATA_MAX_KEYS} keys of 1–40 characters; values are strings of at most 500 characters (numbers and booleans are turned into strings). Echoed verbatim.`);

const plainText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((value) => value.trim() !== '' && !/[\u0000-\u001f\u007f]/.test(value), 'must be plain text on one line');

const createFields = z.strictObject({
  price_id: z.string().min(1).max(255).optional().describe('Price mode: a recurring price of the store, `price_test_…` (the `price_` prefix may be left out).'),
  amount: strict(z.number().int().min(MIN_AMOUNT).max(MAX_SUBSCRIPTION_AMOUNT)).optional().describe(`Plan mode: cents charged every cycle, at least ${MIN_AMOUNT}.`),
  interval: z.enum(PRICE_INTERVALS).optional().describe('Plan mode, required: `day`, `week`, `month` or `year`.'),
  interval_count: strict(z.number().int().min(1).max(MAX_INTERVAL_COUNT)).optional().describe(`Plan mode: intervals between charges, 1–${MAX_INTERVAL_COUNT}; default 1.`),
  plan_name: plainText(255).optional().describe('Plan mode, required: shown on the hosted page; 1–255 characters.'),
  total_payments: strict(z.number().int().min(1).max(MAX_TOTAL_PAYMENTS)).describe(`Required: the number of charges, the first included, before the schedule ends (1–${MAX_TOTAL_PAYMENTS}).`),
  customer_email: z.email().max(MAX_EMAIL_LENGTH).describe('Required: shown prefilled and read-only on the hosted page.'),
  customer_name: plainText(255).optional().describe('Prefilled on the hosted page; 1–255 characters.'),
  success_url: z.string().optional().describe(`Absolute URL (https in live mode), at most ${MAX_URL_LENGTH} characters; \`checkout_id\` and \`subscription_id\` are appended after payment.`),
  metadata: metadataField,
  expires_at: strict(z.number().int()).optional().describe('Epoch seconds; clamped to between 30 minutes and 24 hours from now (never rejected). Default: 24 hours. The hosted link dies with it.'),
  trial_days: strict(z.number().int().min(1).max(MAX_TRIAL_DAYS))
    .optional()
    .describe(
      `Days free (1–${MAX_TRIAL_DAYS}): the card is checked without a charge, and the first charge is made when the trial ends. One trial per e-mail address and product (price mode) or plan name (plan mode): else 400 \`trial_already_used\`.`,
    ),
  discounts: z
    .array(z.union([z.strictObject({ coupon: z.string().min(1).max(255) }), z.strictObject({ promotion_code: z.string().min(1).max(255) })]))
    .max(1)
    .optional()
    .describe('At most one discount for the first charges: `{ coupon }` or `{ promotion_code }` (ids). Cannot be sent with `allow_promotion_codes`.'),
  allow_promotion_codes: z.boolean().optional().describe('Shows a promotion code field on the hosted page. Cannot be sent with `discounts`.'),
});

/** Step 5: exactly one of `price_id` (price mode) or `amount` (plan mode), and what each mode needs or refuses. */
function checkCombination(body: z.infer<typeof createFields>, ctx: IssueSink): void {
  if (body.discounts !== undefined && body.allow_promotion_codes === true) {
    refuse(ctx, body, 'parameter_invalid', ['allow_promotion_codes'], 'Send either `discounts` or `allow_promotion_codes`, not both.');
    return;
  }
  if ((body.price_id === undefined) === (body.amount === undefined)) {
    refuse(ctx, body, 'parameter_invalid', body.price_id === undefined ? [] : ['amount'], 'Send exactly one of `price_id` (price mode) or `amount` (plan mode).');
    return;
  }
  if (body.price_id !== undefined) {
    for (const field of ['interval', 'interval_count', 'plan_name'] as const) {
      if (body[field] !== undefined) {
        refuse(ctx, body, 'parameter_invalid', [field], `\`${field}\` cannot be sent with \`price_id\`: the price's catalog entry decides it.`);
        return;
      }
    }
    return;
  }
  for (const field of ['interval', 'plan_name'] as const) {
    if (body[field] === undefined) {
      refuse(ctx, body, 'parameter_invalid', [field], `\`${field}\` is required with \`amount\` (plan mode).`);
      return;
    }
  }
}

export const createSubscriptionInput = checkingOwnCodeFields(createFields.superRefine(checkCombination)).meta({
  examples: [
    {
      amount: 990,
      interval: 'month',
      plan_name: 'Monthly membership',
      total_payments: 12,
      customer_email: EXAMPLE.customerEmail,
      success_url: 'https://shop.example.com/welcome',
      trial_days: 14,
      allow_promotion_codes: true,
    },
  ],
});
export type CreateSubscriptionInput = z.infer<typeof createSubscriptionInput>;

/** The form of a subscription id, for the hosted pages that take one from a URL or a form. */
export const SUBSCRIPTION_ID = /^sub_(test|live)_[0-9A-Za-z]{1,64}$/;

export const subscriptionIdParam = z
  .string()
  .min(1)
  .max(255)
  .describe('The subscription id, `sub_…`.')
  .meta({ examples: [EXAMPLE.subscriptionId] });

export const retrieveSubscriptionCheckoutInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(255)
    .describe('The subscription checkout id, `subchk_…`.')
    .meta({ examples: [EXAMPLE.subscriptionCheckoutId] }),
});
export const retrieveSubscriptionInput = z.strictObject({ id: subscriptionIdParam });

export const updatePaymentMethodLinkInput = z.strictObject({ id: subscriptionIdParam });

/** Update: `metadata` is the only mutable field; anything else is refused, never ignored. */
export const updateSubscriptionInput = z
  .preprocess(
    (value, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const other = Object.keys(value).find((field) => field !== 'id' && field !== 'metadata');
      if (other !== undefined) {
        refuse(ctx, value, 'parameter_invalid', [other], `\`${other}\` cannot be changed: only \`metadata\` is mutable. To change the amount or schedule, cancel and create a new subscription.`);
        return value;
      }
      const problem = metadataProblem((value as Record<string, unknown>).metadata);
      if (problem) refuse(ctx, value, 'metadata_invalid', problem.key ? ['metadata', problem.key] : ['metadata'], problem.message);
      return value;
    },
    z.strictObject({
      id: subscriptionIdParam,
      metadata: metadataValue.describe('Required: replaces the stored metadata as a whole (`{}` or null clears it).'),
    }),
  )
  .meta({ examples: [{ metadata: { member_id: 'M-77' } }] });

const changeFields = z.strictObject({
  id: subscriptionIdParam,
  price_id: createFields.shape.price_id.describe('The new plan: a recurring price of the store, `price_test_…`.'),
  amount: createFields.shape.amount.describe(`Or the new plan by amount: cents charged every cycle, at least ${MIN_AMOUNT}; \`price_id\` and \`product_id\` become null.`),
  interval: createFields.shape.interval.describe('With `amount`, required: `day`, `week`, `month` or `year`.'),
  interval_count: createFields.shape.interval_count.describe(`With \`amount\`: intervals between charges, 1–${MAX_INTERVAL_COUNT}; default 1.`),
  plan_name: createFields.shape.plan_name.describe('With `amount`: the new plan’s name; the current one is kept when left out.'),
  proration: z
    .enum(PLAN_CHANGE_PRORATIONS)
    .optional()
    .describe(
      '`prorate_now` (default): the change applies now, the unused time of the old plan credited and the remaining time of the new one charged; `next_period`: it applies at the next renewal.',
    ),
});

/** Exactly one of `price_id` or `amount`; `interval` with `amount`; nothing of plan mode beside a price. */
function checkChangeCombination(body: z.infer<typeof changeFields>, ctx: IssueSink): void {
  if ((body.price_id === undefined) === (body.amount === undefined)) {
    refuse(ctx, body, 'parameter_invalid', body.price_id === undefined ? [] : ['amount'], 'Send exactly one of `price_id` or `amount` (with `interval`).');
    return;
  }
  if (body.price_id !== undefined) {
    const field = (['interval', 'interval_count', 'plan_name'] as const).find((name) => body[name] !== undefined);
    if (field) refuse(ctx, body, 'parameter_invalid', [field], `\`${field}\` cannot be sent with \`price_id\`: the price's catalog entry decides it.`);
    return;
  }
  if (body.interval === undefined) refuse(ctx, body, 'parameter_invalid', ['interval'], '`interval` is required with `amount`.');
}

export const changeSubscriptionInput = changeFields
  .superRefine(checkChangeCombination)
  .meta({ examples: [{ amount: 9900, interval: 'year', plan_name: 'Pro plan (yearly)', proration: 'prorate_now' }] });
export type ChangeSubscriptionInput = z.infer<typeof changeSubscriptionInput>;

export const cancelSubscriptionInput = z.strictObject({ id: subscriptionIdParam });

/** The DELETE body (it reaches the procedure through the request state; the library drops DELETE bodies). */
export const cancelSubscriptionBody = z.strictObject({ reason: z.string().max(500).optional().describe('Why, for the audit trail; at most 500 characters.') }).optional();

export const listSubscriptionsInput = z.strictObject({
  ...pageFields,
  status: z.enum(SUBSCRIPTION_STATUSES).optional().describe('Only subscriptions in this status.'),
  customer_email: z.string().min(1).max(MAX_EMAIL_LENGTH).optional().describe('Only subscriptions of this email address (case-insensitive).'),
});
export type ListSubscriptionsQuery = z.infer<typeof listSubscriptionsInput>;

/** The list's filters without the page fields: what an export of every matching subscription takes. */
export const subscriptionListFilters = listSubscriptionsInput.omit({ limit: true, starting_after: true });
export type SubscriptionListFilters = z.infer<typeof subscriptionListFilters>;

/** As the create answers it: open, with its hosted `url`. */
const subscriptionCheckoutExample = {
  id: EXAMPLE.subscriptionCheckoutId,
  object: 'subscription.checkout',
  status: 'open',
  livemode: false,
  url: `${EXAMPLE.origin}/subscribe/${EXAMPLE.subscriptionCheckoutId}?expires=${EXAMPLE.created + 86_414}&signature=rqLWjIsX6hSx6iqD-kWVB58M6GsLkjqRyVcfShro0hU`,
  subscription: null,
  amount: 990,
  currency: 'eur',
  interval: 'month',
  interval_count: 1,
  total_payments: 12,
  plan_name: 'Monthly membership',
  price_id: null,
  product_id: null,
  customer_email: EXAMPLE.customerEmail,
  customer_name: null,
  success_url: 'https://shop.example.com/welcome',
  metadata: {},
  customer_details: null,
  tax_country: null,
  tax_treatment: null,
  trial_days: 14,
  discount: null,
  allow_promotion_codes: true,
  created: EXAMPLE.created + 14,
  expires_at: EXAMPLE.created + 86_414,
};

export const subscriptionCheckoutSchema = z
  .object({
    id: z.string().describe('`subchk_test_…` or `subchk_live_…`.'),
    object: z.literal('subscription.checkout'),
    status: z.enum(SUBSCRIPTION_CHECKOUT_STATUSES),
    livemode: z.boolean(),
    url: z.string().nullable().describe('The hosted page: a signed, single-use link valid until `expires_at`, re-signed on each read while open; null once complete or expired.'),
    subscription: z.string().nullable().describe('The subscription (`sub_…`) once the customer has made the payment attempt; else null.'),
    amount: z.number().int().describe('Cents, charged every cycle.'),
    currency: z.literal('eur'),
    interval: z.enum(PRICE_INTERVALS),
    interval_count: z.number().int(),
    total_payments: z.number().int(),
    plan_name: z.string(),
    price_id: z.string().nullable().describe('Price mode: the recurring price. Null in plan mode.'),
    product_id: z.string().nullable().describe('Price mode: the price’s product. Null in plan mode.'),
    customer_email: z.string(),
    customer_name: z.string().nullable(),
    success_url: z.string().nullable(),
    metadata: metadataOutputSchema,
    ...buyerTaxFields,
    trial_days: z.number().int().nullable().describe('Days free before the first charge; null without a trial.'),
    discount: discountSchema.nullable().describe('The discount the first charges get: given at creation, or the code the customer applied on the page.'),
    allow_promotion_codes: z.boolean(),
    created: z.number().int(),
    expires_at: z.number().int(),
  })
  .meta({ id: 'SubscriptionCheckout', examples: [subscriptionCheckoutExample] });
export type SubscriptionCheckout = z.infer<typeof subscriptionCheckoutSchema>;

export const subscriptionCardSchema = z
  .object({
    brand: z.string().describe('`visa`, `mastercard`, …'),
    last4: z.string(),
  })
  .meta({ id: 'SubscriptionCard', examples: [{ brand: 'visa', last4: '4242' }] });

export const cancellationSchema = z
  .object({
    declared_at: z.number().int().describe('When the customer declared it.'),
    type: z
      .enum(CANCELLATION_TYPES)
      .describe('`ordinary`: at the end of the period; `extraordinary`: the customer asked for an end as soon as possible, with a reason (the store decides, and may cancel at once).'),
    reason: z.string().nullable(),
  })
  .meta({ id: 'SubscriptionCancellation', examples: [{ declared_at: EXAMPLE.created + 86_400, type: 'ordinary', reason: null }] });

export const pendingChangeSchema = z
  .object({
    price_id: z.string().nullable(),
    product_id: z.string().nullable(),
    plan_name: z.string(),
    amount: z.number().int(),
    interval: z.enum(PRICE_INTERVALS),
    interval_count: z.number().int(),
    effective_at: z.number().int().describe('The renewal that switches to this plan: the current period’s end.'),
  })
  .meta({
    id: 'SubscriptionPendingChange',
    examples: [{ price_id: null, product_id: null, plan_name: 'Pro plan (yearly)', amount: 9900, interval: 'year', interval_count: 1, effective_at: EXAMPLE.created + 14 + 30 * 86_400 }],
  });

/** Active after its first payment, billed next a month later. */
const subscriptionExample = {
  id: EXAMPLE.subscriptionId,
  object: 'subscription',
  status: 'active',
  livemode: false,
  currency: 'eur',
  amount: 990,
  interval: 'month',
  interval_count: 1,
  total_payments: 12,
  recurring_id: 'sim_rec_moW9aKpytKk6K0ieJ7hh93W6',
  card: { brand: 'visa', last4: '4242' },
  customer_id: EXAMPLE.customerId,
  customer_email: EXAMPLE.customerEmail,
  customer_name: null,
  product_id: null,
  price_id: null,
  failure_count: 0,
  current_period_start: EXAMPLE.created + 14,
  current_period_end: EXAMPLE.created + 14 + 30 * 86_400,
  next_billing_at: EXAMPLE.created + 14 + 30 * 86_400,
  trial_start: null,
  trial_end: null,
  cancel_at_period_end: false,
  cancel_at: null,
  cancellation: null,
  discount: null,
  pending_change: null,
  credit_balance: 0,
  canceled_at: null,
  cancel_reason: null,
  ended_at: null,
  metadata: { member_id: 'M-77' },
  customer_details: null,
  tax_country: null,
  tax_treatment: null,
  tax_evidence: null,
  evidence_conflict: null,
  created: EXAMPLE.created + 14,
};

export const subscriptionSchema = z
  .object({
    id: z.string().describe('`sub_test_…` or `sub_live_…`.'),
    object: z.literal('subscription'),
    status: z.enum(SUBSCRIPTION_STATUSES),
    livemode: z.boolean(),
    currency: z.literal('eur'),
    amount: z.number().int(),
    interval: z.enum(PRICE_INTERVALS),
    interval_count: z.number().int(),
    total_payments: z.number().int().describe('Charges in the whole schedule, the first included.'),
    recurring_id: z.string().describe('The recurring contract at the payment gateway; empty when the first charge failed.'),
    card: subscriptionCardSchema.nullable().describe('The card the next charge uses; null until a payment approved one (`incomplete`).'),
    customer_id: z.string().nullable(),
    customer_email: z.string(),
    customer_name: z.string().nullable(),
    product_id: z.string().nullable(),
    price_id: z.string().nullable(),
    failure_count: z.number().int(),
    current_period_start: z.number().int(),
    current_period_end: z.number().int(),
    next_billing_at: z.number().int().describe('When the next charge is due.'),
    trial_start: z.number().int().nullable().describe('When the free trial began; null without one.'),
    trial_end: z.number().int().nullable().describe('When the free trial ends and the first charge is made; null without one.'),
    cancel_at_period_end: z.boolean().describe('True when the subscription ends at `cancel_at` instead of renewing.'),
    cancel_at: z.number().int().nullable().describe('When a scheduled end takes effect: the end of the current period.'),
    cancellation: cancellationSchema.nullable().describe("The customer's declaration on the cancel page that scheduled the end; null otherwise."),
    discount: subscriptionDiscountSchema.nullable().describe('The discount redeemed at the checkout, as redeemed; null without one.'),
    pending_change: pendingChangeSchema.nullable().describe('A plan change waiting for the next renewal; null without one.'),
    credit_balance: z.number().int().describe('Cents a plan change left to the customer, taken off the next charges.'),
    canceled_at: z.number().int().nullable(),
    cancel_reason: z.string().nullable().describe('The `reason` given to the cancel request, or `dispute_lost` when a lost dispute of its payment ended it; else null.'),
    ended_at: z.number().int().nullable(),
    metadata: metadataOutputSchema,
    ...paidBuyerTaxFields,
    created: z.number().int(),
  })
  .meta({ id: 'Subscription', examples: [subscriptionExample] });

/** Cancel answers it canceled at once, its schedule ended. */
export const canceledSubscriptionSchema = answeredAs(subscriptionSchema, {
  status: 'canceled',
  canceled_at: EXAMPLE.created + 20,
  ended_at: EXAMPLE.created + 20,
});

export const subscriptionListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(subscriptionSchema),
    has_more: z.boolean().describe('Whether another page follows; fetch it with `starting_after` = the last id of `data`.'),
  })
  .meta({ id: 'SubscriptionList', examples: [{ object: 'list', data: [subscriptionExample], has_more: false }] });
export type SubscriptionList = z.infer<typeof subscriptionListSchema>;

export const paymentMethodLinkSchema = z
  .object({
    url: z.string().describe('The page where the customer gives a new card for this subscription; reusable until `expires_at`.'),
    expires_at: z.number().int().describe('Seven days from now.'),
  })
  .meta({
    id: 'PaymentMethodLink',
    examples: [
      {
        url: `https://pay.example.com/payment-method/${EXAMPLE.subscriptionId}?expires=${EXAMPLE.created + 7 * 86_400}&signature=3q2-7wHJd0Xh2J9fLQ3k1Zp8bW5yR6tN4mC0vA7sE2g`,
        expires_at: EXAMPLE.created + 7 * 86_400,
      },
    ],
  });
