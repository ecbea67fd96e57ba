/**
 * Card submissions per client address, across instances: each session limits its own attempts,
 * but card testing tries one card per session over many sessions.
 */
import { clientIp, type Services } from '../context';
import { ApiError } from '../errors';
import { noticeResponse } from '../kit/hosted-page/invalid-link';

/**
 * A hosted form's POST spends one of its address's card attempts before anything is read: past
 * the limit it is answered with a 429 page, and neither the session nor the gateway sees it.
 */
export async function refusedCardAttempt(services: Pick<Services, 'rateLimits'>, request: Request, site: string): Promise<Response | undefined> {
  try {
    await services.rateLimits.consume('payIp', clientIp(request.headers));
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
    const retryAfter = error.retryAfter ?? 60;
    const minutes = Math.ceil(retryAfter / 60);
    return noticeResponse(
      {
        site,
        title: 'Too many payment attempts',
        alert: true,
        paragraphs: [
          'Too many payments were tried from your network in the last few minutes. This one was not sent, and nothing was charged.',
          `Please wait ${minutes === 1 ? 'a minute' : `${minutes} minutes`}, then go back to the payment page and try again.`,
        ],
      },
      429,
      { 'retry-after': String(retryAfter) },
    );
  }
}
