/**
 * A discount asked for by a checkout (a coupon or promotion code id) or typed by a customer on
 * the hosted page (a code, any case), resolved to the terms it grants now: the one check every
 * caller makes before a discount is shown or charged.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { coupons, promotionCodes, type DiscountTerms } from '@/db/schema';
import { ApiError, resourceMissing } from '../errors';
import { ownedBy, type Scope } from '../kit/scope';

type CouponRow = typeof coupons.$inferSelect;
type PromotionCodeRow = typeof promotionCodes.$inferSelect;

/** How a checkout names its discount: `{ coupon }` or `{ promotion_code }` (ids). */
export type DiscountRequest = { coupon: string } | { promotion_code: string };

/**
 * What the discount must reach: the products of the lines (null for a line without one), or a
 * subscription in plan mode (`plan`), which no product-bound coupon can reach.
 */
export type DiscountTarget = { kind: 'lines'; productIds: readonly (string | null)[] } | { kind: 'plan' };

function couponUsable(coupon: CouponRow, now: Date): boolean {
  if (coupon.deletedAt !== null) return false;
  if (coupon.redeemBy !== null && coupon.redeemBy.getTime() <= now.getTime()) return false;
  return coupon.maxRedemptions === null || coupon.timesRedeemed < coupon.maxRedemptions;
}

function codeUsable(code: PromotionCodeRow, now: Date): boolean {
  if (!code.active) return false;
  if (code.expiresAt !== null && code.expiresAt.getTime() <= now.getTime()) return false;
  return code.maxRedemptions === null || code.timesRedeemed < code.maxRedemptions;
}

function reaches(coupon: CouponRow, target: DiscountTarget): boolean {
  if (coupon.appliesTo === null) return true;
  if (target.kind === 'plan') return false;
  return target.productIds.some((id) => id !== null && coupon.appliesTo!.includes(id));
}

/** The terms a coupon grants (through `code`, if a promotion code named it). */
export function discountTermsOf(coupon: CouponRow, code: PromotionCodeRow | null): DiscountTerms {
  return {
    coupon: coupon.id,
    promotion_code: code?.id ?? null,
    label: code?.code ?? coupon.name,
    name: coupon.name,
    percent_off: coupon.percentOff,
    amount_off: coupon.amountOff,
    duration: coupon.duration,
    duration_in_months: coupon.durationInMonths,
    applies_to: coupon.appliesTo,
  };
}

async function couponById(executor: Executor, scope: Scope, id: string): Promise<CouponRow | undefined> {
  const [row] = await executor
    .select()
    .from(coupons)
    .where(and(eq(coupons.id, id), ownedBy(coupons, scope)));
  return row;
}

/**
 * The terms of a checkout's `discounts` entry at `now`: 404 for an id unknown in this store and
 * environment, 400 `discount_invalid` for one that cannot be used now (a deleted coupon included)
 * or reaches nothing the checkout sells.
 */
export async function resolveDiscountRequest(executor: Executor, scope: Scope, request: DiscountRequest, target: DiscountTarget, now: Date): Promise<DiscountTerms> {
  const invalid = (param: string) => new ApiError('discount_invalid', 'This discount cannot be used now: it is deleted, expired, inactive, used up, or applies to nothing sold here.', { param });
  if ('coupon' in request) {
    const coupon = await couponById(executor, scope, request.coupon);
    if (!coupon) throw resourceMissing('coupon', request.coupon, 'discounts[0].coupon');
    if (!couponUsable(coupon, now) || !reaches(coupon, target)) throw invalid('discounts[0].coupon');
    return discountTermsOf(coupon, null);
  }
  const [row] = await executor
    .select({ code: promotionCodes, coupon: coupons })
    .from(promotionCodes)
    .innerJoin(coupons, eq(coupons.id, promotionCodes.couponId))
    .where(and(eq(promotionCodes.id, request.promotion_code), ownedBy(promotionCodes, scope)));
  if (!row) throw resourceMissing('promotion code', request.promotion_code, 'discounts[0].promotion_code');
  if (!codeUsable(row.code, now) || !couponUsable(row.coupon, now) || !reaches(row.coupon, target)) throw invalid('discounts[0].promotion_code');
  return discountTermsOf(row.coupon, row.code);
}

/** The terms of a code a customer typed (any case) at `now`, or null when it is unknown or cannot be used for `target`. */
export async function resolveTypedCode(executor: Executor, scope: Scope, typed: string, target: DiscountTarget, now: Date): Promise<DiscountTerms | null> {
  const code = typed.trim();
  if (!/^[A-Za-z0-9_-]{3,40}$/.test(code)) return null;
  const [row] = await executor
    .select({ code: promotionCodes, coupon: coupons })
    .from(promotionCodes)
    .innerJoin(coupons, eq(coupons.id, promotionCodes.couponId))
    .where(and(ownedBy(promotionCodes, scope), sql`lower(${promotionCodes.code}) = lower(${code})`, isNull(coupons.deletedAt)));
  if (!row || !codeUsable(row.code, now) || !couponUsable(row.coupon, now) || !reaches(row.coupon, target)) return null;
  return discountTermsOf(row.coupon, row.code);
}
