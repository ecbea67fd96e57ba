/**
 * Customer e-mail's background work: the send pass (./delivery.ts) and the renewal reminders
 * (./reminders.ts), each a periodic task in every process that does background work, and the
 * reminders' due job, which writes a store's test-mode reminders before advance_clock answers.
 */
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import { sendDueEmails } from './delivery';
import { queueRenewalReminders } from './reminders';

/** Sending is cheap to look for: one index probe when nothing is due. */
const DELIVERY_INTERVAL_MS = 2_000;
/** A reminder is due 7 days ahead: a minute late is on time. */
const REMINDER_INTERVAL_MS = 60_000;

export function startMailDeliveryJob(services: Pick<Services, 'db' | 'clock' | 'config'>): PeriodicTask {
  return startPeriodic('customer e-mail delivery', () => sendDueEmails(services), { intervalMs: DELIVERY_INTERVAL_MS });
}

export function startRenewalReminderJob(services: Pick<Services, 'db' | 'clock' | 'config'>): PeriodicTask {
  return startPeriodic('renewal reminders', () => queueRenewalReminders(services, { kind: 'all' }), { intervalMs: REMINDER_INTERVAL_MS });
}

/** advance_clock: the reminders of this store's test mode that the move made due. */
export const queueRenewalRemindersDueJob: DueJob = (services, scope, now) => queueRenewalReminders(services, { kind: 'store', ...scope, now });
