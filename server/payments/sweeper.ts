import { startPeriodic, type PeriodicTask } from '../background';
import { reconcilePaymentAttempts, type ReconcileDeps } from './reconcile';

export type PaymentReconciler = PeriodicTask;

/**
 * Runs reconcilePaymentAttempts every `intervalMs` in the background, so a timed-out or crashed
 * payment is settled even when the customer never comes back (issue 3: "reconciled later, never
 * charged twice").
 */
export function startPaymentReconciler(deps: ReconcileDeps, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): PaymentReconciler {
  return startPeriodic('payment reconciliation', () => reconcilePaymentAttempts(deps), { intervalMs: options.intervalMs ?? 30_000, onError: options.onError });
}
