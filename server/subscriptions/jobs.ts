/**
 * Subscriptions' background work: first charges left open are settled, and subscription
 * checkouts past their deadline expire when the test clock moves.
 */
import { subscriptionCheckouts } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import { expireDueRows } from '../kit/expiry';
import { expireSubscriptionCheckouts } from './checkouts';
import { reconcileFirstCharges } from './first-charge-reconcile';

export function startFirstChargeReconcileJob(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('first charge reconciliation', () => reconcileFirstCharges(services, {}, services.config.backgroundLeaseMs), { intervalMs: options.intervalMs ?? 30_000 });
}

export const expireSubscriptionCheckoutsDueJob: DueJob = ({ db }, scope, now) => expireDueRows(db, subscriptionCheckouts, scope, now, expireSubscriptionCheckouts);
