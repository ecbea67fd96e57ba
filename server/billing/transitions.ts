/**
 * What one settled recurring charge does to its subscription, as a pure
 * function of the subscription, the charge and the store's clock: the engine applies the result
 * in the transaction that settles the charge.
 *
 * Cycle n covers the period [boundary(n-1), boundary(n)) counted from the anchor, the start of
 * the first period (schedule.ts): `billing_anchor`, which billing fills in from
 * `current_period_start` the first time it moves a subscription. The period fields always
 * describe the last paid cycle; a cycle is billed at the end of the one before it.
 *
 * Events, in this order, each carrying the subscription as it is after the whole change:
 *
 * | Outcome | Status | Events |
 * |---|---|---|
 * | charge succeeded, payments left (a trial's first included) | `active` | payment_succeeded, updated |
 * | charge succeeded, it was payment `total_payments` | `expired` | payment_succeeded, expired, updated |
 * | scheduled charge declined | `past_due` | payment_failed, past_due, updated |
 * | retry 1–3 declined | `past_due` | payment_failed, updated |
 * | retry 4 declined | `canceled` | payment_failed, canceled, updated |
 * | an active subscription with every payment made falls due (no charge) | `expired` | expired, updated |
 * | an active subscription reaches its scheduled end (no charge) | `canceled` | canceled, updated |
 *
 * `subscription.updated` closes every transition because each one changes the status or
 * `next_billing_at`, and the event is sent whenever status, next billing or metadata change.
 */
import type { EventType } from '../webhooks/events';
import { dueChange, periodsFrom } from '../subscriptions/plan-terms';
import { boundary } from '../subscriptions/schedule';
import { discountEndOf } from '../subscriptions/discount';
import type { SubscriptionRow } from '../subscriptions/representation';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Retries at +1, +3, +5 and +7 days from the failed scheduled charge. */
export const RETRY_OFFSET_DAYS = [1, 3, 5, 7] as const;

/** Attempt 0 is the scheduled charge of a cycle, attempts 1–4 its retries. */
export const LAST_ATTEMPT = RETRY_OFFSET_DAYS.length;

export interface ChargePosition {
  cycle: number;
  attempt: number;
  /** When this attempt fell due (the subscription's `next_billing_at` when it was claimed). */
  scheduledAt: Date;
}

/** Every column of the subscription a transition may move (billing writes exactly these): a due plan change, the credit used and the discount's end too. */
export const TRANSITION_COLUMNS = [
  'status',
  'paymentsMade',
  'failureCount',
  'currentPeriodStart',
  'currentPeriodEnd',
  'nextBillingAt',
  'canceledAt',
  'endedAt',
  'billingAnchor',
  'anchorCycle',
  'creditBalance',
  'pendingChange',
  'priceId',
  'productId',
  'planName',
  'amount',
  'interval',
  'intervalCount',
  'taxCategory',
  'taxInclusive',
  'discountEnd',
] as const;

export interface Transition {
  changes: Partial<Pick<SubscriptionRow, (typeof TRANSITION_COLUMNS)[number]>>;
  events: EventType[];
}

/** Statuses billing charges when due: a trial's first payment at its end, then renewals and retries. */
export const BILLED_STATUSES: readonly SubscriptionRow['status'][] = ['trialing', 'active', 'past_due'];

/** The charge a due subscription owes now: the next unpaid cycle, at its current attempt. */
export function owedCharge(subscription: SubscriptionRow): ChargePosition {
  return { cycle: subscription.paymentsMade + 1, attempt: subscription.failureCount, scheduledAt: subscription.nextBillingAt };
}

/** True while `charge` is still the charge the subscription waits for (not canceled meanwhile, not settled twice). */
export function awaitsCharge(subscription: SubscriptionRow, charge: Pick<ChargePosition, 'cycle' | 'attempt'>): boolean {
  const owed = owedCharge(subscription);
  return BILLED_STATUSES.includes(subscription.status) && owed.cycle === charge.cycle && owed.attempt === charge.attempt;
}

/**
 * A charge that took the credit `amountCredit` lowers the balance by it; one for a period a
 * pending change is due by switches to that plan, its periods counted anew from the change.
 */
export function chargeSucceeded(subscription: SubscriptionRow, charge: ChargePosition & { amountCredit: number }, now: Date): Transition {
  const start = boundary(subscription, charge.cycle - 1);
  const change = dueChange(subscription, start);
  const periods = change
    ? { ...periodsFrom(change, new Date(change.effective_at * 1000), charge.cycle), pendingChange: null }
    : { currentPeriodStart: start, currentPeriodEnd: boundary(subscription, charge.cycle), nextBillingAt: boundary(subscription, charge.cycle) };
  const paid = {
    ...periods,
    paymentsMade: charge.cycle,
    failureCount: 0,
    creditBalance: subscription.creditBalance - charge.amountCredit,
    // A discount's end is fixed by the first period charged (after a trial: billing's first charge).
    ...(charge.cycle === 1 && subscription.discount !== null ? { discountEnd: discountEndOf(subscription.discount, { start: periods.currentPeriodStart!, end: periods.currentPeriodEnd! }) } : {}),
  };
  if (charge.cycle >= subscription.totalPayments) {
    return { changes: { ...paid, status: 'expired', endedAt: now }, events: ['subscription.payment_succeeded', 'subscription.expired', 'subscription.updated'] };
  }
  return { changes: { ...paid, status: 'active' }, events: ['subscription.payment_succeeded', 'subscription.updated'] };
}

/**
 * When the charge of a cycle whose attempt `charge.attempt` just failed is tried again: the
 * retries left, each `RETRY_OFFSET_DAYS` after the scheduled charge's failure. Retry k ran at
 * its scheduled time, failure + offset[k-1] days, so that failure is found again from it.
 */
export function retryDatesAfter(charge: ChargePosition, now: Date): Date[] {
  const failedAt = charge.attempt === 0 ? now.getTime() : charge.scheduledAt.getTime() - RETRY_OFFSET_DAYS[charge.attempt - 1]! * DAY_MS;
  return RETRY_OFFSET_DAYS.slice(charge.attempt).map((days) => new Date(failedAt + days * DAY_MS));
}

export function chargeDeclined(charge: ChargePosition, now: Date): Transition & { retryDates: Date[] } {
  const failureCount = charge.attempt + 1;
  const retryDates = retryDatesAfter(charge, now);
  if (charge.attempt === 0) {
    return {
      changes: { status: 'past_due', failureCount, nextBillingAt: retryDates[0] },
      events: ['subscription.payment_failed', 'subscription.past_due', 'subscription.updated'],
      retryDates,
    };
  }
  if (charge.attempt >= LAST_ATTEMPT) {
    return {
      changes: { status: 'canceled', failureCount, canceledAt: now, endedAt: now },
      events: ['subscription.payment_failed', 'subscription.canceled', 'subscription.updated'],
      retryDates,
    };
  }
  return { changes: { failureCount, nextBillingAt: retryDates[0] }, events: ['subscription.payment_failed', 'subscription.updated'], retryDates };
}

/** A subscription whose end was scheduled reaches it (`cancel_at`, its period's end): it ends there, uncharged. */
export function scheduledEnd(at: Date): Transition {
  return { changes: { status: 'canceled', canceledAt: at, endedAt: at }, events: ['subscription.canceled', 'subscription.updated'] };
}

/** A due subscription whose payments are all made (total_payments = 1 left active at creation): it ends, uncharged. */
export function scheduleCompleted(now: Date): Transition {
  return { changes: { status: 'expired', endedAt: now }, events: ['subscription.expired', 'subscription.updated'] };
}
