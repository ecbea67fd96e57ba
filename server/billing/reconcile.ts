/**
 * Settles subscription charges whose outcome was never recorded: a worker that died between the
 * gateway call and the commit (`processing` gone stale) or a call that timed out (`unknown`).
 * It asks the gateway for the charge made under the charge's idempotency key; when the gateway
 * never received it, it re-issues the recurring charge with the SAME key, which the gateway
 * answers at most once, then settles (charges.ts, exactly once). Each charge is leased while it is worked on
 * (server/kit/lease.ts), so passes of several processes never send one to the gateway at once.
 */
import { and, asc, eq, inArray, lte, not, sql, type SQL } from 'drizzle-orm';
import { madeOnHostedPage } from '../subscriptions/first-charge';
import { subscriptionCharges, subscriptions } from '@/db/schema';
import { chargeLookup, GatewayRejectedError } from '../gateway/types';
import { DEFAULT_LEASE_MS } from '../config';
import { forEachLeased, type LeasedPass } from '../kit/lease';
import { approvedWithoutGateway, cardOnFile, chargeDescription, OPEN_CHARGE_STATUSES, type ChargeOutcome, type ChargeRow } from './charges';
import { recordChargeOutcomes, type BillingEngineDeps } from './engine';

export interface BillingReconcileSettings {
  /**
   * An open charge younger than this (wall clock) may still have its worker waiting for the
   * gateway: well above the gateway timeout (GATEWAY_TIMEOUT_MS, 15 s by default).
   */
  staleAfterSeconds: number;
  /**
   * Open charges looked at per run: least recently asked about first, so charges the gateway
   * cannot answer about yet never crowd out the others.
   */
  limit: number;
  /** How long a pass holds a charge it asks about (server/kit/lease.ts). */
  leaseMs: number;
}

export const DEFAULT_BILLING_RECONCILE_SETTINGS: BillingReconcileSettings = { staleAfterSeconds: 60, limit: 100, leaseMs: DEFAULT_LEASE_MS };

/**
 * What the gateway did with this charge's key, charging it now under that key if it never
 * arrived; `undefined` while that cannot be told. A re-issued charge the gateway refuses before
 * any money moved (GatewayRejectedError) is a failed charge, as in the billing pass (engine.ts).
 */
async function gatewayOutcome(deps: BillingEngineDeps, charge: ChargeRow): Promise<ChargeOutcome | undefined> {
  const [subscription] = await deps.db.select().from(subscriptions).where(eq(subscriptions.id, charge.subscriptionId));
  if (charge.amount === 0) return subscription && approvedWithoutGateway(cardOnFile(subscription));
  const gateway = deps.gateways[charge.livemode ? 'live' : 'test'];
  const found = await gateway.retrieveCharge(charge.idempotencyKey, chargeLookup(charge));
  if (found) return found;
  if (!subscription) return undefined;
  try {
    return await gateway.chargeRecurring({
      idempotencyKey: charge.idempotencyKey,
      recurringId: subscription.recurringId,
      amount: charge.amount,
      description: chargeDescription(subscription, charge.cycle),
    });
  } catch (error) {
    if (error instanceof GatewayRejectedError) return null;
    throw error;
  }
}

/**
 * Returns how many open charges it settled; the rest stay open for
 * the next run, marked as asked.
 */
export async function reconcileSubscriptionCharges(deps: BillingEngineDeps, settings: Partial<BillingReconcileSettings> = {}): Promise<number> {
  const { staleAfterSeconds, limit, leaseMs } = { ...DEFAULT_BILLING_RECONCILE_SETTINGS, ...settings };
  const staleBefore = new Date(deps.clock.now().getTime() - staleAfterSeconds * 1000);
  return settleOpenCharges(deps, {
    where: openChargesBefore(staleBefore),
    orderBy: [sql`${subscriptionCharges.checkedAt} asc nulls first`, asc(subscriptionCharges.createdAt)],
    limit,
    now: () => deps.clock.now(),
    leaseMs,
  });
}

/**
 * Recurring charges only: the first charge (or a trial's card check) was made with the customer's
 * card on the hosted page and is settled by the subscription checkout (server/subscriptions).
 */
function openChargesBefore(staleBefore: Date): SQL | undefined {
  return and(inArray(subscriptionCharges.status, [...OPEN_CHARGE_STATUSES]), not(madeOnHostedPage), lte(subscriptionCharges.createdAt, staleBefore));
}

async function settleOpenCharges(deps: BillingEngineDeps, pass: LeasedPass): Promise<number> {
  return forEachLeased(deps.db, subscriptionCharges, pass, async (charge) => {
    let outcome: ChargeOutcome | undefined;
    try {
      outcome = await gatewayOutcome(deps, charge);
    } catch {
      // Gateway unreachable or undecided: the charge stays open and is asked about again.
    }
    if (outcome !== undefined && (await recordChargeOutcomes(deps, [{ charge, outcome }])) > 0) return true;
    await deps.db
      .update(subscriptionCharges)
      .set({ checkedAt: deps.clock.now() })
      .where(and(eq(subscriptionCharges.id, charge.id), inArray(subscriptionCharges.status, [...OPEN_CHARGE_STATUSES])));
    return false;
  });
}
