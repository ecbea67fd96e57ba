import { ApiError } from '../errors';
import type { CardInput } from '../gateway/types';
import { cardBrand, luhnValid } from '../gateway/card-number';

/** What the hosted form sends; card data stays in memory for one request. */
export interface CardFields {
  number: string;
  expiry: string;
  cvc: string;
}

/**
 * The expiry as people type it: month then year, `MM/YY`, `MM/YYYY`, `1230`, `12 30`, `12-30`,
 * `122030`; a one-digit month only with something between (`1/30`: `130` is ambiguous). Null
 * when it is none of those or the month is not 1–12. The one parser of the service; the hosted
 * form's script runs it in the browser too (server/checkout/hosted/payment-form.browser.ts).
 */
export function parseCardExpiry(value: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*[/\s-]?\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!match || (match[1]!.length === 1 && !/\d\s*[/\s-]\s*\d/.test(value))) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}

/**
 * Local validation before any attempt: it consumes no attempt and calls no gateway,
 * so a typo never counts against the session's attempt limit. `now` is the store's clock, so a
 * test clock moved past a card's expiry makes it expired.
 * Messages never quote the input: card data must not reach a log or a page.
 */
export function validateCard(fields: CardFields, now: Date): CardInput {
  const number = fields.number.replace(/ /g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    throw new ApiError('invalid_card_number', 'The card number is not valid.', { param: 'card_number' });
  }

  const expiry = parseCardExpiry(fields.expiry);
  if (!expiry) throw new ApiError('invalid_expiry', 'The expiry date must be a month and year, as MM/YY.', { param: 'expiry' });
  const { month: expMonth, year: expYear } = expiry;
  // A card is valid through the last day of its expiry month; UTC, like every clock here.
  const firstInvalidDay = Date.UTC(expYear, expMonth, 1);
  if (now.getTime() >= firstInvalidDay) {
    throw new ApiError('expired_card', 'The card has expired.', { param: 'expiry' });
  }

  // Any 3-digit CVC; Amex cards print 4 digits, so they may send either.
  const cvc = fields.cvc.trim();
  const amex = cardBrand(number) === 'amex';
  if (!(amex ? /^\d{3,4}$/ : /^\d{3}$/).test(cvc)) {
    throw new ApiError('invalid_cvc', `The security code must be ${amex ? '3 or 4' : '3'} digits.`, { param: 'cvc' });
  }
  return { number, expMonth, expYear, cvc };
}
