/**
 * A subscription's discount over time: which charges it reaches (those whose period starts
 * before its end) and where that end lies, fixed by the first charged period.
 */
import type { DiscountTerms, subscriptionCheckouts } from '@/db/schema';

type SubscriptionCheckoutRow = typeof subscriptionCheckouts.$inferSelect;
import { discountAppliesTo, lineDiscounts } from '../kit/discounts';
import type { RateTable } from '../kit/vat-rates';
import { chargeAmountsOf, type ChargeAmounts, type ChargeReductions } from './charge-order';
import type { SubscriptionRow } from './representation';
import { billedPlan } from './plan-terms';
import { boundary, periodBoundary } from './schedule';

/**
 * The end of a discount first charged for the period [start, end): `once` the period's end;
 * `repeating` its start plus the months, clamped to month ends as the schedule is (monthly × 3:
 * charges 1–3; yearly × 3: charge 1); `forever` never (null).
 */
export function discountEndOf(terms: Pick<DiscountTerms, 'duration' | 'duration_in_months'>, firstPeriod: { start: Date; end: Date }): Date | null {
  switch (terms.duration) {
    case 'once':
      return firstPeriod.end;
    case 'repeating':
      return periodBoundary(firstPeriod.start, 'month', terms.duration_in_months!, 1);
    case 'forever':
      return null;
  }
}

type DiscountedPlan = Pick<SubscriptionRow, 'discount' | 'discountEnd' | 'productId'>;

/**
 * Cents off `amount` for a charge whose period starts at `periodStart`: the discount reaches it
 * while the period starts before the discount's end (an end not yet fixed: the first charge), and
 * while the plan is one of the products it applies to.
 */
export function periodDiscount(plan: DiscountedPlan, amount: number, periodStart: Date): number {
  const terms = plan.discount;
  if (terms === null || !discountAppliesTo(terms, plan.productId)) return 0;
  if (plan.discountEnd !== null && periodStart.getTime() >= plan.discountEnd.getTime()) return 0;
  return lineDiscounts(terms, [{ base: amount, productId: plan.productId }])[0]!;
}

/** What comes off the charge of the period starting at `periodStart`: its discount, and the credit balance. */
export function chargeReductionsOf(subscription: DiscountedPlan & Pick<SubscriptionRow, 'amount' | 'creditBalance'>, periodStart: Date): ChargeReductions {
  return { discount: periodDiscount(subscription, subscription.amount, periodStart), creditBalance: subscription.creditBalance };
}

/** The charge a subscription owes next (its next unpaid cycle, on the plan a due change switches to) if made on `date`: what renewals, retries and the card-update page charge. */
export function owedChargeAmounts(subscription: SubscriptionRow, rates: RateTable, date: Date): ChargeAmounts {
  const periodStart = boundary(subscription, subscription.paymentsMade);
  const plan = billedPlan(subscription, periodStart);
  return chargeAmountsOf(plan, rates, date, chargeReductionsOf(plan, periodStart));
}

/**
 * The first charge of a checkout made on `date`: the plan's amount less the checkout's discount,
 * taxed as the subscription's charges are. After a trial it is made at the trial's end; the
 * amount is the same.
 */
export function firstChargeAmountsOf(checkout: Parameters<typeof chargeAmountsOf>[0] & Pick<SubscriptionCheckoutRow, 'discount' | 'productId'>, rates: RateTable, date: Date): ChargeAmounts {
  const discount = periodDiscount({ discount: checkout.discount, discountEnd: null, productId: checkout.productId }, checkout.amount, date);
  return chargeAmountsOf(checkout, rates, date, { discount, creditBalance: 0 });
}
