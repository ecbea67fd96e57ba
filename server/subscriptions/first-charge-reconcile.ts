/**
 * Settles first charges whose outcome was never recorded (a timeout left them `unknown`, a crash
 * `processing`, a customer never came back from a 3-D Secure challenge): the billing reconciler
 * leaves cycle 1 to us, because the first charge was made with the customer's card, which only
 * the hosted page ever held. So this never charges: it asks the gateway what happened under the
 * charge's key; a key the gateway never received (after a grace period, since an acquirer's
 * look-up may lag) means nothing moved, and the subscription becomes `incomplete`. A challenge
 * still unfinished after an hour is withdrawn at the gateway (`authentication_required`).
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { subscriptionCharges } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import { DEFAULT_RECONCILE_SETTINGS } from '../payments/reconcile';
import { OPEN_FIRST_CHARGE_STATUSES, settleFirstCharge } from './first-charge';
import { chargeLookup } from '../gateway/types';

export interface FirstChargeReconcileSettings {
  /** An open charge younger than this (wall clock) may still have its request waiting for the gateway. */
  staleAfterSeconds: number;
  /** "The gateway has no such charge" is trusted only for charges older than this. */
  notFoundAfterSeconds: number;
  /** A 3-D Secure challenge still unfinished this long after the charge began is withdrawn. */
  abandonChallengeAfterSeconds: number;
}

export const DEFAULT_FIRST_CHARGE_RECONCILE_SETTINGS: FirstChargeReconcileSettings = {
  staleAfterSeconds: 60,
  notFoundAfterSeconds: 120,
  abandonChallengeAfterSeconds: DEFAULT_RECONCILE_SETTINGS.abandonChallengeAfterSeconds,
};

/** Returns how many first charges it settled. */
export async function reconcileFirstCharges(deps: Pick<Services, 'db' | 'clock' | 'gateways'>, settings: Partial<FirstChargeReconcileSettings> = {}): Promise<number> {
  const { staleAfterSeconds, notFoundAfterSeconds, abandonChallengeAfterSeconds } = { ...DEFAULT_FIRST_CHARGE_RECONCILE_SETTINGS, ...settings };
  const now = deps.clock.now().getTime();
  const open = await deps.db
    .select()
    .from(subscriptionCharges)
    .where(
      and(
        inArray(subscriptionCharges.status, [...OPEN_FIRST_CHARGE_STATUSES]),
        eq(subscriptionCharges.cycle, 1),
        eq(subscriptionCharges.attempt, 0),
        lte(subscriptionCharges.createdAt, new Date(now - staleAfterSeconds * 1000)),
      ),
    )
    .orderBy(asc(subscriptionCharges.createdAt))
    .limit(100);
  let settled = 0;
  for (const charge of open) {
    const gateway = deps.gateways[charge.livemode ? 'live' : 'test'];
    const ageMs = now - charge.createdAt.getTime();
    let found;
    let withdrawn = false;
    try {
      found = await gateway.retrieveCharge(charge.idempotencyKey, chargeLookup(charge));
      if (found?.status === 'requires_action') {
        // A customer sent to the challenge may still be there; one whose request timed out never saw it.
        if (charge.status === 'requires_action' && ageMs < abandonChallengeAfterSeconds * 1000) continue;
        found = await gateway.cancelCharge(found.paymentId);
        withdrawn = true;
      }
    } catch {
      continue;
    }
    if (found === null && !withdrawn && ageMs < notFoundAfterSeconds * 1000) continue;
    await settleFirstCharge(deps.db, deps.clock, charge.id, found, withdrawn ? 'authentication_required' : undefined);
    settled += 1;
  }
  return settled;
}

export function startFirstChargeReconciler(services: Services, options: { intervalMs?: number } = {}): PeriodicTask {
  return startPeriodic('first charge reconciliation', () => reconcileFirstCharges(services), { intervalMs: options.intervalMs ?? 30_000 });
}
