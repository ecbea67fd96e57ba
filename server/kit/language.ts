/**
 * The customer's language, read from the `Accept-Language` of the hosted page's requests: their
 * documents (invoices, credit notes, e-mails) are written in it, in English or German.
 */
import { DOCUMENT_LANGUAGES, type DocumentLanguage } from '@/db/schema';

/** The tags of `Accept-Language`, most wanted first (by q-value, then as sent); `*` and q=0 left out. */
export function rankedLanguageTags(acceptLanguage: string | null): string[] {
  return (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/** The first of the customer's languages that documents are written in (`de-AT` is German), else English. */
export function documentLanguage(acceptLanguage: string | null): DocumentLanguage {
  for (const tag of rankedLanguageTags(acceptLanguage)) {
    const primary = tag.split('-')[0]!.toLowerCase();
    if ((DOCUMENT_LANGUAGES as readonly string[]).includes(primary)) return primary as DocumentLanguage;
  }
  return 'en';
}

/** A language the page was asked for (`?lang=`, or a form's `lang` field) when it is one documents are written in, else the customer's (`Accept-Language`). */
export function chosenLanguage(asked: string | null | undefined, acceptLanguage: string | null): DocumentLanguage {
  return (DOCUMENT_LANGUAGES as readonly (string | null | undefined)[]).includes(asked) ? (asked as DocumentLanguage) : documentLanguage(acceptLanguage);
}

/** A hosted page's language from its request: `?lang=de|en` (links and forms carry it), else `Accept-Language`, else English. */
export function requestedPageLanguage(request: Request): DocumentLanguage {
  return chosenLanguage(new URL(request.url).searchParams.get('lang'), request.headers.get('accept-language'));
}

/**
 * The request header proxy.ts sets for a page written in the customer's language, so the root
 * layout's `<html lang>` says it (the layout cannot see the page's query); English without it.
 */
export const PAGE_LANGUAGE_HEADER = 'x-page-language';

export function pageLanguage(requestHeaders: Pick<Headers, 'get'>): DocumentLanguage {
  return requestHeaders.get(PAGE_LANGUAGE_HEADER) === 'de' ? 'de' : 'en';
}
