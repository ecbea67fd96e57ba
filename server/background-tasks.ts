/**
 * The registry of background tasks (server/background.ts): reconcilers, billing and webhook
 * delivery add their starters here; server/app.ts and scripts/worker.ts start the whole list.
 */
import type { BackgroundStarter } from './background';
import { startBillingWorker } from './billing/worker';
import { startPaymentReconciler } from './payments/sweeper';
import { startRefundReconciler } from './refunds/reconcile';
import { startFirstChargeReconciler } from './subscriptions/first-charge-reconcile';
import { startWebhookDelivery } from './webhooks/delivery';

export const BACKGROUND_TASKS: readonly BackgroundStarter[] = [
  (services) => startPaymentReconciler(services),
  (services) => startBillingWorker(services),
  (services) => startWebhookDelivery(services),
  (services) => startFirstChargeReconciler(services),
  (services) => startRefundReconciler(services),
];
