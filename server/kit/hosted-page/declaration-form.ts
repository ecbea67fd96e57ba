/**
 * What the declaration pages (/withdraw, /cancel) share: two form posts, each answered with a 303
 * (Post/Redirect/Get: no script, and a reload never declares twice), the typed values travelling
 * between the steps sealed in the links, and a declaration answered after the same minimum time
 * whatever it matched, so neither the answer nor its timing tells who is a customer.
 */
import { ApiError } from '../../errors';
import { signingSecret } from '../links';
import { isServiceOrigin } from '../origin';
import { seal, unseal } from '../sealed';
import { noticeResponse, type InvalidLinkNotice } from './invalid-link';

/** How long the confirmation page of a checked form stays usable. */
const DRAFT_LIFETIME_SECONDS = 60 * 60;
/** Every declaration is answered after at least this long, matched or not, so timing tells nothing. */
const DECLARATION_ANSWER_MS = 400;

type SigningConfig = { authSecret: string | undefined };

export const seeOther = (location: string) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });

/** The pages a refused post answers with, in the form's language. */
export interface PostRefusals {
  crossSite: InvalidLinkNotice;
  tooMany: InvalidLinkNotice;
}

/**
 * What every post shares: a form from another site is refused before anything is read (a browser
 * always sends Origin on a POST), then the address's allowance is spent (`spendAllowance` throws
 * `rate_limited` once it is used up).
 */
export async function admitFormPost(request: Request, publicBaseUrl: string, spendAllowance: () => Promise<void>, refusals: PostRefusals): Promise<Response | undefined> {
  if (!isServiceOrigin(request.headers.get('origin'), publicBaseUrl)) return noticeResponse(refusals.crossSite, 403);
  try {
    await spendAllowance();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
    return noticeResponse(refusals.tooMany, 429, { 'retry-after': String(error.retryAfter ?? 1) });
  }
  return undefined;
}

export type DraftState<Form> = { state: 'open'; form: Form } | { state: 'expired' } | { state: 'invalid' };

/**
 * The typed values in a link of their own (`draft`), readable by the service only (the address
 * and name are personal data), usable for an hour. `isForm` checks what opens is the page's form.
 */
export function sealedDrafts<Form>(label: string, isForm: (value: unknown) => value is Form) {
  return {
    seal(config: SigningConfig, form: Form, nowSeconds: number): string {
      return seal(signingSecret(config), label, '', JSON.stringify({ form, expires: nowSeconds + DRAFT_LIFETIME_SECONDS }));
    },
    /** `expired` past its hour, `invalid` when it does not open. */
    open(config: SigningConfig, sealed: string | undefined, nowSeconds: number): DraftState<Form> {
      if (!sealed) return { state: 'invalid' };
      const text = unseal(signingSecret(config), label, '', sealed);
      if (text === undefined) return { state: 'invalid' };
      const draft = JSON.parse(text) as { form?: unknown; expires?: unknown };
      if (!isForm(draft.form) || typeof draft.expires !== 'number') return { state: 'invalid' };
      return nowSeconds >= draft.expires ? { state: 'expired' } : { state: 'open', form: draft.form };
    },
  };
}

/** The answer page's facts in its link (`receipt`), sealed so that no one can make the page show anything else. */
export function sealedReceipts<Receipt>(label: string) {
  return {
    seal: (config: SigningConfig, receipt: Receipt): string => seal(signingSecret(config), label, '', JSON.stringify(receipt)),
    open(config: SigningConfig, sealed: string | undefined): Receipt | undefined {
      if (!sealed) return undefined;
      const text = unseal(signingSecret(config), label, '', sealed);
      return text === undefined ? undefined : (JSON.parse(text) as Receipt);
    },
  };
}

/** Waits until the declaration's minimum answer time, counted from `startedMs`, has passed. */
export async function awaitAnswerTime(startedMs: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedMs + DECLARATION_ANSWER_MS - Date.now())));
}
