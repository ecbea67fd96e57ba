/**
 * What falls due when a store's test clock moves (CONTRACT 3: expiries, recurring charges,
 * retries, webhook scheduling), run in this order before advance_clock answers. Billing and
 * webhooks add their own job here.
 */
import { expireDueCheckoutSessions } from '../checkout/service';
import { expireDueSubscriptionCheckouts } from '../subscriptions/checkouts';
import type { Services } from '../context';
import { billDueTestSubscriptions } from '../billing/worker';
import { requestDeliveryRun } from '../webhooks/delivery';

export interface DueJobScope {
  storeId: string;
  livemode: boolean;
}

/** `now` is the store's test clock after the move; jobs that call the gateway take it from `services`. */
export type DueJob = (services: Services, scope: DueJobScope, now: Date) => Promise<unknown>;

export const DUE_JOBS: readonly DueJob[] = [
  ({ db }, scope, now) => expireDueCheckoutSessions(db, scope, now),
  ({ db }, scope, now) => expireDueSubscriptionCheckouts(db, scope, now),
  billDueTestSubscriptions,
];

export async function runDueJobs(services: Services, scope: DueJobScope, now: Date): Promise<void> {
  for (const job of DUE_JOBS) await job(services, scope, now);
  // The events those jobs wrote are already in the outbox; delivery runs on the wall clock, so
  // the worker is only woken here, never awaited (a slow receiver must not hold the answer).
  requestDeliveryRun();
}
