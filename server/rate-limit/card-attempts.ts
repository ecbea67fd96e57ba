/**
 * Card attempts per client address, across instances: each session limits its own attempts, but
 * card testing tries one card per session over many sessions, and most of its cards are declined.
 * An address is refused once it has had too many declines in the window (or, far above any
 * shop's customers, too many attempts of any outcome).
 */
import type { DocumentLanguage } from '@/db/schema';
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

/** The 429 page's words, in the page's language. */
const REFUSED_TEXTS = {
  en: {
    title: 'Too many payment attempts',
    tried: 'Too many payments were tried from your network in the last few minutes. This one was not sent, and nothing was charged.',
    wait: (minutes: number) => `Please wait ${minutes === 1 ? 'a minute' : `${minutes} minutes`}, then go back to the payment page and try again.`,
  },
  de: {
    title: 'Zu viele Zahlungsversuche',
    tried: 'Aus Ihrem Netzwerk wurden in den letzten Minuten zu viele Zahlungen versucht. Diese wurde nicht gesendet, und es wurde nichts abgebucht.',
    wait: (minutes: number) => `Bitte warten Sie ${minutes === 1 ? 'eine Minute' : `${minutes} Minuten`}, gehen Sie dann zurück zur Zahlungsseite und versuchen Sie es erneut.`,
  },
} satisfies Record<DocumentLanguage, unknown>;

/**
 * A hosted form's POST spends its address's attempt before anything is read: when refused, it is
 * answered with a 429 page in the page's language, and neither the session nor the gateway sees it.
 */
export async function refusedCardAttempt(rateLimits: RateLimits, ip: string, site: string, language: DocumentLanguage = 'en'): Promise<Response | undefined> {
  try {
    await spendCardAttempt(rateLimits, ip);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
    const retryAfter = error.retryAfter ?? 60;
    const text = REFUSED_TEXTS[language];
    return noticeResponse({ site, title: text.title, alert: true, paragraphs: [text.tried, text.wait(Math.ceil(retryAfter / 60))], language }, 429, { 'retry-after': String(retryAfter) });
  }
}
