/**
 * Redemptions of a discount, counted on its coupon and its promotion code in the transaction of
 * the payment: a payment about to go to the gateway holds one (so two buyers racing for the last
 * redemption cannot both get it), the outcome turns the hold into a redemption or gives it back.
 * Each step is one conditional UPDATE of the counters: the row lock it takes serialises racers,
 * and the database's CHECK keeps the counts within `max_redemptions` whatever happens.
 */
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { coupons, promotionCodes, type DiscountTerms } from '@/db/schema';

type Redeemable = Pick<DiscountTerms, 'coupon' | 'promotion_code'>;

/** Room for one more: under the limit, counting what is held. */
const couponHasRoom = or(isNull(coupons.maxRedemptions), sql`${coupons.timesRedeemed} + ${coupons.redemptionsHeld} < ${coupons.maxRedemptions}`);
const codeHasRoom = or(isNull(promotionCodes.maxRedemptions), sql`${promotionCodes.timesRedeemed} + ${promotionCodes.redemptionsHeld} < ${promotionCodes.maxRedemptions}`);

/**
 * Takes one redemption of `discount` at `now` (the store's clock): a hold (`held`, settled later by
 * settleRedemption) or a redemption at once (a payment that needs no gateway). False, with nothing
 * taken, when the discount is no longer usable: coupon deleted, past `redeem_by` or exhausted;
 * code inactive, expired or exhausted.
 */
export async function takeRedemption(tx: Executor, discount: Redeemable, now: Date, kind: RedemptionKind): Promise<boolean> {
  if (discount.promotion_code !== null) {
    const code = await tx
      .update(promotionCodes)
      .set(codeCount(kind, 1))
      .where(and(eq(promotionCodes.id, discount.promotion_code), eq(promotionCodes.active, true), or(isNull(promotionCodes.expiresAt), gt(promotionCodes.expiresAt, now)), codeHasRoom))
      .returning({ id: promotionCodes.id });
    if (code.length === 0) return false;
  }
  const coupon = await tx
    .update(coupons)
    .set(kind === 'held' ? { redemptionsHeld: sql`${coupons.redemptionsHeld} + 1` } : { timesRedeemed: sql`${coupons.timesRedeemed} + 1` })
    .where(and(eq(coupons.id, discount.coupon), isNull(coupons.deletedAt), or(isNull(coupons.redeemBy), gt(coupons.redeemBy, now)), couponHasRoom))
    .returning({ id: coupons.id });
  if (coupon.length > 0) return true;
  // The coupon refused: give back what the code took.
  if (discount.promotion_code !== null) await tx.update(promotionCodes).set(codeCount(kind, -1)).where(eq(promotionCodes.id, discount.promotion_code));
  return false;
}

type RedemptionKind = 'held' | 'redeemed';

function codeCount(kind: RedemptionKind, by: 1 | -1) {
  return kind === 'held' ? { redemptionsHeld: sql`${promotionCodes.redemptionsHeld} + ${by}` } : { timesRedeemed: sql`${promotionCodes.timesRedeemed} + ${by}` };
}

/**
 * Ends a hold taken by takeRedemption: `paid` turns it into a redemption, otherwise (declined,
 * abandoned) it is given back. Call it once per hold, in the transaction that records the outcome.
 */
export async function settleRedemption(tx: Executor, discount: Redeemable, paid: boolean): Promise<void> {
  const redeemed = paid ? 1 : 0;
  if (discount.promotion_code !== null) {
    await tx
      .update(promotionCodes)
      .set({ redemptionsHeld: sql`${promotionCodes.redemptionsHeld} - 1`, timesRedeemed: sql`${promotionCodes.timesRedeemed} + ${redeemed}` })
      .where(eq(promotionCodes.id, discount.promotion_code));
  }
  await tx
    .update(coupons)
    .set({ redemptionsHeld: sql`${coupons.redemptionsHeld} - 1`, timesRedeemed: sql`${coupons.timesRedeemed} + ${redeemed}` })
    .where(eq(coupons.id, discount.coupon));
}
