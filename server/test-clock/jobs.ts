/**
 * The due jobs of every domain (server/due-jobs.ts), in the order advance_clock runs them;
 * the webhook delivery pass is then woken for the events they wrote.
 */
import { billTestSubscriptionsDueJob } from '../billing/jobs';
import { expireCheckoutSessionsDueJob } from '../checkout/jobs';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import type { Scope } from '../kit/scope';
import { scheduledPayoutsDueJob } from '../payouts/jobs';
import { buyerDataErasureDueJob, disputeDeadlinesDueJob } from '../disputes/jobs';
import { LOST_DISPUTE_EFFECTS } from '../subscriptions/service';
import { expireSubscriptionCheckoutsDueJob, noticeEndingTrialsDueJob, queueRenewalRemindersDueJob } from '../subscriptions/jobs';
import { requestDeliveryRun } from '../webhooks/jobs';

// Trial notices before billing, which charges the trials that ended; reminders after billing: they
// announce the renewal that billing leaves next. Disputes before
// payouts, which come last: they pay out what the rest left available.
const DUE_JOBS: readonly DueJob[] = [
  expireCheckoutSessionsDueJob,
  expireSubscriptionCheckoutsDueJob,
  noticeEndingTrialsDueJob,
  billTestSubscriptionsDueJob,
  queueRenewalRemindersDueJob,
  disputeDeadlinesDueJob(LOST_DISPUTE_EFFECTS),
  buyerDataErasureDueJob,
  scheduledPayoutsDueJob,
];

export async function runDueJobs(services: Services, scope: Scope, now: Date): Promise<void> {
  for (const job of DUE_JOBS) await job(services, scope, now);
  // The events those jobs wrote, and the retries the move brought forward, are due now: the
  // worker is only woken here, never awaited (a slow receiver must not hold the answer).
  requestDeliveryRun();
}
