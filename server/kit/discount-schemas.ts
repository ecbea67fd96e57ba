/**
 * How the API shows a discount: the terms as redeemed, the same on checkout sessions, subscription
 * checkouts, orders and invoices; a subscription's adds when it stops discounting (`end`).
 */
import { z } from 'zod';
import { COUPON_DURATIONS, type DiscountTerms } from '@/db/schema';

const discountFields = {
  coupon: z.string().describe('The coupon, `cpn_test_…` or `cpn_live_…`.'),
  promotion_code: z.string().nullable().describe('The promotion code it was redeemed with (`promo_…`); null when the coupon was given directly.'),
  percent_off: z.number().int().nullable().describe('Percent taken off each line it applies to, rounded half up per line; null for an amount.'),
  amount_off: z.number().int().nullable().describe('Cents taken off, spread over the lines it applies to by their share; null for a percentage.'),
  duration: z.enum(COUPON_DURATIONS).describe('For subscriptions: `once` (the first charge), `repeating` (`duration_in_months`), `forever`.'),
  duration_in_months: z.number().int().nullable(),
};

const discountExample = {
  coupon: 'cpn_test_7Jq2fXcW9kRb3LmN5pT8vYzA',
  promotion_code: 'promo_test_Hs4dK8wQ2nVb6ZcX1mL9pR3T',
  percent_off: 15,
  amount_off: null,
  duration: 'repeating' as const,
  duration_in_months: 3,
};

export const discountSchema = z.object(discountFields).meta({ id: 'Discount', examples: [discountExample] });
export type Discount = z.infer<typeof discountSchema>;

export const subscriptionDiscountSchema = z
  .object({ ...discountFields, end: z.number().int().nullable().describe('Charges of periods starting before this time are discounted; null for `forever`, and until the first charge fixes it.') })
  .meta({ id: 'SubscriptionDiscount', examples: [{ ...discountExample, end: 1_790_000_000 }] });

/** The public shape of redeemed terms (the label and products stay internal). */
export function discountView(terms: DiscountTerms): Discount {
  return {
    coupon: terms.coupon,
    promotion_code: terms.promotion_code,
    percent_off: terms.percent_off,
    amount_off: terms.amount_off,
    duration: terms.duration,
    duration_in_months: terms.duration_in_months,
  };
}
