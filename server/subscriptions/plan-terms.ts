/**
 * A subscription's plan as terms of their own (PlanTerms): what a plan change replaces, and the
 * pending change a renewal switches to.
 */
import type { PendingChange, PlanTerms } from '@/db/schema';
import type { SubscriptionRow } from './representation';
import { periodBoundary } from './schedule';

type PlanColumns = Pick<SubscriptionRow, 'priceId' | 'productId' | 'planName' | 'amount' | 'interval' | 'intervalCount' | 'taxCategory' | 'taxInclusive'>;

export function planTermsOf(row: PlanColumns): PlanTerms {
  return {
    price_id: row.priceId,
    product_id: row.productId,
    plan_name: row.planName,
    amount: row.amount,
    interval: row.interval,
    interval_count: row.intervalCount,
    tax_category: row.taxCategory,
    tax_inclusive: row.taxInclusive,
  };
}

/** The subscription's columns that hold `terms`. */
export function planColumns(terms: PlanTerms): PlanColumns {
  return {
    priceId: terms.price_id,
    productId: terms.product_id,
    planName: terms.plan_name,
    amount: terms.amount,
    interval: terms.interval,
    intervalCount: terms.interval_count,
    taxCategory: terms.tax_category,
    taxInclusive: terms.tax_inclusive,
  };
}

/** The pending change a charge for the period starting at `periodStart` switches to: one due by then. */
export function dueChange(subscription: Pick<SubscriptionRow, 'pendingChange'>, periodStart: Date): PendingChange | null {
  const change = subscription.pendingChange;
  return change !== null && change.effective_at * 1000 <= periodStart.getTime() ? change : null;
}

/** The subscription as the charge of the period starting at `periodStart` bills it: on the plan a due change switches to. */
export function billedPlan(subscription: SubscriptionRow, periodStart: Date): SubscriptionRow {
  const change = dueChange(subscription, periodStart);
  return change === null ? subscription : { ...subscription, ...planColumns(change) };
}

/**
 * What a plan whose periods count anew from `start` sets on the subscription: its columns, the
 * anchor and the first period [start, start + interval) — the period of cycle `cycle` — billed
 * next at its end.
 */
export function periodsFrom(terms: PlanTerms, start: Date, cycle: number): Partial<SubscriptionRow> {
  const end = periodBoundary(start, terms.interval, terms.interval_count, 1);
  return { ...planColumns(terms), billingAnchor: start, anchorCycle: cycle - 1, currentPeriodStart: start, currentPeriodEnd: end, nextBillingAt: end };
}
