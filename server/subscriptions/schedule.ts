/**
 * Billing periods. Every boundary is computed from the subscription's anchor (its first charge),
 * not from the previous boundary, so month ends do not drift: a subscription started on 31 January
 * renews on 28/29 February, then on 31 March. Calendar arithmetic is in UTC.
 */
import type { PriceInterval, subscriptions } from '@/db/schema';

const DAY_MS = 24 * 60 * 60 * 1000;

function addMonthsClamped(anchor: Date, months: number): Date {
  const result = new Date(anchor.getTime());
  const day = anchor.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

/** The start of period `n` (0 = the anchor itself) of a schedule billed every `count` `interval`s. */
export function periodBoundary(anchor: Date, interval: PriceInterval, count: number, n: number): Date {
  switch (interval) {
    case 'day':
      return new Date(anchor.getTime() + n * count * DAY_MS);
    case 'week':
      return new Date(anchor.getTime() + n * count * 7 * DAY_MS);
    case 'month':
      return addMonthsClamped(anchor, n * count);
    case 'year':
      return addMonthsClamped(anchor, n * count * 12);
  }
}

/** The gateway idempotency key of a subscription's charge: one per billing cycle and attempt. */
export function chargeIdempotencyKey(subscriptionId: string, cycle: number, attempt: number): string {
  return `subscription:${subscriptionId}:${cycle}:${attempt}`;
}

type Scheduled = Pick<typeof subscriptions.$inferSelect, 'billingAnchor' | 'anchorCycle' | 'currentPeriodStart' | 'interval' | 'intervalCount'>;

/** Where a subscription's periods are counted from: its anchor, or before billing first moved it, its current period's start. */
export function billingAnchor(subscription: Pick<Scheduled, 'billingAnchor' | 'currentPeriodStart'>): Date {
  return subscription.billingAnchor ?? subscription.currentPeriodStart;
}

/** The start of the period of cycle `n + 1` of this subscription (n = 0: the anchor, when no plan change moved it). */
export function boundary(subscription: Scheduled, n: number): Date {
  return periodBoundary(billingAnchor(subscription), subscription.interval, subscription.intervalCount, n - subscription.anchorCycle);
}
