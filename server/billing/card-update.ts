/**
 * A new card for a subscription, given on the update-payment-method page. The card is checked
 * at the gateway as the first charge of a new recurring contract: 0 for an `active` subscription
 * (no money moves), or for a `past_due` one the owed charge, made at once on the new card
 * outside the retries. Only an approved card replaces the one on file (and its contract, cancelled
 * after the commit); a decline changes nothing.
 *
 * Exactly once: the update row is written `processing` under its own idempotency key before the
 * gateway call, with the subscription locked, and billing claims no subscription while it is
 * open (charges.ts), so the owed charge is made by the update or by a retry, never both. The
 * submitting request, the 3-D Secure return and the reconciler may all settle it; under the
 * subscription's lock only an open row changes. Lives in billing because the owed charge moves
 * the subscription as a successful retry does (transitions.ts).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { OPEN_PAYMENT_METHOD_UPDATE_STATUSES, paymentMethodUpdates, planChanges, stores, subscriptionCharges, subscriptions, type DocumentLanguage } from '@/db/schema';
import { byActor, recordAudit, type CustomerActor } from '../audit/service';
import { validateCard, type CardFields } from '../checkout/card';
import { storeClock } from '../clock';
import { DEFAULT_LEASE_MS, type Config } from '../config';
import { ApiError, resourceMissing } from '../errors';
import { isTestCard } from '../gateway/simulator';
import { chargeLookup, GatewayRejectedError, type ChargeResult } from '../gateway/types';
import { newId, randomBase62 } from '../ids';
import type { BuyerClient } from '../kit/hosted-page/request';
import { hostedPagePath } from '../kit/links';
import { log } from '../observability/log';
import { payOrders } from '../payments/pay-orders';
import { reconcileOpenCharges, type ReconcileSettings } from '../payments/reconcile';
import { chargeOrderPayment, type PaidCharge } from '../subscriptions/charge-order';
import { owedChargeAmounts } from '../subscriptions/discount';
import { CARD_UPDATABLE_STATUSES } from '../subscriptions/payment-method-link';
import { emitSubscriptionEvent, type SubscriptionRow } from '../subscriptions/representation';
import { applyTransition, chargeDescription, OPEN_CHARGE_STATUSES, OPEN_PLAN_CHANGE_STATUSES, reservePayBack, unowedChargePayment, type PayBack } from './charges';
import { endRecurringContract, sendPayBack, type BillingEngineDeps } from './engine';
import { awaitsCharge, chargeSucceeded, owedCharge } from './transitions';

export type CardUpdateRow = typeof paymentMethodUpdates.$inferSelect;

export interface CardUpdateDeps extends BillingEngineDeps {
  config: BillingEngineDeps['config'] & Pick<Config, 'publicBaseUrl' | 'authSecret' | 'subscriptionsEnabled'>;
}

export interface CardUpdateInput {
  subscriptionId: string;
  card: CardFields;
  /** The customer's address and browser: kept with the owed charge's order, as evidence. */
  buyer: BuyerClient;
  actor: CustomerActor;
  /** The page's signed link, which the 3-D Secure challenge returns to, and its language, which the page after it keeps. */
  link: { expires: string; signature: string };
  language: DocumentLanguage;
}

/** The update as recorded, and the bank's challenge when the customer must pass one first. */
export interface CardUpdateResult {
  update: CardUpdateRow;
  challengeUrl?: string;
}

const isOpen = (status: CardUpdateRow['status']) => (OPEN_PAYMENT_METHOD_UPDATE_STATUSES as readonly string[]).includes(status);

export const inProgress = () => new ApiError('session_payment_in_progress', 'A payment of this subscription is being processed right now. Nothing was charged: try again in a few minutes.');

/** Where the acquirer sends the customer back after a 3-D Secure challenge: below the page's own signed link, in its language. */
export function cardUpdateReturnUrl(config: Pick<Config, 'publicBaseUrl'>, subscriptionId: string, link: CardUpdateInput['link'], updateId: string, language: DocumentLanguage): string {
  return `${config.publicBaseUrl}${hostedPagePath('payment_method', { id: subscriptionId, ...link }, { update: updateId, lang: language }, '/return')}`;
}

/**
 * The page's POST: every refusal comes before anything is written (the merchant's state, the
 * subscription's, the card's own checks); then the update is recorded, the gateway called, and
 * the outcome settled. A gateway that does not answer leaves the update `unknown` for the
 * reconciler, which asks under the same key and never charges again.
 */
export async function updatePaymentMethod(deps: CardUpdateDeps, input: CardUpdateInput): Promise<CardUpdateResult> {
  const [loaded] = await deps.db
    .select({
      subscription: subscriptions,
      storeName: stores.name,
      offset: stores.testClockOffsetSeconds,
      suspended: stores.suspended,
      liveApi: stores.liveApi,
      subscriptionsFlag: stores.subscriptions,
    })
    .from(subscriptions)
    .innerJoin(stores, eq(stores.id, subscriptions.storeId))
    .where(eq(subscriptions.id, input.subscriptionId))
    .limit(1);
  if (!loaded) throw resourceMissing('subscription', input.subscriptionId);
  const { livemode } = loaded.subscription;
  if ((livemode && (loaded.suspended || !loaded.liveApi)) || !deps.config.subscriptionsEnabled || !loaded.subscriptionsFlag) {
    throw new ApiError('capability_disabled', 'This merchant cannot take a new card at the moment. Nothing was charged.');
  }
  const now = storeClock(deps.clock, { livemode, testClockOffsetSeconds: loaded.offset }).now();
  const card = validateCard(input.card, now);
  if (!livemode && !isTestCard(card.number)) throw new ApiError('unsupported_test_card', 'This card number is not one of the test cards.', { param: 'card_number' });

  const id = newId('pmu', livemode);
  const update = await deps.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(subscriptions).where(eq(subscriptions.id, input.subscriptionId)).for('update');
    if (!locked) throw resourceMissing('subscription', input.subscriptionId);
    if (!(CARD_UPDATABLE_STATUSES as readonly string[]).includes(locked.status)) {
      throw new ApiError('subscription_not_active', `This subscription is ${locked.status}: it takes no new card.`);
    }
    // Asked under the lock, in statements of their own: they see every update and renewal committed before it.
    const [openUpdate] = await tx
      .select({ id: paymentMethodUpdates.id })
      .from(paymentMethodUpdates)
      .where(and(eq(paymentMethodUpdates.subscriptionId, locked.id), inArray(paymentMethodUpdates.status, [...OPEN_PAYMENT_METHOD_UPDATE_STATUSES])))
      .limit(1);
    const [openCharge] = await tx
      .select({ id: subscriptionCharges.id })
      .from(subscriptionCharges)
      .where(and(eq(subscriptionCharges.subscriptionId, locked.id), inArray(subscriptionCharges.status, [...OPEN_CHARGE_STATUSES])))
      .limit(1);
    const [openChange] = await tx
      .select({ id: planChanges.id })
      .from(planChanges)
      .where(and(eq(planChanges.subscriptionId, locked.id), inArray(planChanges.status, [...OPEN_PLAN_CHANGE_STATUSES])))
      .limit(1);
    if (openUpdate || openCharge || openChange) throw inProgress();
    const owed = locked.status === 'past_due' ? { ...owedChargeAmounts(locked, deps.config.taxRates, now), ...owedCharge(locked) } : undefined;
    const [row] = await tx
      .insert(paymentMethodUpdates)
      .values({
        id,
        subscriptionId: locked.id,
        storeId: locked.storeId,
        livemode,
        status: 'processing',
        idempotencyKey: `payment_method_update:${id}`,
        amount: owed?.amount ?? 0,
        amountTax: owed?.amountTax ?? 0,
        taxRate: owed?.taxRate ?? null,
        amountDiscount: owed?.amountDiscount ?? 0,
        amountCredit: owed?.amountCredit ?? 0,
        cycle: owed?.cycle ?? null,
        attempt: owed?.attempt ?? null,
        buyerIp: input.buyer.ip,
        buyerUserAgent: input.buyer.userAgent,
        // Wall clock: the reconciler's grace period is measured on it.
        createdAt: deps.clock.now(),
      })
      .returning();
    await recordAudit(tx, {
      action: 'subscription.payment_method_update',
      storeId: locked.storeId,
      livemode,
      ...byActor(input.actor),
      details: { subscription: locked.id, payment_method_update: id, amount: row!.amount },
    });
    return row!;
  });

  let result: ChargeResult | null;
  try {
    result = await deps.gateways[livemode ? 'live' : 'test'].charge({
      idempotencyKey: update.idempotencyKey,
      amount: update.amount,
      description: update.cycle === null ? `${loaded.storeName}: ${loaded.subscription.planName} (card check)` : `${loaded.storeName}: ${chargeDescription(loaded.subscription, update.cycle)}`,
      card,
      returnUrl: cardUpdateReturnUrl(deps.config, update.subscriptionId, input.link, id, input.language),
      recurring: true,
    });
  } catch (error) {
    if (!(error instanceof GatewayRejectedError)) {
      // The card may have been charged: the row stays open as `unknown`, settled by looking the key up.
      const [unknown] = await deps.db
        .update(paymentMethodUpdates)
        .set({ status: 'unknown' })
        .where(and(eq(paymentMethodUpdates.id, id), eq(paymentMethodUpdates.status, 'processing')))
        .returning();
      return { update: unknown ?? update };
    }
    result = null;
  }
  const settled = await settlePaymentMethodUpdate(deps, id, result);
  if (result?.status === 'requires_action' && settled.status === 'requires_action') return { update: settled, challengeUrl: result.redirectUrl };
  return { update: settled };
}

/** What to do at the gateway once the settlement committed. */
interface AfterCommit {
  /** The recurring contract no card on file uses any more: the replaced one, or a new one not taken. */
  endContract?: Pick<SubscriptionRow, 'id' | 'livemode' | 'recurringId'>;
  payBack?: { subscription: SubscriptionRow; payBack: PayBack };
}

/**
 * Records an update's outcome exactly once. `outcome` null means nothing moved: the gateway
 * refused the call (`processing_error`) or, with `nothingChargedCode`, a challenge was withdrawn.
 *
 * | Outcome | Change | Events |
 * |---|---|---|
 * | challenge | the update waits at `requires_action` | none |
 * | declined | the update `declined`, nothing else | none |
 * | approved, card check of a subscription still charged | `card`, `recurring_id` replaced | `subscription.updated` |
 * | approved, the owed charge still awaited | that, and the charge recorded as a successful retry: `active`, its order paid (invoice, receipt, ledger) | `subscription.payment_succeeded`, `subscription.updated` |
 * | approved, nothing owed any more (ended meanwhile) | money taken is paid back in full; the new contract cancelled | none on the subscription |
 */
export async function settlePaymentMethodUpdate(deps: CardUpdateDeps, updateId: string, outcome: ChargeResult | null, nothingChargedCode = 'processing_error'): Promise<CardUpdateRow> {
  const after: AfterCommit = {};
  const settled = await deps.db.transaction(async (tx) => {
    const [ref] = await tx.select({ subscriptionId: paymentMethodUpdates.subscriptionId }).from(paymentMethodUpdates).where(eq(paymentMethodUpdates.id, updateId));
    if (!ref) throw new Error(`payment method update ${updateId} vanished`);
    const [locked] = await tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(eq(subscriptions.id, ref.subscriptionId))
      .for('update', { of: subscriptions });
    if (!locked) throw new Error(`subscription of payment method update ${updateId} vanished`);
    const [update] = await tx.select().from(paymentMethodUpdates).where(eq(paymentMethodUpdates.id, updateId));
    if (!update || !isOpen(update.status)) return update!;

    const before = locked.subscription;
    const wallNow = deps.clock.now();
    const now = storeClock(deps.clock, { livemode: before.livemode, testClockOffsetSeconds: locked.offset }).now();
    const times = { now, wallNow };
    const card = outcome ? { cardBrand: outcome.brand, cardLast4: outcome.last4, gatewayPaymentId: outcome.paymentId ?? null } : {};
    const record = async (changes: Partial<CardUpdateRow>) => (await tx.update(paymentMethodUpdates).set(changes).where(eq(paymentMethodUpdates.id, updateId)).returning())[0]!;

    if (outcome?.status === 'requires_action') return record({ status: 'requires_action', ...card });
    if (outcome?.status !== 'succeeded') return record({ status: 'declined', failureCode: outcome === null ? nothingChargedCode : outcome.code, ...card, settledAt: now });

    const recurringId = outcome.recurringId ?? '';
    const recorded = await record({ status: 'succeeded', failureCode: null, ...card, recurringId, settledAt: now });
    const newCard = { cardBrand: outcome.brand, cardLast4: outcome.last4, recurringId };
    const stillCharged = (CARD_UPDATABLE_STATUSES as readonly string[]).includes(before.status);
    if (update.cycle === null || update.attempt === null) {
      if (stillCharged) {
        const [replaced] = await tx.update(subscriptions).set(newCard).where(eq(subscriptions.id, before.id)).returning();
        await emitSubscriptionEvent(tx, replaced!, 'subscription.updated', times, before);
        after.endContract = before;
      } else {
        after.endContract = { ...before, recurringId };
      }
      return recorded;
    }

    // The owed charge, recorded as a charge of its cycle like a retry's (its order's invoice points at it).
    const position = { cycle: update.cycle, attempt: update.attempt, scheduledAt: before.nextBillingAt };
    const [charge] = await tx
      .insert(subscriptionCharges)
      .values({
        id: `subch_${randomBase62(24)}`,
        subscriptionId: before.id,
        storeId: before.storeId,
        livemode: before.livemode,
        ...position,
        idempotencyKey: update.idempotencyKey,
        amount: update.amount,
        amountTax: update.amountTax,
        taxRate: update.taxRate,
        amountDiscount: update.amountDiscount,
        amountCredit: update.amountCredit,
        status: 'succeeded',
        cardBrand: outcome.brand,
        cardLast4: outcome.last4,
        gatewayPaymentId: outcome.paymentId,
        createdAt: update.createdAt,
        settledAt: now,
        buyerIp: update.buyerIp,
        buyerUserAgent: update.buyerUserAgent,
      })
      .returning();
    const paid: PaidCharge = {
      id: charge!.id,
      cycle: update.cycle,
      amount: update.amount,
      amountTax: update.amountTax,
      taxRate: update.taxRate,
      amountDiscount: update.amountDiscount,
      amountCredit: update.amountCredit,
      card: { brand: outcome.brand, last4: outcome.last4 },
      gatewayPaymentId: outcome.paymentId,
      buyer: { ip: update.buyerIp, userAgent: update.buyerUserAgent },
    };
    if (awaitsCharge(before, position)) {
      const moved = await applyTransition(tx, before, chargeSucceeded(before, { ...position, amountCredit: update.amountCredit }, now), now, wallNow, newCard);
      await payOrders(tx, deps, [chargeOrderPayment(moved, paid, times)]);
      after.endContract = before;
      return recorded;
    }
    // Ended while the card was at the gateway: the money goes back, and the new contract with it.
    const payment = unowedChargePayment(before, paid, times);
    await payOrders(tx, deps, [payment]);
    after.payBack = { subscription: before, payBack: await reservePayBack(tx, deps.clock, payment, locked.offset) };
    after.endContract = { ...before, recurringId };
    return recorded;
  });
  if (after.payBack) await sendPayBack(deps, after.payBack.subscription, after.payBack.payBack);
  if (after.endContract?.recurringId) await endRecurringContract(deps, after.endContract);
  return settled;
}

/**
 * The customer is back from the bank's 3-D Secure page: settles the update from the gateway's
 * answer. Safe to call again (a reload); a gateway without an answer yet leaves it to the reconciler.
 */
export async function completeCardUpdateChallenge(deps: CardUpdateDeps, subscriptionId: string, updateId: string): Promise<CardUpdateRow | undefined> {
  const [update] = await deps.db
    .select()
    .from(paymentMethodUpdates)
    .where(and(eq(paymentMethodUpdates.id, updateId), eq(paymentMethodUpdates.subscriptionId, subscriptionId)));
  if (update?.status !== 'requires_action') return update;
  let found: ChargeResult | null;
  try {
    found = await deps.gateways[update.livemode ? 'live' : 'test'].retrieveCharge(update.idempotencyKey, chargeLookup(update));
  } catch (error) {
    log.error(`card update ${update.id}: the 3-D Secure outcome could not be read: ${error instanceof Error ? error.message : String(error)}`);
    return update;
  }
  if (found === null || found.status === 'requires_action') return update;
  return settlePaymentMethodUpdate(deps, update.id, found);
}

/**
 * Settles updates whose outcome was never recorded (a timeout left them `unknown`, a crash
 * `processing`, a customer never came back from a challenge), with the first charge's timings
 * (server/subscriptions/first-charge-reconcile.ts): it only asks the gateway under the update's
 * key, never charges, since only the page ever held the card. A key the gateway never received,
 * after the grace period, moved nothing (declined `processing_error`); a challenge unfinished
 * after an hour is withdrawn (`authentication_required`). Returns how many it settled.
 */
export async function reconcileCardUpdates(deps: CardUpdateDeps, settings: Partial<ReconcileSettings> = {}, leaseMs = DEFAULT_LEASE_MS): Promise<number> {
  return reconcileOpenCharges(
    deps,
    paymentMethodUpdates,
    inArray(paymentMethodUpdates.status, [...OPEN_PAYMENT_METHOD_UPDATE_STATUSES]),
    (update, answer) => settlePaymentMethodUpdate(deps, update.id, answer.found, answer.withdrawn ? 'authentication_required' : undefined).then(() => undefined),
    settings,
    leaseMs,
  );
}
