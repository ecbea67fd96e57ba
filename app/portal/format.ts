/**
 * Amounts in EUR and dates in the visitor's locale, formatted on the server from the
 * `Accept-Language` header, since the page runs no script. Dates are calendar days in UTC, the
 * same day the API's epoch seconds name.
 */

const FALLBACK_LOCALE = 'en';

/** The first language of `Accept-Language` (by q-value) that Intl supports, else English. */
export function visitorLocale(acceptLanguage: string | null): string {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
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
}

export function formattersFor(locale: string): Formatters {
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' });
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
  return {
    locale,
    amount: (cents) => money.format(cents / 100),
    date: (seconds) => day.format(new Date(seconds * 1000)),
  };
}

/** The machine-readable value of a `<time>` element. */
export function isoDate(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}
