/**
 * How a discount splits over what it discounts, in integer cents: a percentage is taken off each
 * line it applies to and rounded half up on that line; an amount is capped at the lines' bases
 * and spread over them in proportion, the cents left over going to the largest fractions.
 */
import type { DiscountTerms } from '@/db/schema';
import { scaleRoundHalfUp, spreadByLargestRemainder } from './rounding';

/** A line's base (`unit_amount × quantity`, a subscription's `amount`) and its product, if any. */
export interface DiscountableLine {
  base: number;
  productId: string | null;
}

type Terms = Pick<DiscountTerms, 'percent_off' | 'amount_off' | 'applies_to'>;

/** Whether the discount reaches a line of `productId`: every line when it names no products. */
export function discountAppliesTo(terms: Pick<DiscountTerms, 'applies_to'>, productId: string | null): boolean {
  return terms.applies_to === null || (productId !== null && terms.applies_to.includes(productId));
}

/** Each line's `amount_discount`, in line order (0 outside `applies_to`). */
export function lineDiscounts(terms: Terms, lines: readonly DiscountableLine[]): number[] {
  const bases = lines.map((line) => (discountAppliesTo(terms, line.productId) ? line.base : 0));
  if (terms.percent_off !== null) return bases.map((base) => scaleRoundHalfUp(base, terms.percent_off!, 100));
  const off = Math.min(
    terms.amount_off ?? 0,
    bases.reduce((sum, base) => sum + base, 0),
  );
  return spreadByLargestRemainder(off, bases);
}

/** What a discount takes off, in words: `15% off`, `€3.00 off` (`formatAmount` writes the cents). */
export function discountOffText(terms: { percentOff: number | null; amountOff: number | null }, formatAmount: (cents: number) => string): string {
  return terms.percentOff !== null ? `${terms.percentOff}% off` : `${formatAmount(terms.amountOff ?? 0)} off`;
}
