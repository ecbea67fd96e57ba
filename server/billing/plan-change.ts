/**
 * Plan changes through the API: a new plan now, prorated, or at the next renewal.
 *
 * `prorate_now` in the period [S, E) at t: the old plan's unused time is credited,
 * round_half_up(old × (E − t) / (E − S)); the new plan's remaining time is charged, the same
 * share of it when the interval stays (the period kept), else all of it (its periods count anew
 * from t). Each plan's amount is discounted where the period it prices starts before the
 * discount's end. What is left to pay is charged at once on the card on file as a recurring
 * charge; what is left over goes into the credit balance. A trial changes plan without a charge.
 *
 * A change that charges is written `processing` (plan_changes) under its own idempotency key in
 * the transaction that locks the subscription and checks it, before the gateway call; its outcome
 * is recorded in a second transaction under the lock again, only while still open, so the request,
 * and the reconciler after a timeout, settle it exactly once. Billing claims no subscription while
 * one is open, and a change waits for an open renewal or card update to settle: the card is charged
 * by one of them at a time. Lives in billing because money taken for a subscription that ended
 * meanwhile is paid back as a renewal's is (charges.ts).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { OPEN_PAYMENT_METHOD_UPDATE_STATUSES, paymentMethodUpdates, planChanges, stores, subscriptionCharges, subscriptions, type PlanTerms } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds, storeClock, type Clock } from '../clock';
import { DEFAULT_LEASE_MS } from '../config';
import { ApiError, resourceMissing } from '../errors';
import { GatewayRejectedError, type ChargeResult } from '../gateway/types';
import { newId } from '../ids';
import { createIdempotently, type IdempotentRequest } from '../kit/idempotency';
import { scaleRoundHalfUp } from '../kit/rounding';
import { ownedBy, type Scope } from '../kit/scope';
import { payOrders } from '../payments/pay-orders';
import { reconcileOpenCharges, type ReconcileSettings } from '../payments/reconcile';
import { planChangeAmountsOf, planChangeOrderPayment } from '../subscriptions/charge-order';
import { resolvePlan } from '../subscriptions/checkouts';
import { periodDiscount } from '../subscriptions/discount';
import { planColumns, planTermsOf, periodsFrom } from '../subscriptions/plan-terms';
import { periodBoundary } from '../subscriptions/schedule';
import { emitSubscriptionEvent, subscriptionObject, type SubscriptionObject, type SubscriptionRow } from '../subscriptions/representation';
import type { ChangeSubscriptionInput } from '../subscriptions/schemas';
import { OPEN_CHARGE_STATUSES, OPEN_PLAN_CHANGE_STATUSES, reservePayBack, type PayBack } from './charges';
import { inProgress } from './card-update';
import { sendPayBack, type BillingEngineDeps } from './engine';

export type PlanChangeRow = typeof planChanges.$inferSelect;

export interface PlanChangeDeps extends BillingEngineDeps {
  /** Wall clock; the store's clock is derived per subscription (test mode: its test clock). */
  clock: Clock;
}

const OPERATION = 'subscription.change';

/** The plan fields that make a plan: two plans alike in all of them are the same plan. */
function samePlan(a: PlanTerms, b: PlanTerms): boolean {
  return a.price_id === b.price_id && a.product_id === b.product_id && a.plan_name === b.plan_name && a.amount === b.amount && a.interval === b.interval && a.interval_count === b.interval_count;
}

const sameInterval = (a: PlanTerms, b: PlanTerms) => a.interval === b.interval && a.interval_count === b.interval_count;

/** `terms`' amount less the subscription's discount where the period it prices starts at `periodStart`. */
function discountedAmount(subscription: SubscriptionRow, terms: PlanTerms, periodStart: Date): number {
  return terms.amount - periodDiscount({ ...subscription, productId: terms.product_id }, terms.amount, periodStart);
}

/** The proration of a change at `at` in the current period: the credit, the charge, and the period the charge prices. */
function prorate(subscription: SubscriptionRow, to: PlanTerms, at: Date): { credit: number; charge: number; period: { start: Date; end: Date } } {
  const from = planTermsOf(subscription);
  const start = epochSeconds(subscription.currentPeriodStart);
  const end = epochSeconds(subscription.currentPeriodEnd);
  const left = Math.max(0, end - Math.max(start, epochSeconds(at)));
  const credit = scaleRoundHalfUp(discountedAmount(subscription, from, subscription.currentPeriodStart), left, end - start);
  if (sameInterval(from, to)) {
    return { credit, charge: scaleRoundHalfUp(discountedAmount(subscription, to, subscription.currentPeriodStart), left, end - start), period: { start: at, end: subscription.currentPeriodEnd } };
  }
  return { credit, charge: discountedAmount(subscription, to, at), period: { start: at, end: periodBoundary(at, to.interval, to.interval_count, 1) } };
}

/** What applying a prorated change at `at` sets: the new plan (its periods from `at` when the interval changes), no pending change. */
function appliedChange(subscription: SubscriptionRow, to: PlanTerms, at: Date): Partial<SubscriptionRow> {
  // The changed period stands in for the current one: the cycle last paid.
  const periods = sameInterval(planTermsOf(subscription), to) ? planColumns(to) : periodsFrom(to, at, subscription.paymentsMade);
  return { ...periods, pendingChange: null };
}

const CHANGEABLE = new Set<SubscriptionRow['status']>(['active', 'trialing']);

async function lockSubscription(tx: Transaction, scope: Scope, id: string): Promise<SubscriptionRow> {
  const [locked] = await tx
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
    .for('update');
  if (!locked) throw resourceMissing('subscription', id);
  return locked;
}

/** Refuses a change while a charge of the subscription is at the gateway: a renewal, a card update's, or another change. Asked under the row lock. */
async function refuseWhileCharging(tx: Transaction, id: string): Promise<void> {
  const [charge] = await tx
    .select({ id: subscriptionCharges.id })
    .from(subscriptionCharges)
    .where(and(eq(subscriptionCharges.subscriptionId, id), inArray(subscriptionCharges.status, [...OPEN_CHARGE_STATUSES])))
    .limit(1);
  const [update] = await tx
    .select({ id: paymentMethodUpdates.id })
    .from(paymentMethodUpdates)
    .where(and(eq(paymentMethodUpdates.subscriptionId, id), inArray(paymentMethodUpdates.status, [...OPEN_PAYMENT_METHOD_UPDATE_STATUSES])))
    .limit(1);
  const [change] = await tx
    .select({ id: planChanges.id })
    .from(planChanges)
    .where(and(eq(planChanges.subscriptionId, id), inArray(planChanges.status, [...OPEN_PLAN_CHANGE_STATUSES])))
    .limit(1);
  if (charge || update || change) throw inProgress();
}

const declinedError = () => new ApiError('card_declined', 'The card on file was declined for this plan change. Nothing changed.');
const unknownError = (id: string) =>
  new ApiError(
    'payment_outcome_unknown',
    `The payment gateway did not confirm the charge of plan change ${id}. The service asks again in the background and applies the change if the charge went through.`,
  );

/** The answer for a change as its row stands: the subscription once applied, else the error its charge left. */
async function answerOf(db: Database, scope: Scope, subscriptionId: string, change: PlanChangeRow | undefined): Promise<SubscriptionObject> {
  if (change?.status === 'declined') throw declinedError();
  if (change?.status === 'processing' || change?.status === 'unknown') throw unknownError(change.id);
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), ownedBy(subscriptions, scope)));
  if (!row) throw resourceMissing('subscription', subscriptionId);
  return subscriptionObject(row);
}

/**
 * POST /subscriptions/{id}/change. A replay of the key answers as the first request did: the
 * subscription as it is now, or the charge's decline or unknown outcome.
 */
export async function changeSubscriptionPlan(
  deps: PlanChangeDeps & { actor: Actor },
  scope: Scope,
  id: string,
  input: Omit<ChangeSubscriptionInput, 'id'>,
  idempotency: IdempotentRequest | undefined,
): Promise<SubscriptionObject> {
  const changeId = newId('pch', scope.livemode);
  const [store] = await deps.db.select({ offset: stores.testClockOffsetSeconds }).from(stores).where(eq(stores.id, scope.storeId));
  const clock = storeClock(deps.clock, { livemode: scope.livemode, testClockOffsetSeconds: store?.offset ?? 0 });
  const now = clock.now();
  const wallNow = deps.clock.now();
  let charging: { change: PlanChangeRow; recurringId: string } | undefined;

  const write = async (tx: Transaction): Promise<SubscriptionObject> => {
    const before = await lockSubscription(tx, scope, id);
    if (!CHANGEABLE.has(before.status) || before.cancelAtPeriodEnd) {
      const why = before.cancelAtPeriodEnd ? 'its end is scheduled' : `it is ${before.status}`;
      throw new ApiError('subscription_not_active', `This subscription cannot change plan: ${why}. Only an active or trialing subscription without a scheduled end does.`);
    }
    await refuseWhileCharging(tx, before.id);
    const plan = await resolvePlan(tx, scope, { ...input, plan_name: input.amount === undefined ? undefined : (input.plan_name ?? before.planName) });
    const to = planTermsOf(plan);
    const from = planTermsOf(before);
    if (samePlan(from, to)) throw new ApiError('parameter_invalid', 'The subscription is on this plan already.', { param: input.price_id === undefined ? 'amount' : 'price_id' });
    const proration = input.proration ?? 'prorate_now';
    const audit = (details: Record<string, unknown>) =>
      recordAudit(tx, actorAudit(scope, deps.actor, 'subscription.change', { subscription: before.id, proration, from: from.plan_name, to: to.plan_name, ...details }));
    const apply = async (changes: Partial<SubscriptionRow>) => {
      const [after] = await tx.update(subscriptions).set(changes).where(eq(subscriptions.id, before.id)).returning();
      await emitSubscriptionEvent(tx, after!, 'subscription.updated', { now, wallNow }, before);
      return subscriptionObject(after!);
    };

    if (proration === 'next_period') {
      await audit({ effective_at: epochSeconds(before.currentPeriodEnd) });
      return apply({ pendingChange: { ...to, effective_at: epochSeconds(before.currentPeriodEnd) } });
    }
    if (before.status === 'trialing') {
      await audit({ charged: 0 });
      return apply({ ...planColumns(to), pendingChange: null });
    }
    const { credit, charge, period } = prorate(before, to, now);
    if (charge - credit <= 0) {
      await audit({ credit, charge, charged: 0 });
      return apply({ ...appliedChange(before, to, now), creditBalance: before.creditBalance + credit - charge });
    }
    const amounts = planChangeAmountsOf({ ...before, ...planColumns(to) }, deps.config.taxRates, now, { charge, credit });
    const [row] = await tx
      .insert(planChanges)
      .values({
        id: changeId,
        subscriptionId: before.id,
        storeId: before.storeId,
        livemode: before.livemode,
        status: 'processing',
        idempotencyKey: `plan_change:${changeId}`,
        fromPlan: from,
        toPlan: to,
        changedAt: now,
        periodStart: period.start,
        periodEnd: period.end,
        credit,
        charge,
        ...amounts,
        // Wall clock: the reconciler's grace period is measured on it.
        createdAt: wallNow,
      })
      .returning();
    await audit({ plan_change: changeId, credit, charge, amount: amounts.amount });
    charging = { change: row!, recurringId: before.recurringId };
    return subscriptionObject(before);
  };

  const { result, replayed } = await createIdempotently({
    db: deps.db,
    scope,
    operation: OPERATION,
    // The path's subscription is part of the request: one key never changes two subscriptions.
    request: idempotency && Object.assign(idempotency, { body: { ...(idempotency.body as object), id } }),
    now,
    resourceId: changeId,
    create: (executor) => ('rollback' in executor ? write(executor) : executor.transaction(write)),
    replay: async (resourceId) => {
      const [change] = await deps.db.select().from(planChanges).where(eq(planChanges.id, resourceId));
      return answerOf(deps.db, scope, id, change);
    },
  });
  if (replayed || charging === undefined) return result;

  const { change, recurringId } = charging;
  let outcome: ChargeResult | null;
  try {
    outcome = await deps.gateways[change.livemode ? 'live' : 'test'].chargeRecurring({
      idempotencyKey: change.idempotencyKey,
      recurringId,
      amount: change.amount,
      description: `${change.toPlan.plan_name} ${change.subscriptionId}, plan change`,
    });
  } catch (error) {
    if (!(error instanceof GatewayRejectedError)) {
      await deps.db
        .update(planChanges)
        .set({ status: 'unknown' })
        .where(and(eq(planChanges.id, change.id), eq(planChanges.status, 'processing')));
      throw unknownError(change.id);
    }
    outcome = null;
  }
  const settled = await settlePlanChange(deps, change.id, outcome);
  return answerOf(deps.db, scope, id, settled);
}

/**
 * Records a change's charge exactly once (only an open row changes, under the subscription's lock).
 *
 * | Outcome | Change | Events |
 * |---|---|---|
 * | declined, or refused before money moved | the change `declined`, nothing else | none |
 * | approved, the subscription still on the old plan in that period | the new plan, its order paid (invoice, receipt, ledger) | `subscription.updated`, `invoice.issued`, `order.paid` |
 * | approved, the subscription changed or ended meanwhile | its order paid and refunded in full | the order's |
 */
export async function settlePlanChange(deps: PlanChangeDeps, changeId: string, outcome: ChargeResult | null, nothingChargedCode = 'processing_error'): Promise<PlanChangeRow> {
  let payBack: { subscription: SubscriptionRow; payBack: PayBack } | undefined;
  const settled = await deps.db.transaction(async (tx) => {
    const [ref] = await tx.select({ subscriptionId: planChanges.subscriptionId }).from(planChanges).where(eq(planChanges.id, changeId));
    if (!ref) throw new Error(`plan change ${changeId} vanished`);
    const [locked] = await tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(eq(subscriptions.id, ref.subscriptionId))
      .for('update', { of: subscriptions });
    if (!locked) throw new Error(`subscription of plan change ${changeId} vanished`);
    const [change] = await tx.select().from(planChanges).where(eq(planChanges.id, changeId));
    if (!change || !OPEN_PLAN_CHANGE_STATUSES.includes(change.status)) return change!;

    const before = locked.subscription;
    const wallNow = deps.clock.now();
    const now = storeClock(deps.clock, { livemode: before.livemode, testClockOffsetSeconds: locked.offset }).now();
    const times = { now, wallNow };
    const card = outcome ? { cardBrand: outcome.brand, cardLast4: outcome.last4, gatewayPaymentId: outcome.paymentId ?? null } : {};
    const record = async (changes: Partial<PlanChangeRow>) => (await tx.update(planChanges).set(changes).where(eq(planChanges.id, changeId)).returning())[0]!;
    if (outcome?.status !== 'succeeded')
      return record({ status: 'declined', failureCode: outcome === null ? nothingChargedCode : outcome.status === 'declined' ? outcome.code : 'authentication_required', ...card, settledAt: now });

    const stillDue =
      CHANGEABLE.has(before.status) &&
      !before.cancelAtPeriodEnd &&
      samePlan(planTermsOf(before), change.fromPlan) &&
      before.currentPeriodStart.getTime() <= change.changedAt.getTime() &&
      change.changedAt.getTime() < before.currentPeriodEnd.getTime();
    const paid = {
      fromPlanName: change.fromPlan.plan_name,
      toPlanName: change.toPlan.plan_name,
      credit: change.credit,
      amount: change.amount,
      amountTax: change.amountTax,
      taxRate: change.taxRate,
      card: { brand: outcome.brand, last4: outcome.last4 },
      gatewayPaymentId: outcome.paymentId,
      period: { start: change.changedAt, end: change.periodEnd },
    };
    if (!stillDue) {
      const payment = planChangeOrderPayment(before, paid, times);
      await payOrders(tx, deps, [payment]);
      payBack = { subscription: before, payBack: await reservePayBack(tx, deps.clock, payment, locked.offset) };
      return record({ status: 'succeeded', failureCode: null, ...card, orderId: payment.order.id, settledAt: now });
    }
    const [after] = await tx
      .update(subscriptions)
      .set(appliedChange(before, change.toPlan, change.changedAt))
      .where(eq(subscriptions.id, before.id))
      .returning();
    await emitSubscriptionEvent(tx, after!, 'subscription.updated', times, before);
    const payment = planChangeOrderPayment(after!, paid, times);
    await payOrders(tx, deps, [payment]);
    return record({ status: 'succeeded', failureCode: null, ...card, orderId: payment.order.id, settledAt: now });
  });
  if (payBack) await sendPayBack(deps, payBack.subscription, payBack.payBack);
  return settled;
}

/**
 * Settles changes whose charge's outcome was never recorded (a timeout left them `unknown`, a
 * crash `processing`): it asks the gateway under the change's key and never charges, since the
 * customer was told the outcome is unknown; a key the gateway never received, after the grace
 * period, moved nothing (declined `processing_error`). Returns how many it settled.
 */
export async function reconcilePlanChanges(deps: PlanChangeDeps, settings: Partial<ReconcileSettings> = {}, leaseMs = DEFAULT_LEASE_MS): Promise<number> {
  return reconcileOpenCharges(
    deps,
    planChanges,
    inArray(planChanges.status, [...OPEN_PLAN_CHANGE_STATUSES]),
    (change, answer) => settlePlanChange(deps, change.id, answer.found).then(() => undefined),
    settings,
    leaseMs,
  );
}
