/**
 * Where billing runs: a background task in every process that does background work (the web
 * process, or `npm run worker` when web instances run with BACKGROUND_WORK=false), and the test
 * clock's due job, which bills one store's test mode before advance_clock answers.
 */
import type { Services } from '../context';
import { startPeriodic, type PeriodicTask } from '../background';
import type { DueJob } from '../test-clock/jobs';
import { billDueSubscriptions, type BillingEngineDeps } from './engine';
import { reconcileSubscriptionCharges, type BillingReconcileSettings } from './reconcile';

/** One run of the worker: settle what earlier runs left open, then bill what is due. */
export async function runBillingPass(deps: BillingEngineDeps, settings: Partial<BillingReconcileSettings> = {}): Promise<number> {
  const reconciled = await reconcileSubscriptionCharges(deps, settings);
  return reconciled + (await billDueSubscriptions(deps));
}

/** Every `intervalMs` (5 s by default): both environments, each subscription on its store's clock. */
export function startBillingWorker(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('recurring billing', () => runBillingPass(services), { intervalMs: options.intervalMs ?? 5_000 });
}

/** advance_clock (CONTRACT 3): recurring charges and retries of this store's test mode that fell due. */
export const billDueTestSubscriptions: DueJob = (services, scope, now) => billDueSubscriptions(services, { kind: 'store', ...scope, now });
