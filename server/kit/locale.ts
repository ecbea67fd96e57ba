/**
 * Amounts in EUR and dates in a reader's locale, formatted on the server from the
 * `Accept-Language` header (the pages run no script) or from a customer's language (e-mails).
 * Dates are calendar days in UTC, the same day the API's epoch seconds name.
 */
import { rankedLanguageTags } from './language';

const FALLBACK_LOCALE = 'en';

/** The first language of `Accept-Language` (by q-value) that Intl supports, else English. */
export function visitorLocale(acceptLanguage: string | null): string {
  for (const tag of rankedLanguageTags(acceptLanguage)) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf(tag);
      if (supported) return supported;
    } catch {
      // A malformed tag: try the next one.
    }
  }
  return FALLBACK_LOCALE;
}

export interface Formatters {
  locale: string;
  amount(cents: number): string;
  date(epochSeconds: number): string;
  /** Day and time of day, in UTC (the zone is the reader's to add). */
  dateTime(epochSeconds: number): string;
}

export function formattersFor(locale: string): Formatters {
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' });
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return {
    locale,
    amount: (cents) => money.format(cents / 100),
    date: (seconds) => day.format(new Date(seconds * 1000)),
    dateTime: (seconds) => time.format(new Date(seconds * 1000)),
  };
}

/** The machine-readable value of a `<time>` element. */
export function isoDate(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}
