/**
 * Card attempts per client address, across instances: each session limits its own attempts, but
 * card testing tries one card per session over many sessions, and most of its cards are declined.
 * An address is refused once it has had too many declines in the window (or, far above any
 * shop's customers, too many attempts of any outcome).
 */
import { ApiError } from '../errors';
import { noticeResponse } from '../kit/hosted-page/invalid-link';
import type { RateLimits } from './service';

/** Spends one attempt of `ip`; throws 429 `rate_limited` when it has none left, or too many declines. */
export async function spendCardAttempt(rateLimits: RateLimits, ip: string): Promise<void> {
  await rateLimits.consume('payIp', ip);
  await rateLimits.check('payDeclineIp', ip);
}

/** Counts a declined attempt of `ip` (one past the limit changes nothing: the next attempt is refused either way). */
export async function recordCardDecline(rateLimits: RateLimits, ip: string): Promise<void> {
  await rateLimits.consume('payDeclineIp', ip).catch((error: unknown) => {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
  });
}

/**
 * A hosted form's POST spends its address's attempt before anything is read: when refused, it is
 * answered with a 429 page, and neither the session nor the gateway sees it.
 */
export async function refusedCardAttempt(rateLimits: RateLimits, ip: string, site: string): Promise<Response | undefined> {
  try {
    await spendCardAttempt(rateLimits, ip);
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
