/** Payments' background work: attempts left open by a timeout or a crash are settled. */
import { startPeriodic, type PeriodicTask } from '../background';
import { reconcilePaymentAttempts, type ReconcileDeps } from './reconcile';

/**
 * Runs reconcilePaymentAttempts every `intervalMs` in the background, so a timed-out or crashed
 * payment is settled even when the customer never comes back ("reconciled later, never charged
 * twice").
 */
export function startPaymentReconcileJob(deps: ReconcileDeps, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): PeriodicTask {
  return startPeriodic('payment reconciliation', () => reconcilePaymentAttempts(deps), { intervalMs: options.intervalMs ?? 30_000, onError: options.onError });
}
