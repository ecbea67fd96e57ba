/**
 * The first charge of a subscription, made on the hosted page.
 *
 * The link is single-use: the attempt burns it before the gateway is called, in one transaction
 * that also creates the subscription (`pending`) and its first charge row (`processing`, with
 * the deterministic key `subscription:<sub id>:1:0`). So a second submit finds the link used and
 * never charges, and a crash after the gateway call leaves a charge row to reconcile
 * (first-charge-reconcile.ts looks the key up at the gateway). Settling moves the subscription
 * to `active` or `incomplete` and emits `subscription.created`, exactly once.
 *
 * In live mode the bank may ask for 3-D Secure: the customer is sent to the challenge with the
 * subscription still `pending`, and comes back to /subscribe/{id}/return, which settles it
 * (completeSubscriptionChallenge); the reconciler settles challenges nobody comes back from, and
 * withdraws those left unfinished for an hour.
 */
import { and, asc, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import { lockUntilCommit, type Database } from '@/db/client';
import { stores, subscriptionCharges, subscriptionCheckouts, subscriptions, type DocumentLanguage } from '@/db/schema';
import { recordAudit } from '../audit/service';
import { chargeIdempotencyKey } from './schedule';
import { appendQuery, receiptPageUrl } from '../kit/links';
import type { BuyerClient } from '../kit/hosted-page/request';
import { storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { customerFor } from '../customers/service';
import { ApiError, resourceMissing } from '../errors';
import { isTestCard } from '../gateway/simulator';
import { chargeLookup, GatewayRejectedError, type ChargeResult, type Gateways } from '../gateway/types';
import { newId, randomBase62 } from '../ids';
import { validateCard, type CardFields } from '../checkout/card';
import { emitSubscriptionEvent, type SubscriptionRow } from './representation';
import { periodBoundary } from './schedule';
import { ownedBy } from '../kit/scope';
import type { PayOrdersDeps } from '../payments/pay-orders';
import { payOrders } from '../payments/pay-orders';
import { disputeTestCardPayment } from '../disputes/test-cards';
import { chargeOrderPayment, paidAmountsOf, type ChargeAmounts } from './charge-order';
import { TotalChangedError } from '../checkout/buyer-tax';
import { cardCountryOf } from '../gateway';
import type { CheckedBilling } from '../vat/billing';
import { taxEvidenceOf } from '../vat/taxation';
import { settleRedemption, takeRedemption } from '../coupons/redemptions';
import { trialAlreadyUsed, trialLockName, trialUsedError } from './checkouts';
import { discountEndOf, firstChargeAmountsOf } from './discount';
import { noticeTrialEnd, trialNoticeAt } from './trials';

export interface FirstChargeDeps {
  db: Database;
  /** Wall clock; the store's clock is derived from it (test clocks). */
  clock: Clock;
  gateways: Gateways;
  config: Pick<Config, 'publicBaseUrl' | 'authSecret' | 'subscriptionsEnabled' | 'operator' | 'ledger' | 'taxRates' | 'vatLookup'>;
}

type ChargeRow = typeof subscriptionCharges.$inferSelect;

/** Where a subscription checkout without success_url lands: signed like a checkout receipt (ids are not secret). */
export function subscriptionReceiptUrl(config: Pick<Config, 'publicBaseUrl' | 'authSecret'>, checkoutId: string): string {
  return receiptPageUrl(config, 'subscription_checkout', checkoutId, 'receipt');
}

/** success_url with `checkout_id` and `subscription_id` added (its own query kept), else the receipt page. */
export function subscribedRedirectUrl(config: Pick<Config, 'publicBaseUrl' | 'authSecret'>, checkout: { id: string; successUrl: string | null }, subscriptionId: string): string {
  if (!checkout.successUrl) return subscriptionReceiptUrl(config, checkout.id);
  return appendQuery(checkout.successUrl, { checkout_id: checkout.id, subscription_id: subscriptionId });
}

/** Where the acquirer sends the customer back after a 3-D Secure challenge; signed like the receipt. */
export function subscriptionReturnUrl(config: Pick<Config, 'publicBaseUrl' | 'authSecret'>, checkoutId: string): string {
  return receiptPageUrl(config, 'subscription_checkout', checkoutId, 'return');
}

/** First charges whose outcome is not recorded yet: at the gateway, unknown, or at the customer's challenge. */
export const OPEN_FIRST_CHARGE_STATUSES = ['processing', 'unknown', 'requires_action'] as const satisfies readonly ChargeRow['status'][];

const isOpenFirstCharge = (status: ChargeRow['status']) => (OPEN_FIRST_CHARGE_STATUSES as readonly string[]).includes(status);

/** The subscription a payment attempt created, and the bank's challenge when the customer must pass one first. */
export interface FirstChargeOutcome {
  subscription: SubscriptionRow;
  challengeUrl?: string;
}

async function loadCheckout(db: Database, id: string) {
  const [row] = await db
    .select({
      checkout: subscriptionCheckouts,
      storeName: stores.name,
      offset: stores.testClockOffsetSeconds,
      suspended: stores.suspended,
      liveApi: stores.liveApi,
      subscriptionsFlag: stores.subscriptions,
    })
    .from(subscriptionCheckouts)
    .innerJoin(stores, eq(stores.id, subscriptionCheckouts.storeId))
    .where(eq(subscriptionCheckouts.id, id))
    .limit(1);
  return row;
}

const linkUsed = () => new ApiError('session_already_complete', 'This subscription checkout link has already been used. Nothing more was charged.');
const linkExpired = () => new ApiError('session_expired', 'This subscription checkout has expired. Nothing was charged.');

/**
 * The checkout's discount has no redemption left (or its code expired or was deactivated) when
 * the customer pays: nothing is charged. A code the customer typed (`param: promotion_code`) is
 * dropped from the checkout, so the page shows the full price again; a discount the merchant gave
 * stays, and the checkout cannot be paid.
 */
function discountUnavailable(typed: boolean): ApiError {
  return new ApiError('discount_invalid', 'This discount is no longer available. Nothing was charged.', { param: typed ? 'promotion_code' : 'discounts' });
}

/** The cycle of a trial's card check: before the first charged period (cycle 1), made on the hosted page with no money moved. */
export const TRIAL_CHECK_CYCLE = 0;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The charge made on the hosted page with the customer's card (settled here, never by billing): a
 * trial's card check, or else payment 1's first attempt. After a trial, payment 1 is billing's.
 */
export const madeOnHostedPage = sql`(${subscriptionCharges.cycle} = ${TRIAL_CHECK_CYCLE} or (${subscriptionCharges.cycle} = 1 and ${subscriptionCharges.attempt} = 0
  and not exists (select 1 from ${subscriptionCharges} as trial_check where trial_check.subscription_id = ${subscriptionCharges.subscriptionId} and trial_check.cycle = ${TRIAL_CHECK_CYCLE})))`;

function outcomeUnknown(): ApiError {
  return new ApiError('payment_outcome_unknown', 'The payment gateway did not confirm the first payment. It is being checked; do not subscribe again until this subscription shows its result.');
}

export interface PaySubscriptionInput {
  checkoutId: string;
  card: CardFields;
  /** The customer's language on the hosted page: their invoices'. */
  language?: DocumentLanguage;
  /** The buyer's address and user agent: kept on the first charge, and on its order once paid, as evidence for a dispute. */
  buyer?: BuyerClient;
  /**
   * A checkout taxed by the buyer's country: the billing details as checked, and the first
   * charge's total the page showed with them. Required there; a total that no longer matches burns nothing.
   */
  billing?: { checked: CheckedBilling; shownTotal: number };
}

/**
 * POST of the hosted subscription form. Every refusal that charges nothing comes before the
 * link burns (state, merchant, the card's own checks, an unknown test card); after it, the
 * subscription exists and this resolves with it as settled (`active` or `incomplete`), or
 * `pending` with the challenge the customer must pass, or throws `payment_outcome_unknown`
 * with the subscription left `pending` for the reconciler.
 */
export async function paySubscriptionCheckout(deps: FirstChargeDeps, input: PaySubscriptionInput): Promise<FirstChargeOutcome> {
  const loaded = await loadCheckout(deps.db, input.checkoutId);
  if (!loaded) throw resourceMissing('subscription checkout', input.checkoutId);
  const { checkout } = loaded;
  const now = storeClock(deps.clock, { livemode: checkout.livemode, testClockOffsetSeconds: loaded.offset }).now();
  if (checkout.consumedAt !== null || checkout.status === 'complete') throw linkUsed();
  if (checkout.status === 'expired' || now.getTime() >= checkout.expiresAt.getTime()) throw linkExpired();
  // A suspended store or one with the live channel off takes no live money; nobody
  // subscribes while subscriptions are switched off for the platform or the store.
  if ((checkout.livemode && (loaded.suspended || !loaded.liveApi)) || !deps.config.subscriptionsEnabled || !loaded.subscriptionsFlag) {
    throw new ApiError('capability_disabled', 'This merchant cannot accept subscriptions at the moment. No payment was taken.');
  }
  const card = validateCard(input.card, now);
  if (!checkout.livemode && !isTestCard(card.number)) {
    throw new ApiError('unsupported_test_card', 'This card number is not one of the test cards.', { param: 'card_number' });
  }

  // One begun since the checkout was created: refused before anything is charged.
  if (checkout.trialDays !== null && (await trialAlreadyUsed(deps.db, checkout, checkout))) throw trialUsedError();
  const taxed = await taxFirstCharge(deps, checkout, input, card.number, now);
  const charge = await burnLink(deps, checkout, now, input.language ?? 'en', input.buyer, taxed);
  let result: ChargeResult | null;
  try {
    result = await deps.gateways[checkout.livemode ? 'live' : 'test'].charge({
      idempotencyKey: charge.idempotencyKey,
      amount: charge.amount,
      description: `${loaded.storeName}: ${checkout.planName} (${charge.cycle === TRIAL_CHECK_CYCLE ? 'card check' : 'first payment'})`,
      card,
      returnUrl: subscriptionReturnUrl(deps.config, checkout.id),
      recurring: true,
    });
  } catch (error) {
    if (!(error instanceof GatewayRejectedError)) {
      // A timeout or anything unexpected: the charge may have happened. The row stays open as
      // `unknown` and is settled by looking the key up, never by charging again.
      await deps.db
        .update(subscriptionCharges)
        .set({ status: 'unknown' })
        .where(and(eq(subscriptionCharges.id, charge.id), eq(subscriptionCharges.status, 'processing')));
      throw outcomeUnknown();
    }
    result = null;
  }
  const subscription = await settleFirstCharge(deps, charge.id, result);
  if (result?.status === 'requires_action' && subscription.status === 'pending') return { subscription, challengeUrl: result.redirectUrl };
  return { subscription };
}

/** The bank's challenge the link's first charge still waits at, when it does (the gateway is asked: the URL is not kept). */
export async function pendingChallengeUrl(deps: Pick<FirstChargeDeps, 'db' | 'gateways'>, checkoutId: string): Promise<string | undefined> {
  const loaded = await loadFirstCharge(deps.db, checkoutId);
  if (loaded?.charge.status !== 'requires_action') return undefined;
  try {
    const found = await deps.gateways[loaded.charge.livemode ? 'live' : 'test'].retrieveCharge(loaded.charge.idempotencyKey, chargeLookup(loaded.charge));
    return found?.status === 'requires_action' ? found.redirectUrl : undefined;
  } catch {
    return undefined;
  }
}

/** A used link's subscription and its first charge. */
async function loadFirstCharge(db: Database, checkoutId: string) {
  const loaded = await loadCheckout(db, checkoutId);
  if (!loaded?.checkout.subscriptionId) return undefined;
  const { checkout } = loaded;
  const [row] = await db
    .select({ subscription: subscriptions, charge: subscriptionCharges })
    .from(subscriptions)
    .innerJoin(subscriptionCharges, and(eq(subscriptionCharges.subscriptionId, subscriptions.id), lte(subscriptionCharges.cycle, 1), eq(subscriptionCharges.attempt, 0)))
    .where(and(eq(subscriptions.id, checkout.subscriptionId!), ownedBy(subscriptions, checkout)))
    // A trial's card check comes before payment 1.
    .orderBy(asc(subscriptionCharges.cycle))
    .limit(1);
  return row;
}

/**
 * The customer is back from the bank's 3-D Secure page: settles the first charge from the
 * gateway's answer. Safe to call again (a reload): a settled subscription answers as it is. A
 * gateway that cannot answer now leaves it `pending` for the reconciler.
 */
export async function completeSubscriptionChallenge(deps: Pick<FirstChargeDeps, 'db' | 'clock' | 'gateways' | 'config'>, checkoutId: string): Promise<SubscriptionRow | undefined> {
  const row = await loadFirstCharge(deps.db, checkoutId);
  if (!row) return undefined;
  if (row.charge.status !== 'requires_action') return row.subscription;
  let found: ChargeResult | null;
  try {
    found = await deps.gateways[row.charge.livemode ? 'live' : 'test'].retrieveCharge(row.charge.idempotencyKey, chargeLookup(row.charge));
  } catch {
    return row.subscription;
  }
  // Back without an answer yet: the reconciler settles it when the gateway has one.
  if (found === null || found.status === 'requires_action') return row.subscription;
  return settleFirstCharge(deps, row.charge.id, found);
}

/** The first charge's taxation: the buyer and the amounts, and the evidence of where the buyer is. */
interface TaxedFirstCharge {
  buyer: Pick<typeof subscriptionCheckouts.$inferSelect, 'customerDetails' | 'taxCountry' | 'taxTreatment'>;
  amounts: ChargeAmounts;
  evidence: ReturnType<typeof taxEvidenceOf> | null;
}

/**
 * A checkout taxed by the buyer's country takes the submitted billing details at the day's rate;
 * a total other than the one the page showed burns nothing: the details are kept on the checkout
 * for the page to show the new total, and the customer confirms it.
 */
async function taxFirstCharge(deps: FirstChargeDeps, checkout: typeof subscriptionCheckouts.$inferSelect, input: PaySubscriptionInput, cardNumber: string, now: Date): Promise<TaxedFirstCharge> {
  if (checkout.taxMode !== 'buyer_country')
    return { buyer: { customerDetails: null, taxCountry: null, taxTreatment: null }, amounts: firstChargeAmountsOf(checkout, deps.config.taxRates, now), evidence: null };
  if (!input.billing) throw new ApiError('parameter_invalid', 'Select your country.', { param: 'country' });
  const { checked, shownTotal } = input.billing;
  const buyer = { customerDetails: checked.details, taxCountry: checked.tax.taxCountry, taxTreatment: checked.tax.treatment };
  const amounts = firstChargeAmountsOf({ ...checkout, ...buyer }, deps.config.taxRates, now);
  if (amounts.amount !== shownTotal) {
    await deps.db
      .update(subscriptionCheckouts)
      .set(buyer)
      .where(and(eq(subscriptionCheckouts.id, checkout.id), eq(subscriptionCheckouts.status, 'open'), isNull(subscriptionCheckouts.consumedAt)));
    throw new TotalChangedError(amounts.amount);
  }
  return { buyer, amounts, evidence: taxEvidenceOf(checked.details.address?.country ?? null, cardCountryOf(cardNumber, checkout.livemode)) };
}

/**
 * Consumes the link and records the intent, atomically: the conditional update lets exactly one
 * attempt through however many submits race (an expired or used link updates nothing).
 */
async function burnLink(
  deps: FirstChargeDeps,
  checkout: typeof subscriptionCheckouts.$inferSelect,
  now: Date,
  language: DocumentLanguage,
  buyer: BuyerClient | undefined,
  taxed: TaxedFirstCharge,
): Promise<ChargeRow> {
  const subscriptionId = newId('sub', checkout.livemode);
  const trial = checkout.trialDays !== null;
  try {
    return await deps.db.transaction(async (tx) => {
      const [burned] = await tx
        .update(subscriptionCheckouts)
        .set({ consumedAt: now, status: 'complete', subscriptionId, ...taxed.buyer })
        .where(and(eq(subscriptionCheckouts.id, checkout.id), eq(subscriptionCheckouts.status, 'open'), isNull(subscriptionCheckouts.consumedAt), gt(subscriptionCheckouts.expiresAt, now)))
        .returning();
      if (!burned) throw linkUsed();
      if (trial) {
        // Two trial starts of one e-mail and plan at once: the second waits here and then sees the first.
        await lockUntilCommit(tx, trialLockName(burned, burned));
        if (await trialAlreadyUsed(tx, burned, burned)) throw trialUsedError();
      }
      // Held from before the gateway call until its outcome (settleFirstCharge): two customers racing for the last redemption cannot both get it.
      const redemptionHeld = burned.discount !== null;
      if (redemptionHeld && !(await takeRedemption(tx, burned.discount!, now, 'held'))) throw discountUnavailable(burned.allowPromotionCodes);
      await tx.insert(subscriptions).values({
        id: subscriptionId,
        storeId: burned.storeId,
        livemode: burned.livemode,
        // The transitional status: the first charge is on its way.
        status: 'pending',
        amount: burned.amount,
        interval: burned.interval,
        intervalCount: burned.intervalCount,
        totalPayments: burned.totalPayments,
        planName: burned.planName,
        checkoutId: burned.id,
        // No contract until the gateway approves the first charge.
        recurringId: '',
        customerEmail: burned.customerEmail,
        customerName: burned.customerName,
        language,
        productId: burned.productId,
        priceId: burned.priceId,
        currentPeriodStart: now,
        currentPeriodEnd: now,
        nextBillingAt: now,
        metadata: burned.metadata,
        createdAt: now,
        taxMode: burned.taxMode,
        taxCategory: burned.taxCategory,
        taxInclusive: burned.taxInclusive,
        ...taxed.buyer,
        taxEvidence: taxed.evidence?.evidence ?? null,
        evidenceConflict: taxed.evidence?.conflict ?? null,
        discount: burned.discount,
      });
      const [charge] = await tx
        .insert(subscriptionCharges)
        .values({
          id: `subchg_${burned.livemode ? 'live' : 'test'}_${randomBase62(24)}`,
          subscriptionId,
          storeId: burned.storeId,
          livemode: burned.livemode,
          // A trial checks the card without a charge: its first charge comes at the trial's end.
          cycle: trial ? TRIAL_CHECK_CYCLE : 1,
          attempt: 0,
          idempotencyKey: chargeIdempotencyKey(subscriptionId, trial ? TRIAL_CHECK_CYCLE : 1, 0),
          ...(trial ? { amount: 0, amountTax: 0, taxRate: null, amountDiscount: 0, amountCredit: 0 } : taxed.amounts),
          redemptionHeld,
          status: 'processing',
          scheduledAt: now,
          // Wall clock, as payment attempts: staleness is about real gateway calls.
          createdAt: deps.clock.now(),
          buyerIp: buyer?.ip ?? null,
          buyerUserAgent: buyer?.userAgent ?? null,
        })
        .returning();
      await recordAudit(tx, {
        action: 'subscription.create',
        storeId: burned.storeId,
        livemode: burned.livemode,
        details: { subscription: subscriptionId, subscription_checkout: burned.id },
      });
      return charge!;
    });
  } catch (error) {
    // A code the customer typed is dropped, so the page shows the full price; the link stays unused.
    if (error instanceof ApiError && error.code === 'discount_invalid' && error.param === 'promotion_code') {
      await deps.db
        .update(subscriptionCheckouts)
        .set({ discount: null })
        .where(and(eq(subscriptionCheckouts.id, checkout.id), eq(subscriptionCheckouts.status, 'open'), isNull(subscriptionCheckouts.consumedAt)));
    }
    throw error;
  }
}

/**
 * Records the first charge's outcome exactly once (its order paid, server/payments/pay-orders.ts, when it took the money), with
 * the subscription row locked: the
 * submitting request, the 3-D Secure return and the reconciler may race; the first to lock
 * decides, the others read its result. `outcome` null means nothing moved: the gateway never
 * took the charge (`processing_error`), or, with `nothingChargedCode`, a challenge was withdrawn.
 */
export async function settleFirstCharge(
  deps: Pick<FirstChargeDeps, 'db' | 'clock' | 'config'> & PayOrdersDeps,
  chargeId: string,
  outcome: ChargeResult | null,
  nothingChargedCode = 'processing_error',
): Promise<SubscriptionRow> {
  const { clock } = deps;
  let firstPayment: { orderId: string; livemode: boolean; cardLast4: string | null } | undefined;
  const settled = await deps.db.transaction(async (tx) => {
    const [ref] = await tx.select().from(subscriptionCharges).where(eq(subscriptionCharges.id, chargeId));
    if (!ref) throw new Error(`subscription charge ${chargeId} vanished`);
    const [locked] = await tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(and(eq(subscriptions.id, ref.subscriptionId), ownedBy(subscriptions, ref)))
      .for('update', { of: subscriptions });
    if (!locked) throw new Error(`subscription of charge ${chargeId} vanished`);
    const [charge] = await tx.select().from(subscriptionCharges).where(eq(subscriptionCharges.id, chargeId));
    if (!charge || !isOpenFirstCharge(charge.status)) return locked.subscription;

    const wallNow = clock.now();
    const now = storeClock(clock, { livemode: ref.livemode, testClockOffsetSeconds: locked.offset }).now();
    const times = { now, wallNow };
    const current = locked.subscription;
    const card = outcome ? { cardBrand: outcome.brand, cardLast4: outcome.last4, gatewayPaymentId: outcome.paymentId ?? null } : {};

    if (outcome?.status === 'requires_action') {
      // The customer is at the bank's challenge: the subscription stays `pending` meanwhile.
      await tx
        .update(subscriptionCharges)
        .set({ status: 'requires_action', ...card })
        .where(eq(subscriptionCharges.id, chargeId));
      return current;
    }
    // The outcome is known: a held redemption becomes one, or is given back.
    if (charge.redemptionHeld && current.discount !== null) await settleRedemption(tx, current.discount, outcome?.status === 'succeeded');
    if (outcome?.status !== 'succeeded') {
      const failureCode = outcome === null ? nothingChargedCode : outcome.code;
      await tx
        .update(subscriptionCharges)
        .set({ status: 'declined', failureCode, ...card, settledAt: now })
        .where(eq(subscriptionCharges.id, chargeId));
      const [incomplete] = await tx.update(subscriptions).set({ status: 'incomplete' }).where(eq(subscriptions.id, current.id)).returning();
      await emitSubscriptionEvent(tx, incomplete!, 'subscription.created', times);
      return incomplete!;
    }

    // On the store's clock, as recurring charges settle: a test-mode payment reads in the store's time.
    await tx
      .update(subscriptionCharges)
      .set({ status: 'succeeded', failureCode: null, ...card, settledAt: now })
      .where(eq(subscriptionCharges.id, chargeId));
    const customerId = await customerFor(tx, current, current.customerEmail, times);
    if (charge.cycle === TRIAL_CHECK_CYCLE) {
      const [checkout] = await tx.select({ trialDays: subscriptionCheckouts.trialDays }).from(subscriptionCheckouts).where(eq(subscriptionCheckouts.id, current.checkoutId!));
      // The trial is the first period; billing charges the first payment at its end, and counts the periods from there.
      const trialEnd = new Date(now.getTime() + checkout!.trialDays! * DAY_MS);
      const [trialing] = await tx
        .update(subscriptions)
        .set({
          status: 'trialing',
          recurringId: outcome.recurringId ?? '',
          cardBrand: outcome.brand,
          cardLast4: outcome.last4,
          customerId,
          trialStart: now,
          trialEnd,
          currentPeriodStart: now,
          currentPeriodEnd: trialEnd,
          nextBillingAt: trialEnd,
          billingAnchor: trialEnd,
        })
        .where(eq(subscriptions.id, current.id))
        .returning();
      await emitSubscriptionEvent(tx, trialing!, 'subscription.created', times);
      // A trial of three days or less is announced as it begins.
      if (trialNoticeAt(trialing!).getTime() <= now.getTime()) await noticeTrialEnd(tx, trialing!, times, deps.config);
      return trialing!;
    }
    const periodEnd = periodBoundary(now, current.interval, current.intervalCount, 1);
    const [active] = await tx
      .update(subscriptions)
      .set({
        status: 'active',
        paymentsMade: 1,
        recurringId: outcome.recurringId ?? '',
        cardBrand: outcome.brand,
        cardLast4: outcome.last4,
        customerId,
        currentPeriodStart: now,
        currentPeriodEnd: periodEnd,
        nextBillingAt: periodEnd,
        discountEnd: current.discount === null ? null : discountEndOf(current.discount, { start: now, end: periodEnd }),
      })
      .where(eq(subscriptions.id, current.id))
      .returning();
    // With total_payments 1 this was the only charge: billing expires it when its period ends.
    await emitSubscriptionEvent(tx, active!, 'subscription.created', times);
    const paid = {
      id: chargeId,
      cycle: 1,
      ...paidAmountsOf(charge),
      card: { brand: outcome.brand, last4: outcome.last4 },
      gatewayPaymentId: outcome.paymentId ?? null,
      buyer: { ip: charge.buyerIp, userAgent: charge.buyerUserAgent },
    };
    const payment = chargeOrderPayment(active!, paid, times);
    await payOrders(tx, deps, [payment]);
    firstPayment = { orderId: payment.order.id, livemode: payment.order.livemode, cardLast4: payment.order.cardLast4 };
    return active!;
  });
  if (firstPayment) await disputeTestCardPayment(deps, firstPayment);
  return settled;
}
