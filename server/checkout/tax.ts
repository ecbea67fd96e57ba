/**
 * Tax of one order line, in integer arithmetic only: BigInt keeps every product
 * and quotient exact, whatever the amounts.
 */

export interface LineAmounts {
  subtotal: number;
  tax: number;
  total: number;
}

/** round_half_up(numerator / denominator) for non-negative integers. */
function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/**
 * `gross` is unit amount × quantity. Tax applies only when the store calculates tax and the
 * rate is above 0. Exclusive: tax = round_half_up(subtotal × rate / 100), total = subtotal + tax.
 * Inclusive: tax = round_half_up(total × rate / (100 + rate)), subtotal = total − tax.
 */
export function lineTax(gross: number, rate: number | null, inclusive: boolean, taxCalculation: boolean): LineAmounts {
  if (!taxCalculation || rate === null || rate <= 0) return { subtotal: gross, tax: 0, total: gross };
  const amount = BigInt(gross);
  const percent = BigInt(rate);
  if (inclusive) {
    const tax = Number(divideRoundHalfUp(amount * percent, 100n + percent));
    return { subtotal: gross - tax, tax, total: gross };
  }
  const tax = Number(divideRoundHalfUp(amount * percent, 100n));
  return { subtotal: gross, tax, total: gross + tax };
}

/** The order's amounts: the lines' amounts summed (tax is rounded per line, then summed). */
export function sumLines(lines: readonly LineAmounts[]): LineAmounts {
  return lines.reduce((sum, line) => ({ subtotal: sum.subtotal + line.subtotal, tax: sum.tax + line.tax, total: sum.total + line.total }), {
    subtotal: 0,
    tax: 0,
    total: 0,
  });
}
