/**
 * Card input helpers. They only shape and check what the customer types; the service decides.
 * Numbers are handled as digit strings and never logged or stored.
 */

const MAX_CARD_DIGITS = 19;
const MIN_CARD_DIGITS = 12;

function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** As typed: digits only, at most 19, in groups of four (American Express 4-6-5). */
export function formatCardNumber(value: string): string {
  const digits = digitsOf(value).slice(0, MAX_CARD_DIGITS);
  if (/^3[47]/.test(digits)) {
    return [digits.slice(0, 4), digits.slice(4, 10), digits.slice(10, 15)].filter(Boolean).join(' ');
  }
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** The Luhn checksum over the digits; spaces and dashes between them are allowed, anything else fails. */
export function luhnCheck(value: string): boolean {
  if (typeof value !== 'string' || !/^[\d\s-]+$/.test(value)) return false;
  const digits = digitsOf(value);
  if (digits.length < 2) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export interface Expiry {
  month: number;
  /** Four digits. */
  year: number;
}

/** `MM/YY`, `MM / YY`, `MM/YYYY` or `MMYY` → `{ month, year }`; null when it is none of those or the month is not 1–12. */
export function parseExpiry(value: string): Expiry | null {
  if (typeof value !== 'string') return null;
  const match = /^\s*(\d{1,2})\s*(?:\/|-)?\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!match || (match[1]!.length === 1 && !/[/-]/.test(value))) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

export type CardField = 'card_number' | 'expiry' | 'cvc';

export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
}

export interface CardFieldError {
  code: 'invalid_card_number' | 'invalid_expiry' | 'expired_card' | 'invalid_cvc' | 'invalid_email';
  message: string;
}

export interface CardValidation {
  valid: boolean;
  errors: Partial<Record<CardField, CardFieldError>>;
}

/**
 * Checks a card before anything is sent, with the service's card_error codes:
 * 12–19 digits passing Luhn, an expiry not before the current month, a 3- or 4-digit CVC.
 */
export function validateCard(card: CardInput, now: Date = new Date()): CardValidation {
  const errors: CardValidation['errors'] = {};
  const digits = digitsOf(card.number ?? '');
  if (digits.length < MIN_CARD_DIGITS || digits.length > MAX_CARD_DIGITS || !luhnCheck(card.number)) {
    errors.card_number = { code: 'invalid_card_number', message: 'Your card number is incomplete or not valid.' };
  }
  const expiry = parseExpiry(card.expiry ?? '');
  if (!expiry) {
    errors.expiry = { code: 'invalid_expiry', message: 'Enter the expiry date as MM/YY.' };
  } else if (expiry.year * 12 + expiry.month < now.getFullYear() * 12 + now.getMonth() + 1) {
    errors.expiry = { code: 'expired_card', message: 'Your card has expired.' };
  }
  if (!/^\d{3,4}$/.test((card.cvc ?? '').trim())) {
    errors.cvc = { code: 'invalid_cvc', message: 'Enter the 3- or 4-digit security code (CVC).' };
  }
  return { valid: Object.keys(errors).length === 0, errors };
}

export type CheckoutField = 'email' | CardField;

/** In the order the forms show them, so the first is the one to focus. */
export const CHECKOUT_FIELDS: readonly CheckoutField[] = ['email', 'card_number', 'expiry', 'cvc'];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Every field error of a checkout form (the email only when one is collected). */
export function checkoutFieldErrors(input: { card?: CardInput; email?: string }, now: Date = new Date()): Partial<Record<CheckoutField, CardFieldError>> {
  const errors: Partial<Record<CheckoutField, CardFieldError>> = input.card ? validateCard(input.card, now).errors : {};
  if (input.email !== undefined && !EMAIL.test(input.email.trim())) errors.email = { code: 'invalid_email', message: 'Enter a valid email address.' };
  return errors;
}

/** The first field error in form order, as the client error object (type `validation_error`, no request sent). */
export function firstFieldError(errors: Partial<Record<CheckoutField, CardFieldError>>): { field: CheckoutField; error: CardFieldError } | undefined {
  const field = CHECKOUT_FIELDS.find((name) => errors[name]);
  return field ? { field, error: errors[field]! } : undefined;
}
