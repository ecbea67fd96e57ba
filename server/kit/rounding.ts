/**
 * Exact integer rounding for money: BigInt keeps every product and quotient exact, whatever
 * the amounts, so no float ever decides a cent.
 */

/** round_half_up(numerator / denominator) for non-negative integers. */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/** round_half_up(amount × numerator / denominator) for non-negative integers (cents × a share). */
export function scaleRoundHalfUp(amount: number, numerator: number, denominator: number): number {
  return Number(divideRoundHalfUp(BigInt(amount) * BigInt(numerator), BigInt(denominator)));
}

/**
 * `amount` split in proportion to `weights`: each part its share's floor, then the cents left one
 * each to the largest fractions (ties: the earlier part), so the parts sum to `amount` exactly.
 * All zeros when the weights sum to 0.
 */
export function spreadByLargestRemainder(amount: number, weights: readonly number[]): number[] {
  const total = BigInt(weights.reduce((sum, weight) => sum + weight, 0));
  if (total === 0n) return weights.map(() => 0);
  const exact = weights.map((weight) => BigInt(amount) * BigInt(weight));
  const parts = exact.map((numerator) => Number(numerator / total));
  const byRemainder = exact.map((numerator, index) => ({ index, remainder: numerator % total })).sort((a, b) => (b.remainder > a.remainder ? 1 : b.remainder < a.remainder ? -1 : a.index - b.index));
  let left = amount - parts.reduce((sum, part) => sum + part, 0);
  for (const { index } of byRemainder) {
    if (left === 0) break;
    parts[index]! += 1;
    left -= 1;
  }
  return parts;
}
