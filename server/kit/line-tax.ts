/**
 * Tax of one order line, in integer arithmetic only: BigInt keeps every product
 * and quotient exact, whatever the amounts.
 */
import { divideRoundHalfUp } from './rounding';

export interface LineAmounts {
  subtotal: number;
  tax: number;
  total: number;
}

/**
 * `gross` is unit amount × quantity, `hundredths` the rate in hundredths of a percent (550 =
 * 5.5%). Exclusive: tax = round_half_up(subtotal × b / 10000), total = subtotal + tax.
 * Inclusive: tax = round_half_up(total × b / (10000 + b)), subtotal = total − tax.
 */
export function lineTaxAt(gross: number, hundredths: number, inclusive: boolean): LineAmounts {
  if (hundredths <= 0) return { subtotal: gross, tax: 0, total: gross };
  const amount = BigInt(gross);
  const rate = BigInt(hundredths);
  if (inclusive) {
    const tax = Number(divideRoundHalfUp(amount * rate, 10_000n + rate));
    return { subtotal: gross - tax, tax, total: gross };
  }
  const tax = Number(divideRoundHalfUp(amount * rate, 10_000n));
  return { subtotal: gross, tax, total: gross + tax };
}

/** A product's own whole-percent rate; tax applies only when the store calculates tax and the rate is above 0. */
export function lineTax(gross: number, rate: number | null, inclusive: boolean, taxCalculation: boolean): LineAmounts {
  if (!taxCalculation || rate === null || rate <= 0) return { subtotal: gross, tax: 0, total: gross };
  return lineTaxAt(gross, rate * 100, inclusive);
}

/** The order's amounts: the lines' amounts summed (tax is rounded per line, then summed). */
export function sumLines(lines: readonly LineAmounts[]): LineAmounts {
  return lines.reduce((sum, line) => ({ subtotal: sum.subtotal + line.subtotal, tax: sum.tax + line.tax, total: sum.total + line.total }), {
    subtotal: 0,
    tax: 0,
    total: 0,
  });
}
