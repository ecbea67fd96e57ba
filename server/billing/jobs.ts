/**
 * Billing's background work: a periodic job in every process that does background work (the web
 * process, or `npm run worker` when web instances run with BACKGROUND_WORK=false), and the test
 * clock's due job, which bills one store's test mode before advance_clock answers.
 */
import { and, eq, gt, not } from 'drizzle-orm';
import { madeOnHostedPage } from '../subscriptions/first-charge';
import { subscriptionCharges } from '@/db/schema';
import type { Services } from '../context';
import { startPeriodic, type PeriodicTask } from '../background';
import type { DueJob } from '../due-jobs';
import { reconcileCardUpdates } from './card-update';
import { billDueSubscriptions, type BillingEngineDeps } from './engine';
import { reconcilePlanChanges } from './plan-change';
import { reconcileSubscriptionCharges, type BillingReconcileSettings } from './reconcile';
import { ownedBy, type Scope } from '../kit/scope';

/** One run of the worker: settle what earlier runs left open, then bill what is due. */
export async function runBillingPass(deps: BillingEngineDeps, settings: Partial<BillingReconcileSettings> = {}): Promise<number> {
  const reconciled = await reconcileSubscriptionCharges(deps, settings);
  return reconciled + (await billDueSubscriptions(deps));
}

/** Every `intervalMs` (5 s by default): both environments, each subscription on its store's clock. */
export function startBillingJob(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('recurring billing', () => runBillingPass(services, { leaseMs: services.config.backgroundLeaseMs }), { intervalMs: options.intervalMs ?? 5_000 });
}

/** Every `intervalMs` (30 s by default, as first charges): card updates whose outcome was never recorded. */
export function startCardUpdateReconcileJob(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('card update reconciliation', () => reconcileCardUpdates(services, {}, services.config.backgroundLeaseMs), { intervalMs: options.intervalMs ?? 30_000 });
}

/** Every `intervalMs` (30 s by default): plan changes whose charge's outcome was never recorded. */
export function startPlanChangeReconcileJob(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('plan change reconciliation', () => reconcilePlanChanges(services, {}, services.config.backgroundLeaseMs), { intervalMs: options.intervalMs ?? 30_000 });
}

const IN_FLIGHT_POLL_MS = 25;

/** Recurring charges of one store and environment at the gateway right now (younger than the gateway timeout). */
async function chargesInFlight(services: Services, scope: Scope): Promise<boolean> {
  const since = new Date(services.clock.now().getTime() - services.config.gateway.timeoutMs);
  const [inFlight] = await services.db
    .select({ id: subscriptionCharges.id })
    .from(subscriptionCharges)
    .where(and(ownedBy(subscriptionCharges, scope), eq(subscriptionCharges.status, 'processing'), not(madeOnHostedPage), gt(subscriptionCharges.createdAt, since)))
    .limit(1);
  return inFlight !== undefined;
}

/**
 * advance_clock: the recurring charges and retries of this store's test mode that
 * fell due, settled before it answers. A background worker may be charging one of them at this
 * moment: the answer waits until that charge is settled (at most the gateway timeout, measured
 * in real time), then bills whatever the settlement made due.
 */
export const billTestSubscriptionsDueJob: DueJob = async (services, scope, now) => {
  const billing = { kind: 'store' as const, ...scope, now };
  let handled = await billDueSubscriptions(services, billing);
  const deadline = performance.now() + services.config.gateway.timeoutMs;
  while (performance.now() < deadline && (await chargesInFlight(services, scope))) {
    await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
    handled += await billDueSubscriptions(services, billing);
  }
  return handled;
};
