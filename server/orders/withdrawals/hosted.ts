/**
 * The /withdraw pages' two form posts, each answered with a 303 (Post/Redirect/Get: no script, and
 * a reload never declares twice):
 *
 * 1. `POST /withdraw/check` checks the fields for form only and goes on to the confirmation page,
 *    the typed values sealed into its link (`draft`), or back to the form with the field to correct.
 * 2. `POST /withdraw/declare` declares the withdrawal and goes on to "Withdrawal received".
 *
 * Neither tells whether the order exists or the address matches: both answer the same for any
 * order number of the right form, the declaration after the same minimum time.
 */
import { clientIp, type Services } from '../../context';
import { ApiError } from '../../errors';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../kit/fields';
import { noticeResponse } from '../../kit/hosted-page/invalid-link';
import { readHostedForm } from '../../kit/hosted-page/request';
import { signingSecret } from '../../kit/links';
import { isServiceOrigin } from '../../kit/origin';
import { seal, unseal } from '../../kit/sealed';
import { declareWithdrawal } from './service';

/** What the customer typed in step one. */
export interface WithdrawalForm {
  orderId: string;
  email: string;
  name: string;
  reason: string;
}

export type WithdrawalField = keyof WithdrawalForm;

export const MAX_NAME_LENGTH = 200;
export const MAX_REASON_LENGTH = 2000;
/** How long the confirmation page of a checked form stays usable. */
const DRAFT_LIFETIME_SECONDS = 60 * 60;
/** Every declaration is answered after at least this long, matched or not, so timing tells nothing. */
const DECLARATION_ANSWER_MS = 400;

const DRAFT_LABEL = 'withdrawal draft';
const RECEIPT_LABEL = 'withdrawal receipt';

const ORDER_ID = /^ord_(test|live)_[0-9A-Za-z]{1,64}$/;

/** Why a field cannot be used, as the form shows it under that field. */
export const FIELD_PROBLEMS: Record<WithdrawalField, string> = {
  orderId: 'Enter the order number from your receipt: it starts with ord_.',
  email: 'Enter the e-mail address you used for the order.',
  name: `Enter your name (at most ${MAX_NAME_LENGTH} characters).`,
  reason: `The reason may be at most ${MAX_REASON_LENGTH} characters.`,
};

/** The form fields' names, as step one posts them and step two posts the draft. */
const FIELD_NAMES: Record<WithdrawalField, string> = { orderId: 'order', email: 'email', name: 'name', reason: 'reason' };

/** Longest value kept of each field: one past its limit still fails the check, and a huge one never swells the draft's link. */
const KEPT_LENGTH: Record<WithdrawalField, number> = { orderId: 81, email: MAX_EMAIL_LENGTH + 1, name: MAX_NAME_LENGTH + 1, reason: MAX_REASON_LENGTH + 1 };

function typedForm(form: FormData): WithdrawalForm {
  const text = (field: WithdrawalField) => {
    const value = form.get(FIELD_NAMES[field]);
    return typeof value === 'string' ? value.trim().slice(0, KEPT_LENGTH[field]) : '';
  };
  return { orderId: text('orderId'), email: text('email'), name: text('name'), reason: text('reason') };
}

/** The first field that cannot be used, in the form's order. */
export function formProblem(form: WithdrawalForm): WithdrawalField | undefined {
  if (!ORDER_ID.test(form.orderId)) return 'orderId';
  if (!isEmailAddress(form.email)) return 'email';
  if (form.name === '' || form.name.length > MAX_NAME_LENGTH) return 'name';
  if (form.reason.length > MAX_REASON_LENGTH) return 'reason';
  return undefined;
}

interface SealedDraft {
  form: WithdrawalForm;
  expires: number;
}

/** The typed values in a link of their own, readable by the service only (the address and name are personal data). */
function sealDraft(secret: string, form: WithdrawalForm, nowSeconds: number): string {
  return seal(secret, DRAFT_LABEL, '', JSON.stringify({ form, expires: nowSeconds + DRAFT_LIFETIME_SECONDS } satisfies SealedDraft));
}

function isWithdrawalForm(value: unknown): value is WithdrawalForm {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (['orderId', 'email', 'name', 'reason'] as const).every((field) => typeof record[field] === 'string');
}

export type DraftState = { state: 'open'; form: WithdrawalForm } | { state: 'expired' } | { state: 'invalid' };

/** A draft link's values: `expired` past its hour, `invalid` when it does not open. */
export function openDraft(config: Services['config'], sealed: string | undefined, nowSeconds: number): DraftState {
  if (!sealed) return { state: 'invalid' };
  const text = unseal(signingSecret(config), DRAFT_LABEL, '', sealed);
  if (text === undefined) return { state: 'invalid' };
  const draft = JSON.parse(text) as Partial<SealedDraft>;
  if (!isWithdrawalForm(draft.form) || typeof draft.expires !== 'number') return { state: 'invalid' };
  return nowSeconds >= draft.expires ? { state: 'expired' } : { state: 'open', form: draft.form };
}

/** The "Withdrawal received" page's facts: the order number typed and when it was declared (epoch seconds). */
export interface WithdrawalReceipt {
  orderId: string;
  declaredAt: number;
}

export function openReceipt(config: Services['config'], sealed: string | undefined): WithdrawalReceipt | undefined {
  if (!sealed) return undefined;
  const text = unseal(signingSecret(config), RECEIPT_LABEL, '', sealed);
  return text === undefined ? undefined : (JSON.parse(text) as WithdrawalReceipt);
}

const redirect = (location: string) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });

const CROSS_SITE = {
  site: 'Withdrawal',
  title: 'This form was sent from another site',
  paragraphs: ['Nothing was sent. Open the withdrawal form on this site and send it from there.'],
};

/**
 * What every post shares: a form from another site is refused before anything is read (a browser
 * always sends Origin on a POST), then the address's allowance is spent.
 */
async function admit(services: Services, request: Request): Promise<Response | undefined> {
  if (!isServiceOrigin(request.headers.get('origin'), services.config.publicBaseUrl)) return noticeResponse(CROSS_SITE, 403);
  try {
    await services.rateLimits.consume('withdrawIp', clientIp(request.headers));
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
    return noticeResponse({ site: 'Withdrawal', title: 'Too many requests', paragraphs: ['This form was sent too often from your network. Please wait a few minutes and send it again.'] }, 429, {
      'retry-after': String(error.retryAfter ?? 1),
    });
  }
  return undefined;
}

const nowSeconds = (services: Services) => Math.floor(services.clock.now().getTime() / 1000);

/** `POST /withdraw/check`: step one's fields checked for form; on to the confirmation, or back to the field to correct. */
export async function checkWithdrawalForm(services: Services, request: Request): Promise<Response> {
  const refused = await admit(services, request);
  if (refused) return refused;
  const form = typedForm(await readHostedForm(request));
  const draft = encodeURIComponent(sealDraft(signingSecret(services.config), form, nowSeconds(services)));
  const problem = formProblem(form);
  if (problem) return redirect(`/withdraw?draft=${draft}&error=${problem}#form-error`);
  return redirect(`/withdraw/confirm?draft=${draft}`);
}

/** `POST /withdraw/declare`: the confirmed draft declared (recorded only when it names a paid order of that address). */
export async function declareWithdrawalForm(services: Services, request: Request): Promise<Response> {
  const refused = await admit(services, request);
  if (refused) return refused;
  const started = Date.now();
  const body = await readHostedForm(request);
  const sealed = body.get('draft');
  const draft = openDraft(services.config, typeof sealed === 'string' ? sealed : undefined, nowSeconds(services));
  if (draft.state !== 'open') return redirect('/withdraw?error=expired#form-error');
  // A draft is sealed with its problems too (to fill the form in again): only a clean one is declared.
  const problem = formProblem(draft.form);
  if (problem) return redirect(`/withdraw?error=${problem}#form-error`);
  const { orderId, email, name, reason } = draft.form;
  await declareWithdrawal(services, { orderId, email, name, reason: reason === '' ? null : reason });
  const declaredAt = nowSeconds(services);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + DECLARATION_ANSWER_MS - Date.now())));
  const receipt = seal(signingSecret(services.config), RECEIPT_LABEL, '', JSON.stringify({ orderId, declaredAt } satisfies WithdrawalReceipt));
  return redirect(`/withdraw/received?receipt=${encodeURIComponent(receipt)}`);
}
