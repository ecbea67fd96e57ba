/** The operator's fee rates as they read in descriptions (FeeRates in server/config.ts). */

/** Basis points as the percentage reads, without trailing zeros: 500 → `5`, 250 → `2.5`, 1234 → `12.34`. */
export function formatFeePercent(basisPoints: number): string {
  const whole = Math.trunc(basisPoints / 100);
  const hundredths = basisPoints % 100;
  if (hundredths === 0) return String(whole);
  return `${whole}.${String(hundredths).padStart(2, '0').replace(/0$/, '')}`;
}

/** Non-negative cents as euros with two decimals: 50 → `0.50`, 1234 → `12.34`. */
export function formatEuros(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
