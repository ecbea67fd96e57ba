/** Refunds' background work: refunds still pending at the gateway are asked about until settled. */
import { startPeriodic, type PeriodicTask } from '../../background';
import type { Config } from '../../config';
import { reconcilePendingRefunds, type RefundReconcileDeps } from './reconcile';

/** Runs reconcilePendingRefunds every `intervalMs` (server/background-tasks.ts). */
export function startRefundReconcileJob(
  deps: RefundReconcileDeps & { config: Pick<Config, 'backgroundLeaseMs'> },
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): PeriodicTask {
  return startPeriodic('refund reconciliation', () => reconcilePendingRefunds(deps, { leaseMs: deps.config.backgroundLeaseMs }), {
    intervalMs: options.intervalMs ?? 30_000,
    onError: options.onError,
  });
}
