/** How long a link or session may live, in seconds from its creation. */
export interface Lifetime {
  min: number;
  max: number;
  /** Used when the caller asks for no particular expiry. */
  default: number;
}

/** A requested `expires_at` (epoch seconds) pulled into [now + min, now + max]; none asked: now + default. */
export function clampExpiry(nowSeconds: number, requested: number | undefined, lifetime: Lifetime): number {
  if (requested === undefined) return nowSeconds + lifetime.default;
  return Math.min(Math.max(requested, nowSeconds + lifetime.min), nowSeconds + lifetime.max);
}
