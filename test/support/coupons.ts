import type { Executor } from '@/db/client';
import { coupons, promotionCodes } from '@/db/schema';
import { newId } from '@/server/ids';
import type { Scope } from '@/server/kit/scope';

/**
 * Coupons and promotion codes written straight to their tables, for tests of what uses them
 * (checkouts, payments): the coupon API has its own tests.
 */

export interface CouponSpec {
  name?: string;
  percentOff?: number;
  amountOff?: number;
  duration?: 'once' | 'repeating' | 'forever';
  durationInMonths?: number;
  maxRedemptions?: number;
  redeemBy?: Date;
  appliesTo?: string[];
  deleted?: boolean;
}

/** A coupon of the store and environment (15 % off, `once`, unless `spec` says otherwise). */
export async function createCoupon(db: Executor, scope: Scope, spec: CouponSpec = {}) {
  const amountOff = spec.amountOff ?? null;
  const [row] = await db
    .insert(coupons)
    .values({
      id: newId('cpn', scope.livemode),
      storeId: scope.storeId,
      livemode: scope.livemode,
      name: spec.name ?? 'Summer sale',
      percentOff: amountOff === null ? (spec.percentOff ?? 15) : null,
      amountOff,
      currency: 'eur',
      duration: spec.duration ?? 'once',
      durationInMonths: spec.durationInMonths ?? null,
      maxRedemptions: spec.maxRedemptions ?? null,
      redeemBy: spec.redeemBy ?? null,
      appliesTo: spec.appliesTo ?? null,
      metadata: {},
      createdAt: new Date(),
      deletedAt: spec.deleted ? new Date() : null,
    })
    .returning();
  return row!;
}

export interface PromotionCodeSpec {
  maxRedemptions?: number;
  expiresAt?: Date;
  active?: boolean;
}

/** A promotion code `code` for `coupon`, in the coupon's store and environment. */
export async function createPromotionCode(db: Executor, coupon: { id: string; storeId: string; livemode: boolean }, code: string, spec: PromotionCodeSpec = {}) {
  const [row] = await db
    .insert(promotionCodes)
    .values({
      id: newId('promo', coupon.livemode),
      storeId: coupon.storeId,
      livemode: coupon.livemode,
      couponId: coupon.id,
      code,
      maxRedemptions: spec.maxRedemptions ?? null,
      expiresAt: spec.expiresAt ?? null,
      active: spec.active ?? true,
      metadata: {},
      createdAt: new Date(),
    })
    .returning();
  return row!;
}
