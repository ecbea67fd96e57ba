/**
 * The update-payment-method page's two requests besides its GET, each answered with a 303 back to
 * the page (Post/Redirect/Get: no script, and a reload never submits twice): the form's POST and
 * the return from a 3-D Secure challenge. The page then shows the update's outcome, named in its
 * query sealed to the subscription (server/subscriptions/payment-method.ts).
 */
import type { DocumentLanguage } from '@/db/schema';
import { buyerClientOf, clientIp, type Services } from '../context';
import { ApiError } from '../errors';
import { hostedPageErrorFor, type HostedErrorCode } from '../kit/hosted-page/messages';
import { invalidLinkResponse } from '../kit/hosted-page/invalid-link';
import { backToForm, hostedLinkOf, readHostedSubmission, type HostedLinkParams } from '../kit/hosted-page/request';
import { requestedPageLanguage } from '../kit/language';
import { hostedPagePath } from '../kit/links';
import { log } from '../observability/log';
import { recordCardDecline, refusedCardAttempt } from '../rate-limit/card-attempts';
import { loadPaymentMethodPage, PAYMENT_METHOD_LINK_NOTICE, sealCardUpdate } from '../subscriptions/payment-method';
import { completeCardUpdateChallenge, updatePaymentMethod } from './card-update';

const redirect = (location: string) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });

/** The page again, in its language, showing what became of `updateId`. */
function pageWithOutcome(services: Services, link: HostedLinkParams, updateId: string, language: DocumentLanguage): string {
  return hostedPagePath('payment_method', { id: link.id, expires: link.expires!, signature: link.signature! }, { outcome: sealCardUpdate(services.config, link.id, updateId), lang: language });
}

/**
 * POST /payment-method/{id}/update?expires&signature&lang: 429 while the address may not attempt a
 * card (server/rate-limit/card-attempts.ts), 404 for a link that does not verify, else a 303:
 * to the bank's challenge, or back to the page with the outcome or the field to correct. The body
 * is card data: read once here, never logged.
 */
export async function answerCardUpdate(services: Services, request: Request, id: string): Promise<Response> {
  const ip = clientIp(request.headers);
  const language = requestedPageLanguage(request);
  const refused = await refusedCardAttempt(services.rateLimits, ip, PAYMENT_METHOD_LINK_NOTICE[language].site, language);
  if (refused) return refused;
  const input = await readHostedSubmission(request, id);
  const page = await loadPaymentMethodPage(services, input);
  if (page.state === 'invalid') return invalidLinkResponse(PAYMENT_METHOD_LINK_NOTICE[language]);
  const back = (error?: HostedErrorCode) => redirect(backToForm('payment_method', input, error, { lang: language }).location);
  // An ended subscription's page says so, without a form.
  if (page.view.ended) return back();
  const field = (name: string) => {
    const value = input.form.get(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  try {
    const { update, challengeUrl } = await updatePaymentMethod(services, {
      subscriptionId: id,
      card: { number: field('card_number').replace(/[\s-]/g, ''), expiry: field('expiry'), cvc: field('cvc') },
      buyer: buyerClientOf(request.headers),
      actor: { kind: 'customer', request: { ip, method: 'POST', path: new URL(request.url).pathname } },
      link: { expires: input.expires!, signature: input.signature! },
      language,
    });
    if (challengeUrl) return redirect(challengeUrl);
    if (update.status === 'declined') await recordCardDecline(services.rateLimits, ip);
    return redirect(pageWithOutcome(services, input, update.id, language));
  } catch (error) {
    if (error instanceof ApiError) return back(error.code === 'subscription_not_active' ? undefined : hostedPageErrorFor(error));
    // Only the error itself: the form body (card data) must never reach a log.
    log.error(`card update of ${id} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
    return back('internal_error');
  }
}

/**
 * GET /payment-method/{id}/return?expires&signature&update&lang: the acquirer sends the customer back
 * here after a 3-D Secure challenge (live mode). Settles the update, then 303 to the page, which
 * shows the outcome. Safe to reload.
 */
export async function answerCardUpdateReturn(services: Services, request: Request, id: string): Promise<Response> {
  const link = hostedLinkOf(request, id);
  const language = requestedPageLanguage(request);
  const page = await loadPaymentMethodPage(services, link);
  const updateId = new URL(request.url).searchParams.get('update');
  if (page.state === 'invalid' || !updateId) return invalidLinkResponse(PAYMENT_METHOD_LINK_NOTICE[language]);
  const update = await completeCardUpdateChallenge(services, id, updateId);
  if (!update) return invalidLinkResponse(PAYMENT_METHOD_LINK_NOTICE[language]);
  return redirect(pageWithOutcome(services, link, update.id, language));
}
