/** Payments' background work: attempts left open by a timeout or a crash are settled. */
import { startPeriodic, type PeriodicTask } from '../background';
import type { Config } from '../config';
import { reconcilePaymentAttempts, type ReconcileDeps } from './reconcile';

/**
 * Runs reconcilePaymentAttempts every `intervalMs` in the background, so a timed-out or crashed
 * payment is settled even when the customer never comes back ("reconciled later, never charged
 * twice").
 */
export function startPaymentReconcileJob(deps: ReconcileDeps & { config: Pick<Config, 'backgroundLeaseMs'> }, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): PeriodicTask {
  return startPeriodic('payment reconciliation', () => reconcilePaymentAttempts(deps, { leaseMs: deps.config.backgroundLeaseMs }), {
    intervalMs: options.intervalMs ?? 30_000,
    onError: options.onError,
  });
}
