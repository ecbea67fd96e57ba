/**
 * The public contract of checkout sessions: request schemas with
 * their field rules, and the response schema as an explicit allowlist.
 *
 * Check order of a create, first failure wins:
 * 1. the key (procedure base);
 * 2. `Idempotency-Key` format, then `amount` without the store's permission →
 *    `amount_mode_unsupported` whatever else the body holds (server/checkout/router.ts);
 * 3. fields with their own code: `currency`, `metadata`, `success_url`, `cancel_url` (below);
 * 4. the shape: unknown fields, types and ranges → `parameter_invalid`;
 * 5. how the fields combine (one mode selector, `quantity` and `description` rules);
 * 6. what needs the database or the environment (prices, https in live mode; the service).
 */
import { buyerTaxFields } from '../kit/taxation-schemas';
import { z } from 'zod';
import { CHECKOUT_STATUSES, PAYMENT_STATUSES } from '@/db/schema';
import { strict } from '../kit/json-schema';
import type { ErrorCode } from '../errors';
import { discountSchema } from '../kit/discount-schemas';
import { answeredAs, EXAMPLE } from '../kit/examples';
import { isAbsoluteHttpUrl, MAX_EMAIL_LENGTH, MAX_URL_LENGTH, MIN_AMOUNT } from '../kit/fields';
import { createdRangeFields, emailFilter, listSchema, pageFields } from '../kit/list';
import { metadataInputSchema, metadataOutputSchema, metadataProblem, METADATA_MAX_KEYS } from '../kit/metadata';

export const MAX_QUANTITY = 100;
export const MAX_LINE_ITEMS = 100;
export const MAX_AMOUNT = 1_000_000;

type IssueSink = { issues: z.core.$ZodRawIssue[] };

function refuse(ctx: IssueSink, input: unknown, apiCode: ErrorCode, path: PropertyKey[], message: string): void {
  ctx.issues.push({ code: 'custom', message, path, input, params: { apiCode } });
}

const URL_FIELDS = [
  ['success_url', 'invalid_success_url'],
  ['cancel_url', 'invalid_cancel_url'],
] as const;

/**
 * Step 3: the fields with their own error code are judged before the shape, so that
 * `{ price_id, currency: "usd" }` hears `currency_unsupported`, not about an unknown field.
 */
function checkingOwnCodeFields<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const body = value as Record<string, unknown>;
    if (Object.hasOwn(body, 'currency')) {
      refuse(ctx, value, 'currency_unsupported', ['currency'], 'Checkout sessions are always in EUR: remove `currency`. Amounts are integers in euro cents.');
      return value;
    }
    const problem = metadataProblem(body.metadata);
    if (problem) {
      // An empty key cannot be named in `param`: blame the object itself.
      refuse(ctx, value, 'metadata_invalid', problem.key ? ['metadata', problem.key] : ['metadata'], problem.message);
      return value;
    }
    for (const [field, code] of URL_FIELDS) {
      const url = body[field];
      if (url !== undefined && (typeof url !== 'string' || !isAbsoluteHttpUrl(url))) {
        refuse(ctx, value, code, [field], `\`${field}\` must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters.`);
        return value;
      }
    }
    return value;
  }, schema);
}

const quantity = strict(z.number().int().min(1).max(MAX_QUANTITY));
const priceId = z.string().min(1).max(255);

/** `description` is plain text, so no control characters and nothing that reads as markup. */
function isPlainText(value: string): boolean {
  return value.trim() !== '' && !/[\u0000-\u001f\u007f]/.test(value) && !/<[A-Za-z/!?]/.test(value);
}

/** The fields of each mode; `sharedFields` go with any of them. */
const priceModeFields = {
  price_id: priceId.describe('Price mode: the price to sell, `price_test_…` (the `price_` prefix may be left out).'),
  quantity: quantity.optional().describe(`Price mode only: 1–${MAX_QUANTITY}, default 1.`),
};
const lineItemsModeFields = {
  line_items: z
    .array(
      z.strictObject({
        price_id: priceId.describe('The price of this line (the `price_` prefix may be left out).'),
        quantity: quantity.optional().describe(`1–${MAX_QUANTITY}, default 1.`),
      }),
    )
    .min(1)
    .max(MAX_LINE_ITEMS)
    .describe(`Line items mode: 1–${MAX_LINE_ITEMS} entries; \`amount_total\` is their sum.`),
};
const amountModeFields = {
  amount: strict(z.number().int().min(MIN_AMOUNT).max(MAX_AMOUNT)).describe(`Amount mode (needs the account's amount-mode permission): ${MIN_AMOUNT}–${MAX_AMOUNT} cents.`),
  description: z.string().min(1).max(255).refine(isPlainText, 'must be plain text').describe('Amount mode only, and required there: 1–255 characters of plain text.'),
};
const sharedFields = {
  success_url: z.string().optional().describe(`Absolute URL (https in live mode), at most ${MAX_URL_LENGTH} characters; \`?session_id=…\` is appended after payment.`),
  cancel_url: z.string().optional().describe(`Absolute URL (https in live mode), at most ${MAX_URL_LENGTH} characters.`),
  customer_email: z.email().max(MAX_EMAIL_LENGTH).optional().describe(`Prefills the customer's email; at most ${MAX_EMAIL_LENGTH} characters.`),
  metadata: metadataInputSchema
    .nullable()
    .optional()
    .describe(`Up to ${METADATA_MAX_KEYS} keys of 1–40 characters; values are strings of at most 500 characters (numbers and booleans are turned into strings). Echoed verbatim.`),
  expires_at: strict(z.number().int()).optional().describe('Epoch seconds; clamped to between 30 minutes and 24 hours from now (never rejected). Default: 24 hours.'),
  discounts: z
    .array(
      z.union([
        z.strictObject({ coupon: z.string().min(1).max(255).describe('A coupon id, `cpn_…`.') }),
        z.strictObject({ promotion_code: z.string().min(1).max(255).describe('A promotion code id, `promo_…`.') }),
      ]),
    )
    .max(1)
    .optional()
    .describe('At most one discount, taken off the lines before tax: `[{ "coupon": "cpn_…" }]` or `[{ "promotion_code": "promo_…" }]`. Not with `allow_promotion_codes`.'),
  allow_promotion_codes: z.boolean().optional().describe('The hosted page offers a field for a promotion code. Not with `discounts`.'),
};

/** Every field optional: which combine is judged in step 5, so each refusal names its field and the fix. */
const createFields = z.strictObject({ ...priceModeFields, ...lineItemsModeFields, ...amountModeFields, ...sharedFields }).partial();

/** Step 5: exactly one mode selector, and the fields that belong to one mode only. */
function checkCombination(body: z.infer<typeof createFields>, ctx: IssueSink): void {
  const selectors = (['price_id', 'line_items', 'amount'] as const).filter((field) => body[field] !== undefined);
  if (selectors.length !== 1) {
    const message =
      selectors.length === 0
        ? 'Send exactly one of `price_id`, `line_items` or `amount`.'
        : `Send exactly one of \`price_id\`, \`line_items\` or \`amount\`, not ${selectors.map((field) => `\`${field}\``).join(' and ')}.`;
    refuse(ctx, body, 'parameter_invalid', selectors.length === 0 ? [] : [selectors[1]!], message);
    return;
  }
  if (body.quantity !== undefined && body.price_id === undefined) {
    refuse(ctx, body, 'parameter_invalid', ['quantity'], '`quantity` is for price mode only: give each line item its own `quantity`, or leave it out with `amount`.');
    return;
  }
  if (body.amount !== undefined && body.description === undefined) {
    refuse(ctx, body, 'parameter_invalid', ['description'], '`description` is required with `amount`: it tells the customer what they pay for.');
    return;
  }
  if (body.amount === undefined && body.description !== undefined) {
    refuse(ctx, body, 'parameter_invalid', ['description'], '`description` is only valid with `amount`: in price and line items mode the catalog describes what is sold.');
    return;
  }
  if (body.allow_promotion_codes === true && body.discounts !== undefined && body.discounts.length > 0) {
    refuse(ctx, body, 'parameter_invalid', ['allow_promotion_codes'], 'Send either `discounts` or `allow_promotion_codes`, not both: a session given a discount offers no code field.');
  }
}

export const createCheckoutSessionInput = checkingOwnCodeFields(createFields.superRefine(checkCombination));
export type CreateCheckoutSessionInput = z.infer<typeof createCheckoutSessionInput>;

/**
 * The create body as the OpenAPI document states it: exactly one mode, each with only its own
 * fields, so a client generated from the document refuses a body with no mode at compile time.
 * The service validates with createCheckoutSessionInput, whose refusals name the field and the fix.
 */
export const checkoutSessionModes = z
  .xor([
    z.strictObject({ ...priceModeFields, ...sharedFields }).meta({ title: 'Price mode', description: 'Sell one catalog price, `quantity` times.' }),
    z.strictObject({ ...lineItemsModeFields, ...sharedFields }).meta({ title: 'Line items mode', description: 'Sell a cart of catalog prices.' }),
    z.strictObject({ ...amountModeFields, ...sharedFields }).meta({ title: 'Amount mode', description: 'Charge a free amount for what `description` says.' }),
  ])
  .meta({
    description: 'Exactly one of `price_id`, `line_items` or `amount`, with the fields of that mode.',
    examples: [
      {
        price_id: EXAMPLE.priceId,
        success_url: 'https://shop.example.com/thanks',
        cancel_url: 'https://shop.example.com/cart',
        customer_email: EXAMPLE.customerEmail,
        metadata: { cart_id: 'cart_1042' },
      },
      { line_items: [{ price_id: EXAMPLE.priceId, quantity: 2 }], success_url: 'https://shop.example.com/thanks' },
      { amount: 4500, description: 'Consulting call, 30 minutes', success_url: 'https://shop.example.com/thanks' },
    ],
  });

export const checkoutSessionIdParam = z
  .string()
  .min(1)
  .max(255)
  .describe('The checkout session id, `cs_…`.')
  .meta({ examples: [EXAMPLE.checkoutSessionId] });

export const retrieveCheckoutSessionInput = z.strictObject({ id: checkoutSessionIdParam });
export const expireCheckoutSessionInput = z.strictObject({ id: checkoutSessionIdParam });

/**
 * Confirm: the body is not strict, so injected fields (amounts among them) are
 * accepted and ignored; they can never change what the session charges.
 */
const CLIENT_SECRET_EXAMPLE = `${EXAMPLE.checkoutSessionId}_secret_dmTsC8W1kkTJXZD4WAZIRJElmddi90EO`;

export const confirmCheckoutSessionInput = z
  .object({
    id: checkoutSessionIdParam,
    client_secret: z.string().max(512).describe('The session’s `client_secret`, from the creation response.'),
  })
  .meta({ examples: [{ client_secret: CLIENT_SECRET_EXAMPLE }] });

/** Paid, as a merchant reads it to fulfil; `url` and `client_secret` are gone once it is complete. */
const checkoutSessionExample = {
  id: EXAMPLE.checkoutSessionId,
  object: 'checkout.session',
  url: null,
  client_secret: null,
  status: 'complete',
  payment_status: 'paid',
  livemode: false,
  currency: 'eur',
  allow_promotion_codes: false,
  discount: null,
  amount_discount: 0,
  amount_subtotal: 1999,
  amount_tax: 380,
  amount_total: 2379,
  quantity: 1,
  price_id: EXAMPLE.priceId,
  product_id: EXAMPLE.productId,
  description: null,
  order_id: EXAMPLE.orderId,
  customer_email: EXAMPLE.customerEmail,
  success_url: 'https://shop.example.com/thanks',
  cancel_url: 'https://shop.example.com/cart',
  metadata: { cart_id: 'cart_1042' },
  customer_details: null,
  tax_country: null,
  tax_treatment: null,
  created: EXAMPLE.created + 8,
  expires_at: EXAMPLE.created + 86_408,
};

export const checkoutSessionSchema = z
  .object({
    id: z.string().describe('`cs_test_…` or `cs_live_…`.'),
    object: z.literal('checkout.session'),
    url: z.string().nullable().describe('The hosted payment page: a signed link valid until `expires_at`; null once the session is no longer open.'),
    client_secret: z.string().nullable().describe('Returned by the creation (and by its idempotent replay) only; null on every read. For the embedded confirm call.'),
    status: z.enum(CHECKOUT_STATUSES),
    payment_status: z.enum(PAYMENT_STATUSES).describe('Fulfil only when `status` is `complete` and this is `paid`.'),
    livemode: z.boolean(),
    currency: z.literal('eur'),
    allow_promotion_codes: z.boolean().describe('Whether the hosted page offers a field for a promotion code.'),
    discount: discountSchema.nullable().describe('The discount given at creation or applied with a code on the hosted page; null without one.'),
    amount_discount: z.number().int().describe('Cents taken off the lines before tax; 0 without a discount.'),
    amount_subtotal: z.number().int().describe('Cents, before tax, after the discount.'),
    amount_tax: z
      .number()
      .int()
      .describe('Cents; 0 unless tax calculation is enabled on the account and the price has a tax rate, or, where the store taxes by the buyer’s country, until the hosted page learns the country.'),
    amount_total: z.number().int().describe('Cents; in line items mode the sum of the lines.'),
    quantity: z.number().int().describe('Units sold; in line items mode the sum of the lines’ quantities, in amount mode 1.'),
    price_id: z.string().nullable().describe('Price mode: the price sold. Null in line items and amount mode (the lines are on the order).'),
    product_id: z.string().nullable().describe('Price mode: the product sold. Null in line items and amount mode.'),
    description: z.string().nullable().describe('Amount mode: what the customer pays for. Null otherwise.'),
    order_id: z.string().describe('The order (`ord_…`) created with the session, `pending` until paid.'),
    customer_email: z.string().nullable(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    metadata: metadataOutputSchema.describe('As sent, values as strings; `{}` when none.'),
    ...buyerTaxFields,
    created: z.number().int(),
    expires_at: z.number().int(),
  })
  .meta({ id: 'CheckoutSession', examples: [checkoutSessionExample] });
export type CheckoutSession = z.infer<typeof checkoutSessionSchema>;

/** The create's answer: open, with the hosted `url` and the `client_secret`. */
export const createdCheckoutSessionSchema = answeredAs(checkoutSessionSchema, {
  url: `${EXAMPLE.origin}/checkout/${EXAMPLE.checkoutSessionId}?expires=${EXAMPLE.created + 86_408}&signature=i8C_TR_--NqYmk_GT8brgFo1PiHx-idi78G4AFJ3BkA`,
  client_secret: CLIENT_SECRET_EXAMPLE,
  status: 'open',
  payment_status: 'unpaid',
});

export const expiredCheckoutSessionSchema = answeredAs(checkoutSessionSchema, { status: 'expired', payment_status: 'unpaid' });

/** The list query; unknown parameters are refused. */
export const listCheckoutSessionsInput = z.strictObject({
  ...pageFields,
  status: z.enum(CHECKOUT_STATUSES).optional().describe('Only sessions with this status; a session past `expires_at` counts as `expired`.'),
  payment_status: z.enum(PAYMENT_STATUSES).optional().describe('Only sessions with this payment status.'),
  customer_email: emailFilter('Only sessions created with this customer e-mail (case-insensitive).'),
  ...createdRangeFields,
});
export type ListCheckoutSessionsQuery = z.infer<typeof listCheckoutSessionsInput>;

export const checkoutSessionListSchema = listSchema(checkoutSessionSchema, '/api/v1/checkout/sessions', 'CheckoutSessionList');
export type CheckoutSessionList = z.infer<typeof checkoutSessionListSchema>;
