import { ApiError } from '../errors';
import type { CardInput } from '../gateway/types';
import { cardBrand, luhnValid } from '../gateway/card-number';

/** What the hosted form sends; card data stays in memory for one request. */
export interface CardFields {
  number: string;
  expiry: string;
  cvc: string;
}

const EXPIRY = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/;

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

  const expiry = EXPIRY.exec(fields.expiry.trim());
  const expMonth = expiry ? Number(expiry[1]) : 0;
  if (!expiry || expMonth < 1 || expMonth > 12) {
    throw new ApiError('invalid_expiry', 'The expiry date must be MM/YY or MM/YYYY.', { param: 'expiry' });
  }
  const year = expiry[2]!;
  const expYear = year.length === 2 ? 2000 + Number(year) : Number(year);
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
