/**
 * The registry of background tasks (server/background.ts): each domain's periodic job, from its
 * jobs.ts; server/app.ts and scripts/worker.ts start the whole list.
 */
import type { BackgroundStarter } from './background';
import { startBillingJob, startCardUpdateReconcileJob, startPlanChangeReconcileJob } from './billing/jobs';
import { startCheckoutExpiryJob } from './checkout/jobs';
import { startMailDeliveryJob } from './mail/jobs';
import { startPaymentReconcileJob } from './payments/jobs';
import { startRefundReconcileJob } from './orders/refunds/jobs';
import { startScheduledPayoutJob } from './payouts/jobs';
import { startBuyerDataErasureJob, startDisputeDeadlineJob } from './disputes/jobs';
import { LOST_DISPUTE_EFFECTS } from './subscriptions/service';
import { startFirstChargeReconcileJob, startRenewalReminderJob, startTrialNoticeJob } from './subscriptions/jobs';
import { startWebhookDeliveryJob } from './webhooks/jobs';

export const BACKGROUND_TASKS: readonly BackgroundStarter[] = [
  (services) => startPaymentReconcileJob(services),
  (services) => startBillingJob(services),
  (services) => startWebhookDeliveryJob(services),
  (services) => startFirstChargeReconcileJob(services),
  (services) => startCardUpdateReconcileJob(services),
  (services) => startPlanChangeReconcileJob(services),
  (services) => startRefundReconcileJob(services),
  (services) => startCheckoutExpiryJob(services),
  (services) => startRenewalReminderJob(services),
  (services) => startTrialNoticeJob(services),
  (services) => startMailDeliveryJob(services),
  (services) => startScheduledPayoutJob(services),
  (services) => startDisputeDeadlineJob(services, LOST_DISPUTE_EFFECTS),
  (services) => startBuyerDataErasureJob(services),
];
