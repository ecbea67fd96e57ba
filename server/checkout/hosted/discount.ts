/**
 * POST /checkout/{id}/discount?expires&signature: the hosted page's promotion code form, its own
 * form beside the payment form, so it works without JavaScript. `Apply` sends `promotion_code`,
 * `Remove` sends `remove`; the answer is always a 303 back to the page (Post/Redirect/Get), with
 * `error=code_invalid` when the code changed nothing.
 */
import { clientIp, type Services } from '../../context';
import { PROMOTION_CODE_FIELDS } from '../../kit/hosted-page/discount';
import { invalidLinkResponse } from '../../kit/hosted-page/invalid-link';
import { hostedLinkOf, readHostedForm } from '../../kit/hosted-page/request';
import { hostedPagePath } from '../../kit/links';
import { refusedCardAttempt } from '../../rate-limit/card-attempts';
import { changeTypedCode } from '../discount';
import { loadHostedCheckout } from './page';

export async function answerPromotionCode(services: Services, request: Request, id: string): Promise<Response> {
  // Each try spends one of the address's payment attempts: codes cannot be guessed faster than cards.
  const refused = await refusedCardAttempt(services.rateLimits, clientIp(request.headers), 'Checkout');
  if (refused) return refused;
  const link = hostedLinkOf(request, id);
  const hosted = await loadHostedCheckout(services, link);
  if (hosted.state === 'invalid') return invalidLinkResponse();
  const form = await readHostedForm(request);
  const typed = form.get(PROMOTION_CODE_FIELDS.code);
  const outcome =
    hosted.state !== 'open' ? 'closed' : await changeTypedCode(services, id, form.has(PROMOTION_CODE_FIELDS.remove) ? null : typeof typed === 'string' ? typed : '');
  const signed = { id, expires: link.expires!, signature: link.signature! };
  const location = outcome === 'invalid' ? `${hostedPagePath('checkout', signed, { error: 'code_invalid' })}#promotion-code` : hostedPagePath('checkout', signed);
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
}
