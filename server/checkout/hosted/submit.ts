/**
 * The hosted checkout form's POST: verify the link again, hand the card to the payment
 * service, and answer with where the browser goes next (always a 303, Post/Redirect/Get, so a
 * reload never resubmits and the page needs no client-side JavaScript).
 *
 * Card data lives only in this call's memory: it is never put in a URL, a log line or a page.
 */
import { ApiError, ERROR_CATALOG } from '../../errors';
import { buyerClientOf, clientIp, type Services } from '../../context';
import { isEmailAddress } from '../../kit/fields';
import { hostedPageErrorFor, type HostedErrorCode } from '../../kit/hosted-page/messages';
import { backToForm, hostedLinkOf, readHostedSubmission, type BuyerClient, type SubmitInput, type SubmitOutcome } from '../../kit/hosted-page/request';
import { invalidLinkResponse } from '../../kit/hosted-page/invalid-link';
import { paidRedirectUrl } from '../../kit/links';
import { recordCardDecline, refusedCardAttempt } from '../../rate-limit/card-attempts';
import { rememberedBillingCookie, rememberedEmailCookie, rememberedVatIdCookie } from './email';
import { checkoutPageTexts, loadHostedCheckout, type HostedCheckoutView } from './page';
import { answerBillingUpdate, billingQuery, refusedAnswer, shownTotalOf, updatesTotalOnly } from './billing';
import { TotalChangedError, updateSessionBilling } from '../buyer-tax';
import { billingFormOf, checkBilling, type BillingForm, type CheckedBilling } from '../../vat/billing';
import { log } from '../../observability/log';
import { checkBuyerVatId } from '../../vat/buyer';
import type { DocumentLanguage } from '@/db/schema';
import { WAIVER_FIELDS } from '../../orders/withdrawals/waiver';

export interface PayInput {
  sessionId: string;
  card: { number: string; expiry: string; cvc: string };
  email?: string;
  vatId?: string;
  language?: DocumentLanguage;
  withdrawalWaiver?: boolean;
  buyer?: BuyerClient;
  /** Where the session is taxed by the buyer's country: the details as checked, and the total the page showed. */
  billing?: { checked: CheckedBilling; shownTotal: number };
}

export type PayFn = (deps: Services, input: PayInput) => Promise<{ status: 'paid' | 'requires_action'; redirectUrl: string }>;

/** Where the browser goes, and what the customer typed to fill the form again: `billing`, where the page asks for the details. */
export type CheckoutSubmitOutcome = SubmitOutcome & { billing?: BillingForm };

function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
}

/** `pay` is the payment service's payCheckoutSession; tests pass their own. */
export async function submitHostedPayment(services: Services, pay: PayFn, input: SubmitInput): Promise<CheckoutSubmitOutcome> {
  const link = { id: input.id, expires: input.expires, signature: input.signature };
  const hosted = await loadHostedCheckout(services, link);
  if (hosted.state === 'invalid') return { kind: 'not_found' };
  const page = (error?: HostedErrorCode) => backToForm('checkout', input, error);
  if (hosted.state === 'expired' || hosted.state === 'failed') return page();
  // A second submission (another tab, a double click) of a paid session lands where the first did.
  if (hosted.state === 'complete') return { kind: 'redirect', location: paidRedirectUrl(services.config, hosted.view) };
  const { view } = hosted;

  /** Hands the card to the payment service; every refusal goes `back` to the form. */
  const attempt = async (buyer: Pick<PayInput, 'email' | 'vatId' | 'billing'>, back: (error: HostedErrorCode) => CheckoutSubmitOutcome, totalChanged?: () => CheckoutSubmitOutcome) => {
    try {
      const result = await pay(services, {
        sessionId: view.id,
        card: { number: field(input.form, 'card_number').replace(/[\s-]/g, ''), expiry: field(input.form, 'expiry'), cvc: field(input.form, 'cvc') },
        ...buyer,
        language: input.language,
        // One box alone is no waiver.
        withdrawalWaiver: field(input.form, WAIVER_FIELDS.deliveryConsent) !== '' && field(input.form, WAIVER_FIELDS.acknowledgement) !== '',
        buyer: input.buyer,
      });
      return { kind: 'redirect' as const, location: result.redirectUrl };
    } catch (error) {
      if (error instanceof TotalChangedError && totalChanged) return totalChanged();
      if (error instanceof ApiError) {
        if (error.code === 'session_already_complete') {
          const again = await loadHostedCheckout(services, link);
          if (again.state === 'complete') return { kind: 'redirect' as const, location: paidRedirectUrl(services.config, again.view) };
          return page();
        }
        // A card error is a decline when the gateway gave it: the session is failed then (a form error leaves it open).
        const declined = ERROR_CATALOG[error.code].type === 'card_error' && (await loadHostedCheckout(services, link)).state === 'failed';
        return { ...back(hostedPageErrorFor(error)), ...(declined ? { declined } : {}) };
      }
      // Only the error itself: the form body (card data) must never reach a log.
      log.error(`hosted checkout ${view.id}: payment failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
      return page('internal_error');
    }
  };

  // What the customer typed comes back with every error, so they never type it twice.
  const typedEmail = view.customerEmail ? undefined : field(input.form, 'email');
  if (view.buyer) return submitWithBillingDetails(services, input, view, typedEmail, attempt);

  const typedVatId = field(input.form, 'vat_id');
  const back = (error: HostedErrorCode): CheckoutSubmitOutcome => ({ ...page(error), ...(typedEmail ? { email: typedEmail } : {}), ...(typedVatId ? { vatId: typedVatId } : {}) });

  let email: string | undefined;
  if (typedEmail !== undefined) {
    email = typedEmail;
    if (!isEmailAddress(email)) return { ...page('email_invalid'), ...(typedVatId ? { vatId: typedVatId } : {}) };
  }
  let vatId: string | undefined;
  if (typedVatId !== '') {
    const checked = await checkBuyerVatId(services.config, typedVatId);
    if (!checked.valid) return back(checked.error);
    vatId = checked.vatId;
  }
  return attempt({ email, vatId }, back);
}

/**
 * A session taxed by the buyer's country takes the billing details first. `Update total` (the
 * form without its script) only taxes them; `Pay` pays the total the page showed for them, or,
 * when that total is no longer right, charges nothing and shows the new one to confirm.
 */
async function submitWithBillingDetails(
  services: Services,
  input: SubmitInput,
  view: HostedCheckoutView,
  typedEmail: string | undefined,
  attempt: (buyer: Pick<PayInput, 'email' | 'billing'>, back: (error: HostedErrorCode) => CheckoutSubmitOutcome, totalChanged: () => CheckoutSubmitOutcome) => Promise<CheckoutSubmitOutcome>,
): Promise<CheckoutSubmitOutcome> {
  const typed = billingFormOf(input.form);
  const back = (error?: HostedErrorCode, billing: Parameters<typeof billingQuery>[0] = {}): CheckoutSubmitOutcome => ({
    ...backToForm('checkout', input, error, billingQuery(billing)),
    ...(typedEmail ? { email: typedEmail } : {}),
    billing: typed,
  });
  if (updatesTotalOnly(input.form)) {
    const updated = await updateSessionBilling(services, view.id, typed);
    if (updated.kind === 'closed') return backToForm('checkout', input);
    return updated.kind === 'refused' ? back(undefined, { errors: updated.errors }) : back(undefined, { notice: 'total_updated' });
  }
  const emailError = typedEmail !== undefined && !isEmailAddress(typedEmail) ? 'email_invalid' : undefined;
  const checked = await checkBilling(services.config, view.livemode, typed);
  if (emailError || !checked.ok) return back(emailError, { errors: checked.ok ? {} : checked.errors });
  return attempt({ email: typedEmail, billing: { checked: checked.billing, shownTotal: shownTotalOf(input.form) } }, back, () => back(undefined, { notice: 'total_changed' }));
}

/**
 * POST /checkout/{id}/pay?expires&signature, as its route answers it: 429 while the address may
 * not attempt (server/rate-limit/card-attempts.ts), else always 303 (to the merchant, the
 * receipt, or back to the page with an error code) so a reload never resubmits. The body is card
 * data: read once here, never logged; nor are the buyer's address and user agent, kept on the order.
 */
export async function answerHostedPayment(services: Services, pay: PayFn, request: Request, id: string): Promise<Response> {
  const refused = await refusedCardAttempt(services.rateLimits, clientIp(request.headers), 'Checkout');
  if (refused) return refused;
  const outcome = await submitHostedPayment(services, pay, { ...(await readHostedSubmission(request, id)), buyer: buyerClientOf(request.headers) });
  if (outcome.kind === 'not_found') return invalidLinkResponse();
  if (outcome.declined) await recordCardDecline(services.rateLimits, clientIp(request.headers));
  const headers = new Headers({ location: outcome.location, 'cache-control': 'no-store' });
  const secure = new URL(request.url).protocol === 'https:';
  if (outcome.email) headers.append('set-cookie', rememberedEmailCookie(id, outcome.email, secure));
  if (outcome.vatId) headers.append('set-cookie', rememberedVatIdCookie(id, outcome.vatId, secure));
  if (outcome.billing) headers.append('set-cookie', rememberedBillingCookie({ purpose: 'checkout', id }, outcome.billing, secure));
  return new Response(null, { status: 303, headers });
}

/**
 * POST /checkout/{id}/billing?expires&signature: the billing details from the form's script as
 * they change, taxed and written to the session like `Update total`; answers the page's new texts.
 */
export function answerCheckoutBilling(services: Services, request: Request, id: string): Promise<Response> {
  const link = hostedLinkOf(request, id);
  return answerBillingUpdate(services, request, async (form) => {
    const hosted = await loadHostedCheckout(services, link);
    if (hosted.state === 'invalid') return { status: 'not_found' };
    if (hosted.state !== 'open' || !hosted.view.buyer) return { status: 'closed' };
    const updated = await updateSessionBilling(services, id, form);
    if (updated.kind === 'refused') return refusedAnswer(updated.errors);
    const taxed = updated.kind === 'taxed' ? await loadHostedCheckout(services, link) : undefined;
    if (taxed?.state !== 'open' || !taxed.view.buyer) return { status: 'closed' };
    return { status: 'taxed', shownTotal: taxed.view.amountTotal, texts: checkoutPageTexts(taxed.view), vatIdUnconfirmed: taxed.view.buyer.vatIdUnconfirmed };
  });
}
