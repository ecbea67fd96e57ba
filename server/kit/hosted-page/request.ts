/**
 * What a hosted page's request carries: the signed link (`expires`, `signature` in the query)
 * and, for the form's POST, the form-encoded body. Shared by the checkout and subscription pages.
 */
import type { Database } from '@/db/client';
import type { Clock } from '../../clock';
import { hostedPagePath, type LinkConfig, type LinkPurpose } from '../links';
import { isSafeText } from '../text-input';
import { documentLanguage } from '../language';
import type { DocumentLanguage } from '@/db/schema';
import { hostedMessage, type HostedErrorCode } from './messages';

/** What a hosted page's loader reads: the database, the clock the store clocks derive from, the signing config. */
export interface HostedPageDeps {
  db: Database;
  clock: Clock;
  config: LinkConfig;
}

export type SearchParams = Record<string, string | string[] | undefined>;

/** The signed link's parts as received; checked by the page's loader. */
export interface HostedLinkParams {
  id: string;
  expires: string | undefined;
  signature: string | undefined;
}

/** The buyer's address and browser as the payment's request showed them; null when it did not. */
export interface BuyerClient {
  ip: string | null;
  userAgent: string | null;
}

/** The form's POST: the link it was posted to, its body, and the customer's language. */
export interface SubmitInput extends HostedLinkParams {
  form: FormData;
  /** From the POST's `Accept-Language`: the language the customer's documents are written in. */
  language?: DocumentLanguage;
  /** Kept on the payment as evidence should the cardholder dispute it. */
  buyer?: BuyerClient;
}

/** Where the browser goes after the POST (always a 303), or a 404 for a link that does not verify. */
export type SubmitOutcome =
  /**
   * `email`, `vatId`: what the customer typed, to prefill the form again after an error (never
   * card data); `declined`: the card was refused (counted against the address: card testing).
   */
  { kind: 'redirect'; location: string; email?: string; vatId?: string; declined?: boolean } | { kind: 'not_found' };

/** A query value given once; a repeated or missing parameter reads as absent. */
export function singleParam(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function hostedLinkFromQuery(id: string, query: SearchParams): HostedLinkParams {
  return { id, expires: singleParam(query.expires), signature: singleParam(query.signature) };
}

/** A hosted form's body, read once; an unreadable body reads as empty. */
export async function readHostedForm(request: Request): Promise<FormData> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    form = new FormData();
  }
  // A field that is not safe text reads as missing, so the form's own check refuses it.
  for (const [name, value] of [...form]) if (typeof value === 'string' && !isSafeText(value)) form.delete(name);
  return form;
}

/** The signed link a POST below a hosted page carries in its query. */
export function hostedLinkOf(request: Request, id: string): HostedLinkParams {
  const url = new URL(request.url);
  return { id, expires: url.searchParams.get('expires') ?? undefined, signature: url.searchParams.get('signature') ?? undefined };
}

/** The link from the POST's URL, its body and the customer's language, read once (never logged: it holds card data). */
export async function readHostedSubmission(request: Request, id: string): Promise<SubmitInput> {
  const form = await readHostedForm(request);
  return { ...hostedLinkOf(request, id), form, language: documentLanguage(request.headers.get('accept-language')) };
}

/**
 * Back to the form's page after its POST (the link was verified, so it is complete), with the
 * error to show (and `extra` codes of the page's own). An error of a field focuses that field
 * (its input has `autofocus`, which a browser skips when the URL's fragment names an element);
 * any other is scrolled to by the fragment. Neither needs a script.
 */
export function backToForm(purpose: LinkPurpose, link: HostedLinkParams, error?: HostedErrorCode, extra: Record<string, string> = {}): { kind: 'redirect'; location: string } {
  const params = { id: link.id, expires: link.expires!, signature: link.signature! };
  const fragment = error && !hostedMessage(error)?.field ? '#form-error' : '';
  return { kind: 'redirect', location: hostedPagePath(purpose, params, { ...(error ? { error } : {}), ...extra }) + fragment };
}
