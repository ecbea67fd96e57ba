/**
 * Settles first charges whose outcome was never recorded (a timeout left them `unknown`, a crash
 * `processing`, a customer never came back from a 3-D Secure challenge): the billing reconciler
 * leaves the charge made on the hosted page to us, because the first charge was made with the customer's card, which only
 * the hosted page ever held. So this never charges: it asks the gateway what happened under the
 * charge's key; a key the gateway never received (after a grace period for a request it may
 * still be receiving) means nothing moved, and the subscription becomes `incomplete`. A challenge
 * still unfinished after an hour is withdrawn at the gateway (`authentication_required`).
 */
import { and, inArray } from 'drizzle-orm';
import { subscriptionCharges } from '@/db/schema';
import type { Services } from '../context';
import { DEFAULT_LEASE_MS } from '../config';
import { reconcileOpenCharges, type ReconcileSettings } from '../payments/reconcile';
import { madeOnHostedPage, OPEN_FIRST_CHARGE_STATUSES, settleFirstCharge } from './first-charge';

/**
 * Returns how many first charges it settled. The timings are the hosted checkout's
 * (server/payments/reconcile.ts): the same customer-facing payment, made the same way. Least
 * recently asked about first, and every charge left open is marked asked, so challenges still
 * waiting for their customer never crowd out the others. Each is leased while it is asked about
 * (server/kit/lease.ts): passes of several processes never ask about one at once.
 */
export async function reconcileFirstCharges(deps: Pick<Services, 'db' | 'clock' | 'gateways' | 'config'>, settings: Partial<ReconcileSettings> = {}, leaseMs = DEFAULT_LEASE_MS): Promise<number> {
  return reconcileOpenCharges(
    deps,
    subscriptionCharges,
    and(inArray(subscriptionCharges.status, [...OPEN_FIRST_CHARGE_STATUSES]), madeOnHostedPage),
    (charge, answer) => settleFirstCharge(deps, charge.id, answer.found, answer.withdrawn ? 'authentication_required' : undefined).then(() => undefined),
    settings,
    leaseMs,
  );
}
