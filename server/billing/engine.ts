/**
 * Recurring billing: every charge of a subscription after the
 * first. Per due subscription: (1) claim it and write the charge `processing` (charges.ts, one
 * short transaction); (2) call the gateway's recurring contract with the charge's idempotency
 * key, outside any transaction; (3) settle the batch's charges and move their subscriptions in one
 * transaction. A crash between (2) and (3) leaves the charge open; the reconciler
 * (reconcile.ts) asks the gateway under the same key and settles it, so it is never charged twice.
 *
 * A pass repeats claiming until nothing is due: a subscription whose clock jumped several
 * cycles is charged once per missed cycle, in order (each its own charge row and events), until
 * one fails (the retries at +1, +3, +5, +7 days take over, also in order) or the schedule ends.
 */
import { GatewayRejectedError, GatewayTimeoutError, type Gateways } from '../gateway/types';
import { sendRefund } from '../orders/refunds/service';
import type { SubscriptionRow } from '../subscriptions/representation';
import { approvedWithoutGateway, claimDueCharges, markChargeUnknown, settleCharges, type BillingDeps, type BillingScope, type ChargeToSettle, type ClaimedCharge, type PayBack } from './charges';
import { log } from '../observability/log';

export interface BillingEngineDeps extends BillingDeps {
  gateways: Gateways;
}

export interface BillingOptions {
  /** Subscriptions claimed per transaction. */
  batchSize?: number;
  /** Gateway calls in flight at once per lane. */
  concurrency?: number;
  /** Batches a pass works on at once: one settles while another is at the gateway. */
  lanes?: number;
}

const DEFAULTS = { batchSize: 50, concurrency: 8, lanes: 2 };

/**
 * Calls the gateway for one claimed charge (one of 0 needs none). A timeout or an unexpected failure leaves the
 * outcome unknown (the reconciler settles it): undefined. A refusal before any money moved
 * (GatewayRejectedError: no live credentials, a request the acquirer rejects) is a failed charge
 * like a decline (`processing_error`), and the retries follow.
 */
async function callGateway(deps: BillingEngineDeps, claimed: ClaimedCharge): Promise<ChargeToSettle | undefined> {
  const { charge } = claimed;
  if (charge.amount === 0) return { charge, outcome: approvedWithoutGateway(claimed.card) };
  const gateway = deps.gateways[charge.livemode ? 'live' : 'test'];
  try {
    return { charge, outcome: await gateway.chargeRecurring({ idempotencyKey: charge.idempotencyKey, recurringId: claimed.recurringId, amount: charge.amount, description: claimed.description }) };
  } catch (error) {
    if (error instanceof GatewayRejectedError) return { charge, outcome: null };
    if (!(error instanceof GatewayTimeoutError)) log.error(`billing: charge ${charge.idempotencyKey} failed: ${error instanceof Error ? error.message : String(error)}`);
    await markChargeUnknown(deps.db, charge.id);
    return undefined;
  }
}

/**
 * Settles charges together (charges.ts); where that exhausted a subscription's retries, its
 * contract ends at the gateway too, and money taken after a cancel is paid back. Returns how many
 * this call settled.
 */
export async function recordChargeOutcomes(deps: BillingEngineDeps, batch: readonly ChargeToSettle[]): Promise<number> {
  const settlements = await settleCharges(deps, batch);
  for (const settlement of settlements) {
    if (settlement.events.includes('subscription.canceled')) await endRecurringContract(deps, settlement.subscription);
    if (settlement.payBack) await sendPayBack(deps, settlement.subscription, settlement.payBack);
  }
  return settlements.filter((settlement) => settlement.settled).length;
}

/**
 * A cancel that lands while a renewal is at the gateway stops the subscription, but the gateway
 * may still take that charge: its order was refunded in full as it settled, and the refund is sent
 * here like any other (a credit note, `order.refunded`, the refund e-mail). One the gateway does
 * not answer stays pending and the refunds reconciler finishes it under the same key.
 */
export async function sendPayBack(deps: BillingEngineDeps, subscription: Pick<SubscriptionRow, 'storeId' | 'livemode'>, payBack: PayBack): Promise<void> {
  const { livemode, storeId } = subscription;
  try {
    await sendRefund({ db: deps.db, clock: payBack.clock, wallClock: deps.clock, gateway: deps.gateways[livemode ? 'live' : 'test'] }, { storeId, livemode }, payBack.reserved);
  } catch (error) {
    log.error(`billing: paying back ${payBack.reserved.refund.orderId} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Retries exhausted, a scheduled end reached, or a card replaced: that recurring contract is
 * cancelled at the gateway too, after the commit. Best effort: nothing charges it again either way.
 */
export async function endRecurringContract(deps: Pick<BillingEngineDeps, 'gateways'>, subscription: Pick<SubscriptionRow, 'id' | 'livemode' | 'recurringId'>): Promise<void> {
  try {
    await deps.gateways[subscription.livemode ? 'live' : 'test'].cancelRecurring(subscription.recurringId);
  } catch (error) {
    log.error(`billing: cancelling contract ${subscription.recurringId} of ${subscription.id} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/**
 * Bills every subscription due in `scope` until none is left: each claimed batch goes to the
 * gateway `concurrency` calls at a time, then is settled in one transaction. Returns how many
 * charges were settled plus how many subscriptions expired uncharged. Any number of passes may
 * run at once, in one process or many.
 */
export async function billDueSubscriptions(deps: BillingEngineDeps, scope: BillingScope = { kind: 'all' }, options: BillingOptions = {}): Promise<number> {
  const { batchSize, concurrency, lanes } = { ...DEFAULTS, ...options };
  let handled = 0;
  const lane = async () => {
    for (;;) {
      const { claimed, expired, ended } = await claimDueCharges(deps, scope, batchSize);
      handled += expired;
      for (const subscription of ended) await endRecurringContract(deps, subscription);
      if (claimed.length === 0 && expired === 0) return;
      const answered: ChargeToSettle[] = [];
      await forEachLimited(claimed, concurrency, async (charge) => {
        const answer = await callGateway(deps, charge);
        if (answer) answered.push(answer);
      });
      // Read after the await: the lanes add to one count.
      const settled = await recordChargeOutcomes(deps, answered);
      handled += settled;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return handled;
}
