/** What the dashboard's lists share in their query strings: one text field, whole UTC days, and the links that keep the filters. */

export type SearchParams = Record<string, string | string[] | undefined>;

/** A field of the query, trimmed; '' when absent or repeated. */
export const queryText = (params: SearchParams, name: string) => {
  const value = params[name];
  return (typeof value === 'string' ? value : '').trim();
};

export const DAY_SECONDS = 86_400;

/** `YYYY-MM-DD` → the epoch second its UTC day starts; undefined when empty, NaN when not a date. */
export function dayStart(text: string): number | undefined {
  if (text === '') return undefined;
  const milliseconds = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  return milliseconds / 1000;
}

/** `from` and `to` days as the API's inclusive created range; undefined when either is not a date. */
export function createdDays(from: string, to: string): { created_gte?: number; created_lte?: number } | undefined {
  const start = dayStart(from);
  const end = dayStart(to);
  if (Number.isNaN(start) || Number.isNaN(end)) return undefined;
  // The whole of the `to` day: created_lte is inclusive to the second.
  return { created_gte: start, created_lte: end === undefined ? undefined : end + DAY_SECONDS - 1 };
}

/** The query string of a list's filters, for the next page's and the export's links. */
export function listQueryString(form: Record<string, string>, extra: Record<string, string> = {}): string {
  const entries = Object.entries({ ...form, ...extra }).filter(([, value]) => value !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}
