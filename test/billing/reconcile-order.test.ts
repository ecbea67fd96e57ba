import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { stores } from '@/db/schema';
import { billDueSubscriptions, type BillingEngineDeps } from '@/server/billing/engine';
import { reconcileSubscriptionCharges } from '@/server/billing/reconcile';
import { GatewayTimeoutError, type PaymentGateway } from '@/server/gateway/types';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';
import { chargesOf } from './support';

/**
 * The charge reconciler asks about the least recently asked charges first, so open charges the
 * gateway cannot answer about (yet) never crowd out the others, whatever their number.
 */
const api = useTestApi({ subscriptionsEnabled: true });
beforeEach(() => api.clock.set(T0));

const RENEWAL = epoch(periodBoundary(T0, 'month', 1, 1)) - epoch(T0);

/** The simulator with recurring charges that time out before reaching it, and look-ups answered by `retrieve`. */
function withGateway(retrieve: PaymentGateway['retrieveCharge'], timeOutCharges: boolean): BillingEngineDeps {
  const simulator = api.services.gateways.test;
  const gateway: PaymentGateway = {
    ...simulator,
    retrieveCharge: retrieve,
    async chargeRecurring(request) {
      if (timeOutCharges) throw new GatewayTimeoutError();
      return simulator.chargeRecurring(request);
    },
  };
  return { ...api.services, gateways: { ...api.services.gateways, test: gateway } };
}

/** A subscription whose renewal is due (its store's clock moved past it, nothing billed yet). */
async function dueRenewal() {
  const store = await createStore(api.services, { subscriptions: true });
  const sub = await createSubscription(api.services, store.id, {});
  await api.services.db.update(stores).set({ testClockOffsetSeconds: RENEWAL }).where(eq(stores.id, store.id));
  return { sub, storeId: store.id };
}

/** Bills it now (wall clock) with a renewal that times out before reaching the gateway: the charge stays `unknown`. */
async function timeOutRenewal({ sub, storeId }: Awaited<ReturnType<typeof dueRenewal>>) {
  const scope = { kind: 'store' as const, storeId, livemode: false, now: new Date(T0.getTime() + RENEWAL * 1000) };
  await billDueSubscriptions(withGateway(api.services.gateways.test.retrieveCharge, true), scope);
  expect((await chargesOf(api.services.db, sub.id)).map((charge) => charge.status)).toEqual(['succeeded', 'unknown']);
  return sub;
}

describe('charge reconciliation order', () => {
  it('charges the gateway cannot answer about are asked about after the others: a batch of two still reaches the third', async () => {
    const due = [await dueRenewal(), await dueRenewal(), await dueRenewal()];
    const stuck = [await timeOutRenewal(due[0]!), await timeOutRenewal(due[1]!)];
    api.clock.advance(1);
    const answerable = await timeOutRenewal(due[2]!);
    api.clock.advance(61);

    const simulator = api.services.gateways.test;
    const asked: string[] = [];
    const deps = withGateway(async (key, paymentId) => {
      asked.push(key);
      if (stuck.some((sub) => key.includes(sub.id))) throw new GatewayTimeoutError();
      return simulator.retrieveCharge(key, paymentId);
    }, false);

    expect(await reconcileSubscriptionCharges(deps, { limit: 2 })).toBe(0);
    expect(asked.map((key) => key.split(':')[1]).sort()).toEqual(stuck.map((sub) => sub.id).sort());
    // The two just asked about go last: the next batch of two starts with the third.
    expect(await reconcileSubscriptionCharges(deps, { limit: 2 })).toBe(1);
    expect(asked[2]).toContain(answerable.id);
    expect((await chargesOf(api.services.db, answerable.id)).map((charge) => charge.status)).toEqual(['succeeded', 'succeeded']);
    for (const sub of stuck) expect((await chargesOf(api.services.db, sub.id)).map((charge) => charge.status)).toEqual(['succeeded', 'unknown']);
  });
});
