/**
 * Subscriptions' background work: first charges left open are settled, trials about to end and
 * renewals a week ahead are announced, and subscription checkouts past their deadline expire when
 * the test clock moves.
 */
import { subscriptionCheckouts } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import { expireDueRows } from '../kit/expiry';
import { expireSubscriptionCheckouts } from './checkouts';
import { reconcileFirstCharges } from './first-charge-reconcile';
import { queueRenewalReminders } from './reminders';
import { noticeEndingTrials } from './trials';

/** A notice is due three days ahead: a minute late is on time. */
const TRIAL_NOTICE_INTERVAL_MS = 60_000;
/** A reminder is due 7 days ahead: a minute late is on time. */
const REMINDER_INTERVAL_MS = 60_000;

export function startFirstChargeReconcileJob(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('first charge reconciliation', () => reconcileFirstCharges(services, {}, services.config.backgroundLeaseMs), { intervalMs: options.intervalMs ?? 30_000 });
}

export function startTrialNoticeJob(services: Services): PeriodicTask {
  return startPeriodic('trial-ending notices', () => noticeEndingTrials(services, { kind: 'all' }), { intervalMs: TRIAL_NOTICE_INTERVAL_MS });
}

/** advance_clock: the notices of this store's test mode that the move made due (before billing charges the trials that ended). */
export const noticeEndingTrialsDueJob: DueJob = (services, scope, now) => noticeEndingTrials(services, { kind: 'store', ...scope, now });

export const expireSubscriptionCheckoutsDueJob: DueJob = ({ db }, scope, now) => expireDueRows(db, subscriptionCheckouts, scope, now, expireSubscriptionCheckouts);

export function startRenewalReminderJob(services: Pick<Services, 'db' | 'clock' | 'config'>): PeriodicTask {
  return startPeriodic('renewal reminders', () => queueRenewalReminders(services, { kind: 'all' }), { intervalMs: REMINDER_INTERVAL_MS });
}

/** advance_clock: the reminders of this store's test mode that the move made due. */
export const queueRenewalRemindersDueJob: DueJob = (services, scope, now) => queueRenewalReminders(services, { kind: 'store', ...scope, now });
