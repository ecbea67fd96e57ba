/** Webhooks' background work: due deliveries are sent, on a timer and when woken. */
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import { deliverDueWebhooks, type DeliveryDeps } from './delivery';
import { log } from '../observability/log';

// On globalThis: Next bundles route modules separately, and the bundle that started the worker
// need not be the one whose advance_clock asks for a run (server/app.ts keeps its singleton there too).
const shared = globalThis as typeof globalThis & { __webhookDeliveryWakers?: Set<() => void> };
const wakers = (shared.__webhookDeliveryWakers ??= new Set<() => void>());

/** Starts a pass of every running delivery worker now, without waiting for it (e.g. after advance_clock). */
export function requestDeliveryRun(): void {
  for (const wake of wakers) wake();
}

/** The background task (server/background-tasks.ts): a pass every WEBHOOK_DELIVERY_INTERVAL_MS. */
export function startWebhookDeliveryJob(services: Pick<Services, 'db' | 'clock' | 'config'>, options: Partial<Pick<DeliveryDeps, 'timeoutMs' | 'resolveHost'>> = {}): PeriodicTask {
  const deps: DeliveryDeps = {
    db: services.db,
    clock: services.clock,
    config: services.config,
    leaseMs: services.config.backgroundLeaseMs,
    claimIntervalMs: services.config.webhookDeliveryIntervalMs,
    ...options,
  };
  const onError = (error: unknown) => log.error(`webhook delivery failed: ${error instanceof Error ? error.message : String(error)}`);
  const task = startPeriodic('webhook delivery', () => deliverDueWebhooks(deps), { intervalMs: services.config.webhookDeliveryIntervalMs, onError });
  let stopped = false;
  const wake = () => {
    // A pass under way may have made its last claim before the wake-up's events: one more after it.
    task
      .runOnce()
      .then(() => (stopped ? 0 : task.runOnce()))
      .catch(onError);
  };
  wakers.add(wake);
  return {
    runOnce: task.runOnce,
    async stop() {
      stopped = true;
      wakers.delete(wake);
      await task.stop();
    },
  };
}
