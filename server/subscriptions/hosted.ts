/**
 * The hosted subscription checkout: what a customer holding the signed
 * link may see, the form's POST, and the receipt. The pages call these; none touches the database.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { stores, subscriptionCharges, subscriptionCheckouts, subscriptions, type DiscountTerms, type SubscriptionChargeStatus, type SubscriptionStatus } from '@/db/schema';
import { resolveTypedCode } from '../coupons/discounts';
import { discountTargetOf } from './checkouts';
import { hostedPageErrorFor, type HostedErrorCode } from '../kit/hosted-page/messages';
import { backToForm, hostedLinkOf, readHostedForm, readHostedSubmission, type HostedPageDeps, type SubmitInput, type SubmitOutcome } from '../kit/hosted-page/request';
import { formatEur } from '../kit/hosted-page/amounts';
import { taxLabelOf, type TaxLabel } from '../kit/hosted-page/tax-label';
import type { Config } from '../config';
import { answerBillingUpdate, billingQuery, refusedAnswer, shownTotalOf, summaryTexts, updatesTotalOnly, type HostedBuyer, type PageTexts } from '../checkout/hosted/billing';
import { rememberedBillingCookie } from '../checkout/hosted/email';
import { TotalChangedError } from '../checkout/buyer-tax';
import { billingFormFrom, billingFormOf, checkBilling, vatIdUnconfirmedOf, type BillingForm } from '../vat/billing';
import { updateSubscriptionCheckoutBilling } from './buyer-tax';
import { invalidLinkResponse } from '../kit/hosted-page/invalid-link';
import { recordCardDecline, refusedCardAttempt } from '../rate-limit/card-attempts';
import { epochSeconds, storeClock } from '../clock';
import { buyerClientOf, clientIp, type Services } from '../context';
import { ApiError } from '../errors';
import { createHandoff } from '../kit/hosted-page/handoff';
import { isSubscriptionCheckoutId } from '../ids';
import { PROMOTION_CODE_FIELDS } from '../kit/hosted-page/discount';
import { checkLink, hostedPagePath, receiptLinkExpired, receiptSignatureValid, signedLink, signingSecret } from '../kit/links';
import { chargeAmountsOf } from './charge-order';
import { firstChargeAmountsOf } from './discount';
import { completeSubscriptionChallenge, madeOnHostedPage, paySubscriptionCheckout, pendingChallengeUrl, subscribedRedirectUrl, type PaySubscriptionInput } from './first-charge';
import { ownedBy } from '../kit/scope';
import { log } from '../observability/log';
import { storeLinkColumns, type StoreLinks } from '../stores/service';
import { periodBoundary } from './schedule';
import { MAX_TOTAL_PAYMENTS } from './schemas';

export interface HostedSubscriptionView {
  id: string;
  livemode: boolean;
  storeName: string;
  storeLinks: StoreLinks;
  /** When the page was read, on the store's clock (epoch seconds): the first charge would be now. */
  readAt: number;
  planName: string;
  amount: number;
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
  totalPayments: number;
  customerEmail: string;
  customerName: string | null;
  successUrl: string | null;
  /** Days free before the first charge; null without a trial. */
  trialDays: number | null;
  /** The first charge: the plan's amount less the discount (where the buyer's country taxes it: `buyer.amountTotal`, with its VAT). */
  firstCharge: number;
  /** A charge without the discount (taxed as the first charge is): what the plan costs every period. */
  planCharge: number;
  /** The discount the first charge gets: its label (the code, or the coupon's name) and the cents it takes off. */
  discount: { label: string; amountOff: number } | null;
  /** Whether the page offers a promotion code field. */
  allowPromotionCodes: boolean;
  /** Only where the store taxes by the buyer's country: the page asks for the billing details, and shows the first charge they lead to. */
  buyer?: HostedSubscriptionBuyer;
}

export interface HostedSubscriptionBuyer extends HostedBuyer {
  /** The first charge at the day's rate for the details the checkout holds (before a country: the price, untaxed). */
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  tax: TaxLabel;
}

/** What the subscription pages read: the link's signing, and how the first charge would be taxed. */
type SubscriptionPageDeps = HostedPageDeps & { config: Pick<Config, 'taxRates' | 'operator'> };

/** The subscription the link's payment attempt created, as far as the customer may see it. */
export interface HostedSubscriptionOutcome {
  id: string;
  status: SubscriptionStatus;
  /** Why the first charge failed (a decline code), when it did. */
  failureCode: string | null;
  firstChargeStatus: SubscriptionChargeStatus | null;
  cardBrand: string | null;
  cardLast4: string | null;
  nextBillingAt: number;
}

/**
 * What a hosted link resolves to. `invalid` covers a tampered link and an unknown id alike;
 * `used` is a link whose payment attempt was made (the link is single-use).
 */
export type HostedSubscriptionCheckout =
  | { state: 'invalid' }
  | { state: 'expired'; storeName: string; storeLinks: StoreLinks }
  | { state: 'open'; view: HostedSubscriptionView }
  | { state: 'used'; view: HostedSubscriptionView; subscription: HostedSubscriptionOutcome };

/** What proxy.ts loaded for a GET of the page, which the page then renders. */
export const hostedSubscriptionHandoff = createHandoff<HostedSubscriptionCheckout>('subscription');

async function findCheckout(db: Database, id: string) {
  const [row] = await db
    .select({ checkout: subscriptionCheckouts, storeName: stores.name, storeLinks: storeLinkColumns, offset: stores.testClockOffsetSeconds })
    .from(subscriptionCheckouts)
    .innerJoin(stores, eq(stores.id, subscriptionCheckouts.storeId))
    .where(eq(subscriptionCheckouts.id, id))
    .limit(1);
  return row;
}

async function outcomeOf(db: Database, checkout: typeof subscriptionCheckouts.$inferSelect): Promise<HostedSubscriptionOutcome | undefined> {
  if (!checkout.subscriptionId) return undefined;
  const [row] = await db
    .select({ subscription: subscriptions, charge: subscriptionCharges })
    .from(subscriptions)
    .leftJoin(subscriptionCharges, and(eq(subscriptionCharges.subscriptionId, subscriptions.id), madeOnHostedPage))
    .where(and(eq(subscriptions.id, checkout.subscriptionId), ownedBy(subscriptions, checkout)))
    .limit(1);
  if (!row) return undefined;
  return {
    id: row.subscription.id,
    status: row.subscription.status,
    failureCode: row.charge?.failureCode ?? null,
    firstChargeStatus: row.charge?.status ?? null,
    cardBrand: row.charge?.cardBrand ?? null,
    cardLast4: row.charge?.cardLast4 ?? null,
    nextBillingAt: epochSeconds(row.subscription.nextBillingAt),
  };
}

type CheckoutRow = NonNullable<Awaited<ReturnType<typeof findCheckout>>>;

function viewOf(config: SubscriptionPageDeps['config'], { checkout, storeName, storeLinks }: CheckoutRow, readAt: number): HostedSubscriptionView {
  const first = firstChargeAmountsOf(checkout, config.taxRates, new Date(readAt * 1000));
  return {
    id: checkout.id,
    livemode: checkout.livemode,
    storeName,
    storeLinks,
    readAt,
    planName: checkout.planName,
    amount: checkout.amount,
    interval: checkout.interval,
    intervalCount: checkout.intervalCount,
    totalPayments: checkout.totalPayments,
    customerEmail: checkout.customerEmail,
    customerName: checkout.customerName,
    successUrl: checkout.successUrl,
    trialDays: checkout.trialDays,
    firstCharge: first.amount,
    planCharge: chargeAmountsOf(checkout, config.taxRates, new Date(readAt * 1000)).amount,
    discount: checkout.discount === null ? null : { label: checkout.discount.label, amountOff: first.amountDiscount },
    allowPromotionCodes: checkout.allowPromotionCodes,
    ...(checkout.taxMode === 'buyer_country' ? { buyer: buyerOf(config, checkout, new Date(readAt * 1000)) } : {}),
  };
}

function buyerOf(config: SubscriptionPageDeps['config'], checkout: CheckoutRow['checkout'], now: Date): HostedSubscriptionBuyer {
  const charge = firstChargeAmountsOf(checkout, config.taxRates, now);
  return {
    // Until the buyer gives details, the name is the one the merchant gave.
    form: checkout.customerDetails ? billingFormFrom(checkout.customerDetails) : { ...billingFormFrom(null), name: checkout.customerName ?? '' },
    vatIdUnconfirmed: vatIdUnconfirmedOf(config.operator.vatId, checkout.customerDetails, checkout.taxTreatment),
    amountSubtotal: charge.amount - charge.amountTax,
    amountTax: charge.amountTax,
    amountTotal: charge.amount,
    tax: taxLabelOf([{ amountTax: charge.amountTax, taxRate: charge.taxRate, taxInclusive: checkout.taxInclusive }], { taxCountry: checkout.taxCountry, treatment: checkout.taxTreatment }),
  };
}

/** The first charge: the plan's amount less the discount, or where the buyer's country taxes it, that with its VAT. */
export function firstChargeOf(view: HostedSubscriptionView): number {
  return view.buyer?.amountTotal ?? view.firstCharge;
}

/** What is charged today: nothing during a trial (the card is only checked), else the first charge. */
export function amountDueToday(view: HostedSubscriptionView): number {
  return view.trialDays === null ? firstChargeOf(view) : 0;
}

/** `1 day`, `14 days`. */
export function daysPhrase(days: number): string {
  return days === 1 ? '1 day' : `${days} days`;
}

/** The page's texts that change with the billing details (and the summary's, where they are asked for). */
export function subscriptionPageTexts(view: HostedSubscriptionView): Pick<PageTexts, 'title' | 'heading' | 'pay' | 'total'> {
  const total = formatEur(amountDueToday(view));
  if (view.trialDays !== null) {
    const free = `free for ${daysPhrase(view.trialDays)}`;
    const heading = `Free for ${daysPhrase(view.trialDays)}, then ${formatEur(firstChargeOf(view))} ${perPhrase(view.interval, view.intervalCount)}`;
    return { title: `Subscribe to ${view.planName}: ${free} · ${view.storeName}`, heading, pay: `Subscribe: ${free}`, total };
  }
  // With a discount, the plan's price every period and what the discounted first charge takes today.
  const price = `${formatEur(view.discount === null ? amountDueToday(view) : view.planCharge)} ${intervalPhrase(view.interval, view.intervalCount)}`;
  return { title: `Subscribe to ${view.planName}: ${price} · ${view.storeName}`, heading: price, pay: view.discount === null ? `Subscribe: ${price}` : `Subscribe: pay ${total} today`, total };
}

/** Verifies the signed link against the store's clock, then reads the checkout for the page. */
export async function loadHostedSubscriptionCheckout(
  deps: SubscriptionPageDeps,
  params: { id: string; expires: string | undefined; signature: string | undefined },
): Promise<HostedSubscriptionCheckout> {
  if (!isSubscriptionCheckoutId(params.id)) return { state: 'invalid' };
  const row = await findCheckout(deps.db, params.id);
  if (!row) return { state: 'invalid' };
  const { checkout } = row;
  const now = epochSeconds(storeClock(deps.clock, { livemode: checkout.livemode, testClockOffsetSeconds: row.offset }).now());
  const link = checkLink(signingSecret(deps.config), 'subscription_checkout', checkout.id, params.expires, params.signature, now);
  if (link === 'invalid') return { state: 'invalid' };
  // A used link keeps showing what became of its attempt, even after its deadline.
  const subscription = await outcomeOf(deps.db, checkout);
  if (subscription) return { state: 'used', view: viewOf(deps.config, row, now), subscription };
  if (link === 'expired' || checkout.status !== 'open' || epochSeconds(checkout.expiresAt) <= now) return { state: 'expired', storeName: row.storeName, storeLinks: row.storeLinks };
  return { state: 'open', view: viewOf(deps.config, row, now) };
}

/**
 * The form's POST: verify the link again, hand the card to the first charge, answer where the
 * browser goes (always a 303, Post/Redirect/Get). Approved: the merchant's success_url (or the
 * receipt). Anything else: back to the page, which shows the field error (link still unused) or
 * what became of the attempt (declined, still being confirmed). Card data lives only in this
 * call's memory. Where the store taxes by the buyer's country, the billing details come first:
 * `Update total` (the form without its script) only taxes them, and a `Subscribe` whose total is
 * no longer the one shown burns nothing and shows the new one to confirm.
 */
export async function submitHostedSubscription(services: Services, input: SubmitInput): Promise<SubmitOutcome & { billing?: BillingForm }> {
  const link = { id: input.id, expires: input.expires, signature: input.signature };
  const hosted = await loadHostedSubscriptionCheckout(services, link);
  if (hosted.state === 'invalid') return { kind: 'not_found' };
  const page = (error?: HostedErrorCode) => backToForm('subscription_checkout', input, error);
  // The link's attempt was made already (a double click, a second tab, Back from the bank's page): land where it lands.
  if (hosted.state === 'used') return (await attemptDestination(services, link)) ?? page();
  if (hosted.state !== 'open') return page();
  const { view } = hosted;

  const typed = view.buyer && billingFormOf(input.form);
  // The billing details typed come back with every refusal, so they are never typed twice.
  const back = (error?: HostedErrorCode, billing: Parameters<typeof billingQuery>[0] = {}) => ({
    ...backToForm('subscription_checkout', input, error, billingQuery(billing)),
    ...(typed ? { billing: typed } : {}),
  });
  let billing: PaySubscriptionInput['billing'];
  if (typed) {
    if (updatesTotalOnly(input.form)) {
      const updated = await updateSubscriptionCheckoutBilling(services, view.id, typed);
      if (updated.kind === 'closed') return page();
      return updated.kind === 'refused' ? back(undefined, { errors: updated.errors }) : back(undefined, { notice: 'total_updated' });
    }
    const checked = await checkBilling(services.config, view.livemode, typed);
    if (!checked.ok) return back(undefined, { errors: checked.errors });
    billing = { checked: checked.billing, shownTotal: shownTotalOf(input.form) };
  }

  const field = (name: string) => {
    const value = input.form.get(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  try {
    const { subscription, challengeUrl } = await paySubscriptionCheckout(services, {
      checkoutId: view.id,
      card: { number: field('card_number').replace(/[\s-]/g, ''), expiry: field('expiry'), cvc: field('cvc') },
      language: input.language,
      buyer: input.buyer,
      billing,
    });
    // Live 3-D Secure: to the bank's challenge, which sends the customer back to /subscribe/{id}/return.
    if (challengeUrl) return { kind: 'redirect', location: challengeUrl };
    if (subscription.status === 'active' || subscription.status === 'trialing') {
      return { kind: 'redirect', location: subscribedRedirectUrl(services.config, view, subscription.id) };
    }
    // The page says how the attempt went; `incomplete` is a declined first charge.
    return { ...page(), ...(subscription.status === 'incomplete' ? { declined: true } : {}) };
  } catch (error) {
    if (error instanceof TotalChangedError) return back(undefined, { notice: 'total_changed' });
    if (error instanceof ApiError) {
      // Another submit made the attempt meanwhile: land where it lands.
      if (error.code === 'session_already_complete') return (await attemptDestination(services, link)) ?? page();
      // The page says how the attempt went (expired, or still being confirmed).
      if (error.code === 'session_expired' || error.code === 'payment_outcome_unknown') return page();
      return back(hostedPageErrorFor(error));
    }
    // Only the error itself: the form body (card data) must never reach a log.
    log.error(`hosted subscription checkout ${view.id}: payment failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
    return page('internal_error');
  }
}

/**
 * POST /subscribe/{id}/pay?expires&signature, as its route answers it: 429 while the address may
 * not attempt (server/rate-limit/card-attempts.ts), else always 303 (to the merchant, the
 * receipt, or back to the page) so a reload never resubmits. The body is card data: read once
 * here, never logged; nor are the buyer's address and user agent, kept on the first charge.
 */
export async function answerHostedSubscription(services: Services, request: Request, id: string): Promise<Response> {
  const refused = await refusedCardAttempt(services.rateLimits, clientIp(request.headers), 'Subscription');
  if (refused) return refused;
  const outcome = await submitHostedSubscription(services, { ...(await readHostedSubmission(request, id)), buyer: buyerClientOf(request.headers) });
  if (outcome.kind === 'not_found') return invalidLinkResponse();
  if (outcome.declined) await recordCardDecline(services.rateLimits, clientIp(request.headers));
  const headers = new Headers({ location: outcome.location, 'cache-control': 'no-store' });
  if (outcome.billing) headers.append('set-cookie', rememberedBillingCookie({ purpose: 'subscription_checkout', id }, outcome.billing, new URL(request.url).protocol === 'https:'));
  return new Response(null, { status: 303, headers });
}

/**
 * POST /subscribe/{id}/billing?expires&signature: the billing details from the form's script as
 * they change, kept on the checkout like `Update total`; answers the page's new texts.
 */
export function answerSubscriptionBilling(services: Services, request: Request, id: string): Promise<Response> {
  const link = hostedLinkOf(request, id);
  return answerBillingUpdate(services, request, async (form) => {
    const hosted = await loadHostedSubscriptionCheckout(services, link);
    if (hosted.state === 'invalid') return { status: 'not_found' };
    if (hosted.state !== 'open' || !hosted.view.buyer) return { status: 'closed' };
    const updated = await updateSubscriptionCheckoutBilling(services, id, form);
    if (updated.kind === 'refused') return refusedAnswer(updated.errors);
    const taxed = updated.kind === 'taxed' ? await loadHostedSubscriptionCheckout(services, link) : undefined;
    if (taxed?.state !== 'open' || !taxed.view.buyer) return { status: 'closed' };
    const { buyer } = taxed.view;
    return { status: 'taxed', shownTotal: buyer.amountTotal, texts: { ...summaryTexts(buyer), ...subscriptionPageTexts(taxed.view) }, vatIdUnconfirmed: buyer.vatIdUnconfirmed };
  });
}

/**
 * POST /subscribe/{id}/discount?expires&signature: the promotion code form, its own form beside the
 * payment form. `Apply` with a code usable now for this plan (any case) puts its terms on the
 * checkout; an unusable one changes nothing and the page says `This code is not valid`. `Remove`
 * takes it off. Always a 303 back to the page; only a checkout offering the field, open and
 * unused, changes.
 */
export async function answerSubscriptionPromotionCode(services: Services, request: Request, id: string): Promise<Response> {
  // Each try spends one of the address's payment attempts: codes cannot be guessed faster than cards.
  const refused = await refusedCardAttempt(services.rateLimits, clientIp(request.headers), 'Subscription');
  if (refused) return refused;
  const link = hostedLinkOf(request, id);
  const hosted = await loadHostedSubscriptionCheckout(services, link);
  if (hosted.state === 'invalid') return invalidLinkResponse();
  const redirect = (error?: 'code_invalid') => {
    const location = error
      ? `${hostedPagePath('subscription_checkout', { id, expires: link.expires!, signature: link.signature! }, { error })}#promotion-code`
      : backToForm('subscription_checkout', link).location;
    return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
  };
  if (hosted.state !== 'open' || !hosted.view.allowPromotionCodes) return redirect();
  const form = await readHostedForm(request);
  const row = await findCheckout(services.db, id);
  if (!row) return invalidLinkResponse();
  const { checkout } = row;
  let discount: DiscountTerms | null = null;
  if (!form.has(PROMOTION_CODE_FIELDS.remove)) {
    const typed = form.get(PROMOTION_CODE_FIELDS.code);
    const now = new Date(hosted.view.readAt * 1000);
    discount = typeof typed === 'string' ? await resolveTypedCode(services.db, checkout, typed, discountTargetOf(checkout), now) : null;
    if (discount === null) return redirect('code_invalid');
  }
  await services.db
    .update(subscriptionCheckouts)
    .set({ discount })
    .where(and(eq(subscriptionCheckouts.id, id), eq(subscriptionCheckouts.status, 'open'), isNull(subscriptionCheckouts.consumedAt)));
  return redirect();
}

/**
 * Where a customer back from the bank's 3-D Secure challenge goes: the merchant (or the receipt)
 * once subscribed, else the hosted page, which says what became of the attempt. Undefined for a
 * checkout that made no attempt.
 */
export async function subscriptionChallengeReturn(services: Services, checkoutId: string): Promise<string | undefined> {
  if (!isSubscriptionCheckoutId(checkoutId)) return undefined;
  const subscription = await completeSubscriptionChallenge(services, checkoutId);
  const row = subscription && (await findCheckout(services.db, checkoutId));
  if (!row) return undefined;
  if (subscription.status === 'active' || subscription.status === 'trialing') return subscribedRedirectUrl(services.config, row.checkout, subscription.id);
  // A used link shows its attempt's outcome even past its deadline.
  return signedLink(services.config.publicBaseUrl, signingSecret(services.config), 'subscription_checkout', checkoutId, epochSeconds(row.checkout.expiresAt));
}

/** Above the live gateway's 15 s timeout: the other submit's charge has settled or failed by then. */
const IN_FLIGHT_WAIT_MS = 20_000;
const POLL_INTERVAL_MS = 100;

/**
 * Where a submit goes when the link's attempt was made by another request: it waits while that
 * attempt's charge is still at the gateway (polling the database, so it works across instances),
 * then answers the merchant's success_url when subscribed, or the bank's challenge when one is
 * waiting for the customer; undefined means the page, which shows the outcome.
 */
async function attemptDestination(services: Services, link: { id: string; expires: string | undefined; signature: string | undefined }): Promise<SubmitOutcome | undefined> {
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  let hosted = await loadHostedSubscriptionCheckout(services, link);
  while (hosted.state === 'used' && hosted.subscription.firstChargeStatus === 'processing' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    hosted = await loadHostedSubscriptionCheckout(services, link);
  }
  if (hosted.state !== 'used') return undefined;
  if (hosted.subscription.status === 'active' || hosted.subscription.status === 'trialing')
    return { kind: 'redirect', location: subscribedRedirectUrl(services.config, hosted.view, hosted.subscription.id) };
  if (hosted.subscription.firstChargeStatus !== 'requires_action') return undefined;
  const challengeUrl = await pendingChallengeUrl(services, hosted.view.id);
  return challengeUrl ? { kind: 'redirect', location: challengeUrl } : undefined;
}

export interface HostedSubscriptionReceipt {
  view: HostedSubscriptionView;
  subscription: HostedSubscriptionOutcome;
}

/** What proxy.ts loaded for a GET of the receipt (its CSP names the store's logo), which the page then renders. */
export const hostedSubscriptionReceiptHandoff = createHandoff<HostedSubscriptionReceipt>('subscription-receipt');

/**
 * The receipt of an approved subscription checkout without success_url; the link is signed (ids
 * reach merchants) and works for RECEIPT_LINK_DAYS after the payment, on the store's clock.
 */
export async function loadHostedSubscriptionReceipt(deps: SubscriptionPageDeps, params: { id: string; signature: string | undefined }): Promise<HostedSubscriptionReceipt | undefined> {
  if (!isSubscriptionCheckoutId(params.id) || !receiptSignatureValid(deps.config, params.id, params.signature)) return undefined;
  const row = await findCheckout(deps.db, params.id);
  if (!row) return undefined;
  const now = storeClock(deps.clock, { livemode: row.checkout.livemode, testClockOffsetSeconds: row.offset }).now();
  // Like a purchase's receipt, the link works for a while after the payment; the e-mails and the portal remain.
  if (receiptLinkExpired(row.checkout.consumedAt, now)) return undefined;
  const subscription = await outcomeOf(deps.db, row.checkout);
  if (!subscription) return undefined;
  return { view: viewOf(deps.config, row, epochSeconds(now)), subscription };
}

/** The charges a subscription started now would make: the next after today's, and the last (none for a plan without a last one). */
export interface PlannedCharges {
  /** Epoch seconds; null when today's is the only charge. */
  next: number | null;
  /** Epoch seconds of the final charge; null when the plan runs until canceled. */
  last: number | null;
}

/**
 * The most payments a plan may have means "until canceled": merchants set it for a plan with no
 * end (10,000 monthly payments outlast any customer).
 */
export function runsUntilCanceled(totalPayments: number): boolean {
  return totalPayments >= MAX_TOTAL_PAYMENTS;
}

/**
 * Counted from the first charge as billing counts them (server/subscriptions/schedule.ts): `readAt`,
 * or after a trial its end, which makes the first charge the next.
 */
export function plannedCharges(view: Pick<HostedSubscriptionView, 'readAt' | 'interval' | 'intervalCount' | 'totalPayments'> & { trialDays?: number | null }): PlannedCharges {
  const trialSeconds = (view.trialDays ?? 0) * 86_400;
  const first = new Date((view.readAt + trialSeconds) * 1000);
  const at = (n: number) => epochSeconds(periodBoundary(first, view.interval, view.intervalCount, n));
  return {
    next: trialSeconds > 0 ? at(0) : view.totalPayments > 1 ? at(1) : null,
    last: runsUntilCanceled(view.totalPayments) ? null : at(view.totalPayments - 1),
  };
}

/** `per month`, `per 3 months`. */
export function perPhrase(interval: HostedSubscriptionView['interval'], count: number): string {
  return count === 1 ? `per ${interval}` : `per ${count} ${interval}s`;
}

/** `every month`, `every 3 weeks`. */
export function intervalPhrase(interval: HostedSubscriptionView['interval'], count: number): string {
  return count === 1 ? `every ${interval}` : `every ${count} ${interval}s`;
}
