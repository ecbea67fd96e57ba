import { and, asc, desc, eq, gt, inArray } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { checkoutSessions, OPEN_ATTEMPT_STATUSES, orders, paymentAttempts, stores, type DocumentLanguage } from '@/db/schema';
import { storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { ApiError, isErrorCode, resourceMissing } from '../errors';
import { GatewayRejectedError, type Gateways } from '../gateway/types';
import { randomBase62 } from '../ids';
import { isDue, withExpiryApplied } from '../kit/expiry';
import type { BuyerClient } from '../kit/hosted-page/request';
import { expireCheckoutSessions } from '../checkout/expiry';
import { isEmailAddress } from '../kit/fields';
import { validateCard, type CardFields } from '../checkout/card';
import { last4 } from '../gateway/card-number';
import { paidRedirectUrl, threeDSecureReturnUrl } from '../kit/links';
import { DEFAULT_RECONCILE_SETTINGS, resolveAttempt, withdrawChallenge, type ReconcileSettings, type Resolution } from './reconcile';
import { fulfil, isOpen, settleAttempt, type AttemptRow, type SessionRow } from './settle';
import { takeRedemption } from '../coupons/redemptions';
import { writeSessionDiscount } from '../checkout/discount';
import { checkoutSessionView, withAmountDiscount } from '../checkout/view';
import { recordEvent } from '../webhooks/events';
import { ownedBy } from '../kit/scope';
import { orderHasDigitalProduct } from '../orders/withdrawals/service';
import { CURRENT_WAIVER_VERSION } from '../orders/withdrawals/waiver';
import { cardCountryOf } from '../gateway';
import { taxSessionForBuyer, TotalChangedError } from '../checkout/buyer-tax';
import type { CheckedBilling } from '../vat/billing';
import { taxEvidenceOf, vatIdOnlyDetails } from '../vat/taxation';

/**
 * Paying a checkout session on the hosted page.
 *
 * The rule everything here serves: a session is charged at most once. Each attempt is committed
 * with its deterministic idempotency key (`charge:<session id>:<attempt>`) before the gateway is
 * called, and a session never has two attempts in flight: a submit that finds one waits for it,
 * or settles it by asking the gateway what happened under its key, instead of charging again.
 */

export interface PaymentSettings extends ReconcileSettings {
  /** Gateway attempts per session within `attemptWindowSeconds`; beyond, 429 too_many_attempts. */
  maxAttemptsPerWindow: number;
  attemptWindowSeconds: number;
  /** How long a second submit waits for the session's attempt in flight before giving up. */
  inFlightWaitMs: number;
  pollIntervalMs: number;
}

export const DEFAULT_PAYMENT_SETTINGS: PaymentSettings = {
  ...DEFAULT_RECONCILE_SETTINGS,
  maxAttemptsPerWindow: 5,
  attemptWindowSeconds: 15 * 60,
  // Above the live gateway's 15 s timeout: the first submit has settled or failed by then.
  inFlightWaitMs: 20_000,
  pollIntervalMs: 50,
};

export interface PaymentDeps {
  db: Database;
  /** Wall clock; the session's store clock is derived from it (test clocks). */
  clock: Clock;
  gateways: Gateways;
  config: Pick<Config, 'publicBaseUrl' | 'authSecret' | 'operator' | 'ledger' | 'taxRates' | 'vatLookup'>;
  settings?: Partial<PaymentSettings>;
}

export interface PayInput {
  sessionId: string;
  card: CardFields;
  /** Required when the session has no customer_email. */
  email?: string;
  /** A business buyer's VAT ID, already normalised and checked (server/vat). */
  vatId?: string;
  /** The customer's language on the hosted page: their invoice's. */
  language?: DocumentLanguage;
  /** Both waiver checkboxes were ticked (only a checkout with a digital product offers them). */
  withdrawalWaiver?: boolean;
  /** The buyer's address and user agent, kept on the order as evidence for a dispute. */
  buyer?: BuyerClient;
  /**
   * A session taxed by the buyer's country: the billing details as checked (server/vat/billing.ts),
   * and the total the page showed with them. Required there; a total that no longer matches charges nothing.
   */
  billing?: { checked: CheckedBilling; shownTotal: number };
}

export type PayResult = { status: 'paid'; redirectUrl: string } | { status: 'requires_action'; redirectUrl: string };

interface LoadedSession {
  session: SessionRow;
  storeName: string;
  offset: number;
  suspended: boolean;
  liveApi: boolean;
}

async function loadSession(db: Database, sessionId: string): Promise<LoadedSession | undefined> {
  const [row] = await db
    .select({
      session: checkoutSessions,
      storeName: stores.name,
      offset: stores.testClockOffsetSeconds,
      suspended: stores.suspended,
      liveApi: stores.liveApi,
    })
    .from(checkoutSessions)
    .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
    .where(eq(checkoutSessions.id, sessionId));
  return row;
}

function storeNow(deps: Pick<PaymentDeps, 'clock'>, loaded: Pick<LoadedSession, 'offset' | 'session'>): Date {
  return storeClock(deps.clock, { livemode: loaded.session.livemode, testClockOffsetSeconds: loaded.offset }).now();
}

function settingsOf(deps: PaymentDeps): PaymentSettings {
  return { ...DEFAULT_PAYMENT_SETTINGS, ...deps.settings };
}

function sessionStateError(session: SessionRow): ApiError | undefined {
  if (session.status === 'complete') return new ApiError('session_already_complete', 'This checkout session has already been paid.');
  if (session.status === 'expired') return new ApiError('session_expired', 'This checkout session has expired; a new one must be created.');
  if (session.paymentStatus === 'failed') {
    return new ApiError('session_payment_failed', 'A payment for this checkout session was declined; a new session must be created.');
  }
  return undefined;
}

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'The card was declined.',
  unsupported_test_card: 'This card number is not a test card. Use one of the documented test cards.',
  invalid_card_number: 'The card number is not valid.',
  invalid_expiry: 'The expiry date is not valid.',
  expired_card: 'The card has expired.',
  invalid_cvc: 'The security code is not valid.',
};

function declineError(code: string | null): ApiError {
  const known = code && isErrorCode(code) ? code : 'card_declined';
  return new ApiError(known, DECLINE_MESSAGES[known] ?? 'The card was declined.');
}

function outcomeUnknown(): ApiError {
  return new ApiError('payment_outcome_unknown', 'The payment gateway did not confirm the payment. It is being checked; do not pay again until this session shows its result.');
}

/** What a settled attempt means to the customer: where to go next, or the error to show. */
async function outcomeOf(deps: PaymentDeps, resolution: Extract<Resolution, { settled: true }>): Promise<PayResult> {
  const { attempt, session } = resolution;
  if (attempt.status === 'succeeded') return { status: 'paid', redirectUrl: paidRedirectUrl(deps.config, session) };
  if (attempt.status === 'requires_action' && resolution.redirectUrl) return { status: 'requires_action', redirectUrl: resolution.redirectUrl };
  if (attempt.status === 'declined') throw declineError(attempt.failureCode);
  throw outcomeUnknown();
}

async function openAttemptOf(db: Database, session: SessionRow): Promise<AttemptRow | undefined> {
  const [attempt] = await db
    .select()
    .from(paymentAttempts)
    .where(and(eq(paymentAttempts.checkoutSessionId, session.id), ownedBy(paymentAttempts, session), inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])))
    .orderBy(desc(paymentAttempts.createdAt))
    .limit(1);
  return attempt;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for an attempt that another request is still sending (a double click, a second tab),
 * then answers with its outcome. Polls the database rather than waiting in memory, so it works
 * across instances. An attempt left open past the wait (a timeout, a crash, a pending challenge)
 * is settled by asking the gateway.
 */
async function awaitAttempt(deps: PaymentDeps, first: AttemptRow): Promise<Resolution> {
  const settings = settingsOf(deps);
  const deadline = Date.now() + settings.inFlightWaitMs;
  let attempt = first;
  while (attempt.status === 'processing' && Date.now() < deadline) {
    if ((deps.clock.now().getTime() - attempt.createdAt.getTime()) / 1000 >= settings.staleAfterSeconds) break;
    await sleep(settings.pollIntervalMs);
    const [again] = await deps.db.select().from(paymentAttempts).where(eq(paymentAttempts.id, attempt.id));
    attempt = again ?? attempt;
  }
  if (!isOpen(attempt.status)) {
    const loaded = await loadSession(deps.db, attempt.checkoutSessionId);
    return { settled: true, attempt, session: loaded!.session };
  }
  return resolveAttempt({ ...deps, settings }, attempt);
}

/** Who pays, as the hosted page learnt it. */
interface Buyer {
  email: string | undefined;
  vatId: string | undefined;
  language: DocumentLanguage | undefined;
  withdrawalWaiver: boolean;
  client: BuyerClient | undefined;
  billing: PayInput['billing'];
  /** The card's issuing country where known: evidence of where the buyer is. */
  cardCountry: string | null;
  /** The card as checked; null where the page showed a total of 0 (no card fields). */
  card: ReturnType<typeof validateCard> | null;
}

type Begun =
  | { kind: 'attempt'; attempt: AttemptRow }
  | { kind: 'in_flight'; attempt: AttemptRow }
  | { kind: 'expired' }
  | { kind: 'total_changed'; amountTotal: number }
  /** A total of 0, paid in the transaction without the gateway. */
  | { kind: 'paid'; session: SessionRow }
  /** No redemption of the discount was left: nothing charged (discountRefusal says what became of the session). */
  | { kind: 'discount_gone'; typed: boolean };

/**
 * The session's discount could not be redeemed (used up by others meanwhile, expired, inactive):
 * nothing is charged. A code the customer typed is taken off, the full total shown for them to
 * pay or to try another code. A discount the store created the checkout with was part of the
 * offer the store made: charging more than it promised would surprise the buyer, so the session
 * fails as a declined one does (`payment_status: failed`, `failure_code: discount_invalid`,
 * `checkout.session.payment_failed`): it stays `open` until it expires and cannot be paid, and the
 * store creates a new checkout.
 */
async function refuseGoneDiscount(tx: Transaction, deps: PaymentDeps, session: SessionRow, now: Date): Promise<Begun> {
  if (session.allowPromotionCodes) {
    await writeSessionDiscount(tx, session, null);
    return { kind: 'discount_gone', typed: true };
  }
  const [failed] = await tx.update(checkoutSessions).set({ paymentStatus: 'failed', failureCode: 'discount_invalid' }).where(eq(checkoutSessions.id, session.id)).returning();
  await recordEvent(tx, {
    storeId: session.storeId,
    livemode: session.livemode,
    type: 'checkout.session.payment_failed',
    object: checkoutSessionView(await withAmountDiscount(tx, failed!), deps),
    now,
    wallNow: deps.clock.now(),
  });
  return { kind: 'discount_gone', typed: false };
}

/**
 * Claims the next attempt: in one transaction with the session row locked (two submits
 * serialise here), checks the session's state and attempt limit, then commits the attempt with
 * its idempotency key before any gateway call, so a crash after the call leaves a record to
 * reconcile rather than a charge nobody knows about.
 */
async function beginAttempt(deps: PaymentDeps, loaded: LoadedSession, buyer: Buyer): Promise<Begun> {
  const settings = settingsOf(deps);
  const { session: seen } = loaded;
  return deps.db.transaction(async (tx) => {
    const [session] = await tx
      .select()
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.id, seen.id), ownedBy(checkoutSessions, seen)))
      .for('update');
    if (!session) throw resourceMissing('checkout session', seen.id);
    const now = storeNow(deps, { ...loaded, session });
    if (session.status === 'open' && now.getTime() >= session.expiresAt.getTime()) {
      await expireCheckoutSessions({ config: deps.config, wallClock: deps.clock })(tx, eq(checkoutSessions.id, session.id));
      return { kind: 'expired' as const };
    }
    const stateError = sessionStateError(session);
    if (stateError) throw stateError;

    const attempts = await tx
      .select({ status: paymentAttempts.status, createdAt: paymentAttempts.createdAt })
      .from(paymentAttempts)
      .where(
        and(
          eq(paymentAttempts.checkoutSessionId, session.id),
          ownedBy(paymentAttempts, session),
          gt(paymentAttempts.createdAt, new Date(deps.clock.now().getTime() - settings.attemptWindowSeconds * 1000)),
        ),
      )
      .orderBy(asc(paymentAttempts.createdAt));
    // Another submit claimed an attempt between our look and our lock: wait for that one.
    const [inFlight] = await tx
      .select()
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.checkoutSessionId, session.id), inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])))
      .limit(1);
    if (inFlight) return { kind: 'in_flight' as const, attempt: inFlight };
    if (attempts.length >= settings.maxAttemptsPerWindow) {
      // Allowed again once enough of the window's attempts have aged out of it.
      const freedBy = attempts[attempts.length - settings.maxAttemptsPerWindow]!.createdAt.getTime() + settings.attemptWindowSeconds * 1000;
      const retryAfter = Math.max(1, Math.ceil((freedBy - deps.clock.now().getTime()) / 1000));
      throw new ApiError('too_many_attempts', 'Too many payment attempts for this checkout session. Try again later.', { retryAfter });
    }

    // Taxed again for the details submitted, at the day's rates: the total charged is the total shown, or nothing.
    let charged = session;
    let evidence: ReturnType<typeof taxEvidenceOf> | undefined;
    if (session.taxMode === 'buyer_country') {
      if (!buyer.billing) throw new ApiError('parameter_invalid', 'Select your country.', { param: 'country' });
      charged = await taxSessionForBuyer(tx, session, buyer.billing.checked, deps.config.taxRates, now);
      if (charged.amountTotal !== buyer.billing.shownTotal) return { kind: 'total_changed' as const, amountTotal: charged.amountTotal };
      evidence = taxEvidenceOf(buyer.billing.checked.details.address?.country ?? null, buyer.cardCountry);
    }

    // A total of 0 (a whole discount) needs no gateway: it takes its redemption and is paid here.
    const free = charged.amountTotal === 0;
    if (buyer.card === null && !free) throw new ApiError('invalid_card_number', 'The total is no longer 0: enter a card.', { param: 'card_number' });
    if (charged.discount !== null && !(await takeRedemption(tx, charged.discount, now, free ? 'redeemed' : 'held'))) return refuseGoneDiscount(tx, deps, charged, now);

    const number = session.attemptCount + 1;
    // Elsewhere than by the buyer's country, the one billing detail is a VAT ID, shown with the attempt that gave it.
    const vatIdOnly = session.taxMode === 'buyer_country' ? {} : { customerDetails: vatIdOnlyDetails(buyer.vatId ?? null) };
    await tx
      .update(checkoutSessions)
      .set({ attemptCount: number, ...vatIdOnly })
      .where(eq(checkoutSessions.id, session.id));
    // Kept on the order so whoever settles the attempt (maybe a later reconciliation) knows
    // them; each attempt's own, as the invoice must name the buyer who paid (and a dispute's
    // evidence the address and browser that paid), and the waiver as given with this attempt,
    // only where a digital product makes it one.
    const waived = buyer.withdrawalWaiver && (await orderHasDigitalProduct(tx, session.orderId));
    await tx
      .update(orders)
      .set({
        ...(buyer.email !== undefined ? { customerEmail: buyer.email } : {}),
        buyerVatId: buyer.billing?.checked.details.vat_id ?? buyer.vatId ?? null,
        ...(evidence ? { taxEvidence: evidence.evidence, evidenceConflict: evidence.conflict } : {}),
        language: buyer.language ?? 'en',
        withdrawalWaiverAcceptedAt: waived ? now : null,
        withdrawalWaiverTextVersion: waived ? CURRENT_WAIVER_VERSION : null,
        buyerIp: buyer.client?.ip ?? null,
        buyerUserAgent: buyer.client?.userAgent ?? null,
      })
      .where(and(eq(orders.id, session.orderId), ownedBy(orders, session)));
    if (free) return { kind: 'paid' as const, session: await fulfil(tx, deps, charged, { now, wallNow: deps.clock.now() }, null) };
    // Attempt times are wall-clock: they measure real gateway calls, not the store's test clock.
    const wallNow = deps.clock.now();
    const [attempt] = await tx
      .insert(paymentAttempts)
      .values({
        id: `pa_${session.livemode ? 'live' : 'test'}_${randomBase62(24)}`,
        checkoutSessionId: session.id,
        storeId: session.storeId,
        livemode: session.livemode,
        idempotencyKey: `charge:${session.id}:${number}`,
        amount: charged.amountTotal,
        status: 'processing',
        redemptionHeld: charged.discount !== null,
        createdAt: wallNow,
        updatedAt: wallNow,
      })
      .returning();
    return { kind: 'attempt' as const, attempt: attempt! };
  });
}

/**
 * POST of the hosted checkout form: validates the card locally, then charges the session's
 * environment's gateway at most once. Resolves with where the browser goes next; every failure
 * is an ApiError (card errors 402, unsupported_test_card 400, session state 400/409, 429
 * too_many_attempts, 500 payment_outcome_unknown).
 */
export async function payCheckoutSession(deps: PaymentDeps, input: PayInput): Promise<PayResult> {
  const loaded = await loadSession(deps.db, input.sessionId);
  if (!loaded) throw resourceMissing('checkout session', input.sessionId);
  const now = storeNow(deps, loaded);
  // The session's state first: a stale page learns the session is over, not that a card is wrong.
  if (isDue(loaded.session, now)) {
    await withExpiryApplied(deps.db, checkoutSessions, loaded.session, now, expireCheckoutSessions({ config: deps.config, wallClock: deps.clock }));
    throw sessionStateError({ ...loaded.session, status: 'expired' })!;
  }
  const stateError = sessionStateError(loaded.session);
  if (stateError) throw stateError;
  // A suspended store, or one whose live channel is off, takes no live money on its
  // hosted pages either; test mode keeps working, as for its keys.
  if (loaded.session.livemode && loaded.suspended) {
    throw new ApiError('account_suspended', 'This merchant cannot accept payments at the moment. No payment was taken.');
  }
  if (loaded.session.livemode && !loaded.liveApi) {
    throw new ApiError('capability_disabled', 'This merchant cannot accept live payments at the moment. No payment was taken.');
  }

  // A total of 0 shows no card fields: a card is asked for only if the total is no longer 0 when paying.
  const card = loaded.session.amountTotal === 0 ? null : validateCard(input.card, now);
  let email: string | undefined;
  if (!loaded.session.customerEmail) {
    email = input.email?.trim();
    if (!email || !isEmailAddress(email)) throw new ApiError('parameter_invalid', 'A valid email address is required.', { param: 'email' });
  }

  // A few rounds at most: each one either ends the call or settles an attempt that was open.
  let open = await openAttemptOf(deps.db, loaded.session);
  for (let round = 0; round < 4; round += 1) {
    if (open) {
      let resolution = await awaitAttempt(deps, open);
      if (!resolution.settled) throw outcomeUnknown();
      // Back from the bank's page with another card: the customer chose it over the challenge.
      // The same card again (a double click, a reload) is sent back to its challenge.
      if (resolution.attempt.status === 'requires_action' && resolution.attempt.gatewayPaymentId && (card === null || resolution.attempt.cardLast4 !== last4(card.number))) {
        resolution = await withdrawChallenge(deps, resolution.attempt, resolution.attempt.gatewayPaymentId);
        if (!resolution.settled) throw outcomeUnknown();
      }
      // The gateway never received it: nothing was charged, so this submit may try.
      if (resolution.attempt.status === 'abandoned') {
        open = undefined;
        continue;
      }
      return outcomeOf(deps, resolution);
    }
    const begun = await beginAttempt(deps, loaded, {
      email,
      vatId: input.vatId,
      language: input.language,
      withdrawalWaiver: input.withdrawalWaiver === true,
      client: input.buyer,
      billing: input.billing,
      cardCountry: card && cardCountryOf(card.number, loaded.session.livemode),
      card,
    });
    if (begun.kind === 'expired') throw sessionStateError({ ...loaded.session, status: 'expired' })!;
    if (begun.kind === 'total_changed') throw new TotalChangedError(begun.amountTotal);
    if (begun.kind === 'paid') return { status: 'paid', redirectUrl: paidRedirectUrl(deps.config, begun.session) };
    if (begun.kind === 'discount_gone') {
      throw begun.typed
        ? new ApiError('discount_invalid', 'This code is not valid: it was taken off, and nothing was charged.', { param: 'promotion_code' })
        : new ApiError('discount_invalid', 'This discount is no longer available. Nothing was charged.', { param: 'discounts' });
    }
    if (begun.kind === 'in_flight') {
      open = begun.attempt;
      continue;
    }
    return sendAttempt(deps, loaded, begun.attempt, card!);
  }
  throw outcomeUnknown();
}

async function sendAttempt(deps: PaymentDeps, loaded: LoadedSession, attempt: AttemptRow, card: ReturnType<typeof validateCard>): Promise<PayResult> {
  const { session } = loaded;
  const gateway = deps.gateways[session.livemode ? 'live' : 'test'];
  let result;
  try {
    result = await gateway.charge({
      idempotencyKey: attempt.idempotencyKey,
      amount: attempt.amount,
      description: session.description ?? `${loaded.storeName} order ${session.orderId}`,
      card,
      returnUrl: threeDSecureReturnUrl(deps.config, session.id),
    });
  } catch (error) {
    if (error instanceof GatewayRejectedError) {
      await settleAttempt(deps, attempt.id, null);
      throw new ApiError('internal_error', 'The payment could not be sent to the payment gateway; nothing was charged.');
    }
    // A timeout or anything else unexpected: the charge may have happened. The attempt stays
    // open as `unknown` and is settled by looking it up, never by charging again.
    await deps.db
      .update(paymentAttempts)
      .set({ status: 'unknown', updatedAt: deps.clock.now() })
      .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, 'processing')));
    throw outcomeUnknown();
  }
  const settled = await settleAttempt(deps, attempt.id, result);
  if (settled.attempt.status === 'abandoned') throw outcomeUnknown();
  return outcomeOf(deps, { settled: true, ...settled, redirectUrl: result.status === 'requires_action' ? result.redirectUrl : undefined });
}

/**
 * The customer is back from the acquirer's 3-D Secure page: settle the pending attempt from the
 * gateway's answer. Safe to call again (a reload): a paid session answers its destination.
 */
export async function completeThreeDSecureReturn(deps: PaymentDeps, sessionId: string): Promise<PayResult> {
  const loaded = await loadSession(deps.db, sessionId);
  if (!loaded) throw resourceMissing('checkout session', sessionId);
  const open = await openAttemptOf(deps.db, loaded.session);
  if (open) {
    const resolution = await resolveAttempt({ ...deps, settings: { ...settingsOf(deps), staleAfterSeconds: 0 } }, open);
    if (!resolution.settled || resolution.attempt.status === 'abandoned') throw outcomeUnknown();
    return outcomeOf(deps, resolution);
  }
  const { session } = loaded;
  if (session.status === 'complete') return { status: 'paid', redirectUrl: paidRedirectUrl(deps.config, session) };
  if (session.paymentStatus === 'failed') throw declineError(session.failureCode);
  throw sessionStateError(session) ?? new ApiError('parameter_invalid', 'No payment of this checkout session is waiting for 3-D Secure.');
}
