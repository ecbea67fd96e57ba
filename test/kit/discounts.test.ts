import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DiscountTerms } from '@/db/schema';
import { lineDiscounts } from '@/server/kit/discounts';
import { lineTaxAt } from '@/server/kit/line-tax';
import { scaleRoundHalfUp, spreadByLargestRemainder } from '@/server/kit/rounding';
import { discountEndOf, periodDiscount } from '@/server/subscriptions/discount';

/** A discount's arithmetic, to the cent of every worked example. */

const percent = (percent_off: number, applies_to: string[] | null = null) => ({ percent_off, amount_off: null, applies_to });
const amount = (amount_off: number, applies_to: string[] | null = null) => ({ percent_off: null, amount_off, applies_to });
const lines = (...bases: number[]) => bases.map((base) => ({ base, productId: null }));

describe('percent_off: rounded half up on each line', () => {
  it('15 % of 1999 is 300; 50 % of 333 is 167', () => {
    expect(lineDiscounts(percent(15), lines(1999))).toEqual([300]);
    expect(lineDiscounts(percent(50), lines(333))).toEqual([167]);
    expect(lineDiscounts(percent(100), lines(1999, 1))).toEqual([1999, 1]);
  });

  it('outside applies_to a line gets 0', () => {
    const mixed = [
      { base: 1000, productId: 'prod_a' },
      { base: 1000, productId: 'prod_b' },
      { base: 1000, productId: null },
    ];
    expect(lineDiscounts(percent(10, ['prod_b']), mixed)).toEqual([0, 100, 0]);
    expect(lineDiscounts(amount(500, ['prod_a', 'prod_b']), mixed)).toEqual([250, 250, 0]);
  });
});

describe('amount_off: capped at the bases, spread by largest remainder', () => {
  it('1000 off 1999, 999 and 502 is 571, 286 and 143 (the tie of 285.43 and 143.43 goes to the earlier line)', () => {
    expect(lineDiscounts(amount(1000), lines(1999, 999, 502))).toEqual([571, 286, 143]);
  });

  it('never more than the bases', () => {
    expect(lineDiscounts(amount(5000), lines(1999, 999))).toEqual([1999, 999]);
    expect(lineDiscounts(amount(300), lines(0, 0))).toEqual([0, 0]);
  });

  it('the parts always sum to min(amount_off, Σ bases), each within its line', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 100 }), (off, bases) => {
        const parts = lineDiscounts(amount(off), lines(...bases));
        const total = bases.reduce((sum, base) => sum + base, 0);
        expect(parts.reduce((sum, part) => sum + part, 0)).toBe(Math.min(off, total));
        parts.forEach((part, index) => {
          expect(part).toBeGreaterThanOrEqual(0);
          expect(part).toBeLessThanOrEqual(bases[index]!);
        });
      }),
      { seed: 37, numRuns: 300 },
    );
  });
});

describe('tax after the discount', () => {
  it('1999 less 300 at 19 %: 1699 + 323 = 2022; inclusive, 1699 of which 271 is tax', () => {
    expect(lineTaxAt(1999 - 300, 1900, false)).toEqual({ subtotal: 1699, tax: 323, total: 2022 });
    expect(lineTaxAt(1999 - 300, 1900, true)).toEqual({ subtotal: 1428, tax: 271, total: 1699 });
  });
});

describe('the rounding kit', () => {
  it('round_half_up of a share: 999 × 15/30 days is 500 (499.5), 1000 × 20/30 is 667', () => {
    expect(scaleRoundHalfUp(999, 15, 30)).toBe(500);
    expect(scaleRoundHalfUp(1999, 15, 30)).toBe(1000);
    expect(scaleRoundHalfUp(1000, 20, 30)).toBe(667);
    expect(scaleRoundHalfUp(3000, 20, 30)).toBe(2000);
  });

  it('largest remainder: ties go to the earlier part', () => {
    expect(spreadByLargestRemainder(2, [1, 1, 1])).toEqual([1, 1, 0]);
    expect(spreadByLargestRemainder(10, [0, 0])).toEqual([0, 0]);
  });
});

describe('a subscription’s discount over its periods', () => {
  const terms = (duration: DiscountTerms['duration'], duration_in_months: number | null = null): DiscountTerms => ({
    coupon: 'cpn_test_x',
    promotion_code: null,
    label: 'Launch',
    name: 'Launch',
    percent_off: 15,
    amount_off: null,
    duration,
    duration_in_months,
    applies_to: null,
  });
  const start = new Date('2027-01-31T00:00:00Z');
  const firstEnd = new Date('2027-02-28T00:00:00Z');

  it('once ends with the first charged period; repeating after its months, clamped; forever never', () => {
    expect(discountEndOf(terms('once'), { start, end: firstEnd })).toEqual(firstEnd);
    expect(discountEndOf(terms('repeating', 3), { start, end: firstEnd })).toEqual(new Date('2027-04-30T00:00:00Z'));
    expect(discountEndOf(terms('forever'), { start, end: firstEnd })).toBeNull();
  });

  it('monthly × 3 discounts charges 1–3; yearly × 3 only the first', () => {
    const monthly = { discount: terms('repeating', 3), discountEnd: new Date('2027-04-30T00:00:00Z'), productId: null };
    const charges = ['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31'].map((day) => periodDiscount(monthly, 990, new Date(`${day}T00:00:00Z`)));
    expect(charges).toEqual([149, 149, 149, 0, 0]);
    const yearly = { discount: terms('repeating', 3), discountEnd: discountEndOf(terms('repeating', 3), { start, end: new Date('2028-01-31T00:00:00Z') }), productId: null };
    expect([start, new Date('2028-01-31T00:00:00Z')].map((day) => periodDiscount(yearly, 9900, day))).toEqual([1485, 0]);
  });

  it('before the first charge fixes its end, the discount applies; outside applies_to never', () => {
    expect(periodDiscount({ discount: terms('once'), discountEnd: null, productId: null }, 990, start)).toBe(149);
    expect(periodDiscount({ discount: { ...terms('forever'), applies_to: ['prod_a'] }, discountEnd: null, productId: 'prod_b' }, 990, start)).toBe(0);
  });
});
