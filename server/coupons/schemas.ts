/**
 * The public contract of coupons and promotion codes: request schemas with their field rules, and
 * response schemas as explicit allowlists (the redemption holds stay internal).
 *
 * Check order of a create, first failure wins: `currency` and `metadata` (their own codes), the
 * shape (unknown fields, types, ranges), how the fields combine, then what needs the store's clock
 * or the database (`redeem_by`, `expires_at`, the products, the coupon; the service).
 */
import { z } from 'zod';
import { COUPON_DURATIONS } from '@/db/schema';
import type { ErrorCode } from '../errors';
import { EXAMPLE } from '../kit/examples';
import { queryBoolean, strict } from '../kit/json-schema';
import { createdRangeFields, idFilter, listSchema, MAX_EPOCH_SECONDS, pageFields } from '../kit/list';
import { metadataInputSchema, metadataOutputSchema, metadataProblem, METADATA_MAX_KEYS } from '../kit/metadata';

const COUPON_EXAMPLE_ID = 'cpn_test_7Jq2fXcW9kRb3LmN5pT8vYzA';
const PROMOTION_CODE_EXAMPLE_ID = 'promo_test_Hs4dK8wQ2nVb6ZcX1mL9pR3T';

export const MAX_AMOUNT_OFF = 1_000_000;
export const MAX_DURATION_IN_MONTHS = 120;
export const MAX_APPLIES_TO_PRODUCTS = 100;
/** What a customer may type: 3–40 letters, digits, `-` and `_`. */
export const PROMOTION_CODE_PATTERN = /^[A-Za-z0-9_-]{3,40}$/;

type IssueSink = { issues: z.core.$ZodRawIssue[] };

function refuse(ctx: IssueSink, input: unknown, apiCode: ErrorCode, path: PropertyKey[], message: string): void {
  ctx.issues.push({ code: 'custom', message, path, input, params: { apiCode } });
}

/** `currency` (coupons only) and `metadata` answer their own codes, before the shape. */
function checkingOwnCodeFields<T extends z.ZodType>(schema: T, options: { currency: boolean }) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const body = value as Record<string, unknown>;
    if (options.currency && Object.hasOwn(body, 'currency') && body.currency !== 'eur') {
      refuse(ctx, value, 'currency_unsupported', ['currency'], 'Coupons are always in EUR: send `currency: "eur"` or leave it out. `amount_off` is in euro cents.');
      return value;
    }
    const problem = metadataProblem(body.metadata);
    if (problem) refuse(ctx, value, 'metadata_invalid', problem.key ? ['metadata', problem.key] : ['metadata'], problem.message);
    return value;
  }, schema);
}

const metadataField = metadataInputSchema
  .nullable()
  .optional()
  .describe(`Up to ${METADATA_MAX_KEYS} keys of 1–40 characters; values are strings of at most 500 characters (numbers and booleans are turned into strings). Echoed verbatim.`);

const epochField = strict(z.number().int().min(0).max(MAX_EPOCH_SECONDS));
const redemptionLimit = strict(z.number().int().min(1).max(2_147_483_647));

const couponFields = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(255)
    .refine((name) => name.trim() !== '', 'must not be blank')
    .describe('1–255 characters, shown to customers (`Discount (<name>)`) when the coupon is given without a code.'),
  percent_off: strict(z.number().int().min(1).max(100)).optional().describe('Percent off each line it applies to, 1–100. Send this or `amount_off`.'),
  amount_off: strict(z.number().int().min(1).max(MAX_AMOUNT_OFF)).optional().describe(`Cents off, 1–${MAX_AMOUNT_OFF}, spread over the lines it applies to. Send this or \`percent_off\`.`),
  currency: z.literal('eur').optional().describe('Only `eur`; anything else is refused with `currency_unsupported`.'),
  duration: z.enum(COUPON_DURATIONS).describe('For subscriptions: `once` (the first charge), `repeating` (`duration_in_months`), `forever`.'),
  duration_in_months: strict(z.number().int().min(1).max(MAX_DURATION_IN_MONTHS)).optional().describe(`1–${MAX_DURATION_IN_MONTHS}: required with \`duration: "repeating"\`, refused otherwise.`),
  max_redemptions: redemptionLimit.optional().describe('How many paid orders and subscriptions may redeem it, at least 1; unlimited when omitted.'),
  redeem_by: epochField.optional().describe('Epoch seconds, in the future (on the store’s clock): it cannot be redeemed from then on.'),
  applies_to: z
    .strictObject({
      products: z.array(z.string().min(1).max(255)).min(1).max(MAX_APPLIES_TO_PRODUCTS).describe(`1–${MAX_APPLIES_TO_PRODUCTS} product ids of this store and environment.`),
    })
    .optional()
    .describe('The products it discounts; every line when omitted.'),
  metadata: metadataField,
});

/** Exactly one of `percent_off` and `amount_off`; `duration_in_months` with `repeating` only. */
function checkCouponCombination(body: z.infer<typeof couponFields>, ctx: IssueSink): void {
  if (body.percent_off !== undefined && body.amount_off !== undefined) {
    refuse(ctx, body, 'parameter_invalid', ['amount_off'], 'Send `percent_off` or `amount_off`, not both.');
    return;
  }
  if (body.percent_off === undefined && body.amount_off === undefined) {
    refuse(ctx, body, 'parameter_invalid', ['percent_off'], 'Send one of `percent_off` (1–100) or `amount_off` (cents).');
    return;
  }
  if (body.duration === 'repeating' && body.duration_in_months === undefined) {
    refuse(ctx, body, 'parameter_invalid', ['duration_in_months'], '`duration_in_months` is required with `duration: "repeating"`.');
    return;
  }
  if (body.duration !== 'repeating' && body.duration_in_months !== undefined) {
    refuse(ctx, body, 'parameter_invalid', ['duration_in_months'], '`duration_in_months` is only allowed with `duration: "repeating"`.');
  }
}

export const createCouponInput = checkingOwnCodeFields(couponFields.superRefine(checkCouponCombination), { currency: true }).meta({
  examples: [{ name: 'Summer sale', percent_off: 15, duration: 'repeating', duration_in_months: 3, max_redemptions: 100 }],
});
export type CreateCouponInput = z.infer<typeof createCouponInput>;

export const couponIdParam = z
  .string()
  .min(1)
  .describe('The coupon id, `cpn_…`.')
  .meta({ examples: [COUPON_EXAMPLE_ID] });

export const retrieveCouponInput = z.strictObject({ id: couponIdParam });
export const deleteCouponInput = z.strictObject({ id: couponIdParam });

export const listCouponsInput = z.strictObject({ ...pageFields, ...createdRangeFields });
export type ListCouponsQuery = z.infer<typeof listCouponsInput>;

const couponExample = {
  id: COUPON_EXAMPLE_ID,
  object: 'coupon' as const,
  livemode: false,
  name: 'Summer sale',
  percent_off: 15,
  amount_off: null,
  currency: 'eur' as const,
  duration: 'repeating' as const,
  duration_in_months: 3,
  max_redemptions: 100,
  redeem_by: null,
  applies_to: { products: [EXAMPLE.productId] },
  metadata: {},
  times_redeemed: 0,
  valid: true,
  created: EXAMPLE.created + 30,
};

export const couponSchema = z
  .object({
    id: z.string().describe('`cpn_test_…` or `cpn_live_…`.'),
    object: z.literal('coupon'),
    livemode: z.boolean(),
    name: z.string(),
    percent_off: z.number().int().nullable(),
    amount_off: z.number().int().nullable().describe('Cents; null for a percentage.'),
    currency: z.literal('eur'),
    duration: z.enum(COUPON_DURATIONS),
    duration_in_months: z.number().int().nullable(),
    max_redemptions: z.number().int().nullable(),
    redeem_by: z.number().int().nullable(),
    applies_to: z
      .object({ products: z.array(z.string()) })
      .nullable()
      .describe('The products it discounts; null: every line.'),
    metadata: metadataOutputSchema,
    times_redeemed: z.number().int().describe('Paid orders and subscriptions that redeemed it.'),
    valid: z.boolean().describe('False once `redeem_by` has passed (on the store’s clock) or `max_redemptions` is reached.'),
    created: z.number().int(),
  })
  .meta({ id: 'Coupon', examples: [couponExample] });
export type Coupon = z.infer<typeof couponSchema>;

export const couponListSchema = listSchema(couponSchema, '/api/v1/coupons', 'CouponList');
export type CouponList = z.infer<typeof couponListSchema>;

export const deletedCouponSchema = z
  .object({ id: z.string(), object: z.literal('coupon'), deleted: z.literal(true), livemode: z.boolean() })
  .meta({ id: 'DeletedCoupon', examples: [{ id: COUPON_EXAMPLE_ID, object: 'coupon', deleted: true, livemode: false }] });
export type DeletedCoupon = z.infer<typeof deletedCouponSchema>;

export const createPromotionCodeInput = checkingOwnCodeFields(
  z.strictObject({
    coupon: z.string().min(1).max(255).describe('The coupon it grants, `cpn_…`.'),
    code: z
      .string()
      .regex(PROMOTION_CODE_PATTERN, 'must be 3–40 letters, digits, "-" or "_"')
      .describe('What customers type: 3–40 of `A–Z a–z 0–9 - _`, unique in the store and environment in any case.'),
    max_redemptions: redemptionLimit.optional().describe('How many paid orders and subscriptions may redeem this code, at least 1; unlimited when omitted.'),
    expires_at: epochField.optional().describe('Epoch seconds, in the future (on the store’s clock): it cannot be redeemed from then on.'),
    active: strict(z.boolean()).optional().describe('Default true.'),
    metadata: metadataField,
  }),
  { currency: false },
).meta({ examples: [{ coupon: COUPON_EXAMPLE_ID, code: 'SUMMER25', max_redemptions: 50 }] });
export type CreatePromotionCodeInput = z.infer<typeof createPromotionCodeInput>;

export const promotionCodeIdParam = z
  .string()
  .min(1)
  .describe('The promotion code id, `promo_…`.')
  .meta({ examples: [PROMOTION_CODE_EXAMPLE_ID] });

export const retrievePromotionCodeInput = z.strictObject({ id: promotionCodeIdParam });

export const updatePromotionCodeInput = checkingOwnCodeFields(
  z.strictObject({
    id: promotionCodeIdParam,
    active: strict(z.boolean()).optional().describe('False: it can no longer be redeemed.'),
    metadata: metadataField.describe('Replaces the stored metadata as a whole (`{}` or null clears it).'),
  }),
  { currency: false },
).meta({ examples: [{ active: false }] });
export type UpdatePromotionCodeBody = Omit<z.infer<typeof updatePromotionCodeInput>, 'id'>;

export const listPromotionCodesInput = z.strictObject({
  ...pageFields,
  coupon: idFilter('cpn', 'Only the codes of this coupon.'),
  code: z.string().regex(PROMOTION_CODE_PATTERN, 'must be 3–40 letters, digits, "-" or "_"').optional().describe('Only the code with this text, in any case.'),
  active: queryBoolean().optional().describe('`true` or `false`: only active or inactive codes.'),
  ...createdRangeFields,
});
export type ListPromotionCodesQuery = z.infer<typeof listPromotionCodesInput>;

export const promotionCodeSchema = z
  .object({
    id: z.string().describe('`promo_test_…` or `promo_live_…`.'),
    object: z.literal('promotion_code'),
    livemode: z.boolean(),
    coupon: z.string().describe('The coupon it grants, `cpn_…`.'),
    code: z.string().describe('As the store wrote it; customers may type it in any case.'),
    active: z.boolean().describe('False once deactivated, or when its coupon was deleted.'),
    max_redemptions: z.number().int().nullable(),
    expires_at: z.number().int().nullable(),
    times_redeemed: z.number().int(),
    metadata: metadataOutputSchema,
    created: z.number().int(),
  })
  .meta({
    id: 'PromotionCode',
    examples: [
      {
        id: PROMOTION_CODE_EXAMPLE_ID,
        object: 'promotion_code',
        livemode: false,
        coupon: COUPON_EXAMPLE_ID,
        code: 'SUMMER25',
        active: true,
        max_redemptions: 50,
        expires_at: null,
        times_redeemed: 0,
        metadata: {},
        created: EXAMPLE.created + 35,
      },
    ],
  });
export type PromotionCode = z.infer<typeof promotionCodeSchema>;

export const promotionCodeListSchema = listSchema(promotionCodeSchema, '/api/v1/promotion_codes', 'PromotionCodeList');
export type PromotionCodeList = z.infer<typeof promotionCodeListSchema>;
