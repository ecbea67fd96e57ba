import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
import { stores } from './stores';

export const COUPON_DURATIONS = ['once', 'repeating', 'forever'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

/**
 * A discount's terms as redeemed, copied onto the session, order, invoice or subscription that
 * uses it, so later changes to the coupon never change a discount already granted.
 * `applies_to` is kept for the subscription's renewals (a plan outside it is not discounted).
 */
export interface DiscountTerms {
  coupon: string;
  promotion_code: string | null;
  /** What the customer sees: the code as the store wrote it, else the coupon's name. */
  label: string;
  name: string;
  percent_off: number | null;
  amount_off: number | null;
  duration: CouponDuration;
  duration_in_months: number | null;
  applies_to: string[] | null;
}

/**
 * Coupons (`cpn_<env>_…`): a discount a store offers. Redemptions are counted twice over: those
 * paid (`times_redeemed`) and those held by a payment at the gateway right now
 * (`redemptions_held`), so the last redemption of a limited coupon goes to exactly one buyer.
 */
export const coupons = pgTable(
  'coupons',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    name: text('name').notNull(),
    percentOff: integer('percent_off'),
    amountOff: integer('amount_off'),
    currency: text('currency').notNull(),
    duration: text('duration').$type<CouponDuration>().notNull(),
    durationInMonths: integer('duration_in_months'),
    maxRedemptions: integer('max_redemptions'),
    redeemBy: timestamptz('redeem_by'),
    /** The products it discounts; null: every line. */
    appliesTo: json('applies_to').$type<string[]>(),
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    timesRedeemed: integer('times_redeemed').notNull().default(0),
    redemptionsHeld: integer('redemptions_held').notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
    /** Deleted coupons stay for the discounts they granted; every read but those treats them as gone. */
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [
    index('coupons_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()).where(sql`${t.deletedAt} is null`),
    check('coupons_duration_check', oneOf(t.duration, COUPON_DURATIONS)),
    check('coupons_one_amount', sql`(${t.percentOff} is null) <> (${t.amountOff} is null)`),
    check('coupons_months_for_repeating', sql`(${t.duration} = 'repeating') = (${t.durationInMonths} is not null)`),
    check('coupons_redemptions', sql`${t.timesRedeemed} >= 0 and ${t.redemptionsHeld} >= 0 and (${t.maxRedemptions} is null or ${t.timesRedeemed} + ${t.redemptionsHeld} <= ${t.maxRedemptions})`),
  ],
);

/** Promotion codes (`promo_<env>_…`): a code customers type for a coupon; unique in a store and environment in any case. */
export const promotionCodes = pgTable(
  'promotion_codes',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    couponId: text('coupon_id')
      .notNull()
      .references(() => coupons.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    maxRedemptions: integer('max_redemptions'),
    expiresAt: timestamptz('expires_at'),
    active: boolean('active').notNull(),
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    timesRedeemed: integer('times_redeemed').notNull().default(0),
    redemptionsHeld: integer('redemptions_held').notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('promotion_codes_code_unique').on(t.storeId, t.livemode, sql`lower(${t.code})`),
    index('promotion_codes_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('promotion_codes_coupon_idx').on(t.couponId),
    check(
      'promotion_codes_redemptions',
      sql`${t.timesRedeemed} >= 0 and ${t.redemptionsHeld} >= 0 and (${t.maxRedemptions} is null or ${t.timesRedeemed} + ${t.redemptionsHeld} <= ${t.maxRedemptions})`,
    ),
  ],
);
