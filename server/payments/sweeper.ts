import { reconcilePaymentAttempts, type ReconcileDeps } from './reconcile';

export interface PaymentReconciler {
  /** No further sweeps; resolves once a sweep in progress has finished. */
  stop(): Promise<void>;
  /** One sweep now; resolves when it is done (shutdown, tests). */
  runOnce(): Promise<number>;
}

/**
 * Runs reconcilePaymentAttempts every `intervalMs` in the background, one sweep at a time, so a
 * timed-out or crashed payment is settled even when the customer never comes back (issue 3:
 * "reconciled later, never charged twice"). The timer is unref'd: it never keeps a process alive.
 */
export function startPaymentReconciler(deps: ReconcileDeps, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): PaymentReconciler {
  let running: Promise<number> | undefined;
  const onError = options.onError ?? ((error: unknown) => console.error(`payment reconciliation failed: ${error instanceof Error ? error.message : String(error)}`));
  const runOnce = () => {
    running ??= reconcilePaymentAttempts(deps).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch(onError);
  }, options.intervalMs ?? 30_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
    runOnce,
  };
}
