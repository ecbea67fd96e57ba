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
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../kit/fields';
import { admitFormPost, awaitAnswerTime, sealedDrafts, sealedReceipts, seeOther, type DraftState, type PostRefusals } from '../../kit/hosted-page/declaration-form';
import { readHostedForm } from '../../kit/hosted-page/request';
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

function isWithdrawalForm(value: unknown): value is WithdrawalForm {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (['orderId', 'email', 'name', 'reason'] as const).every((field) => typeof record[field] === 'string');
}

const drafts = sealedDrafts('withdrawal draft', isWithdrawalForm);

/** A draft link's values: `expired` past its hour, `invalid` when it does not open. */
export function openDraft(config: Services['config'], sealed: string | undefined, nowSeconds: number): DraftState<WithdrawalForm> {
  return drafts.open(config, sealed, nowSeconds);
}

/** The "Withdrawal received" page's facts: the order number typed and when it was declared (epoch seconds). */
export interface WithdrawalReceipt {
  orderId: string;
  declaredAt: number;
}

const receipts = sealedReceipts<WithdrawalReceipt>('withdrawal receipt');

export function openReceipt(config: Services['config'], sealed: string | undefined): WithdrawalReceipt | undefined {
  return receipts.open(config, sealed);
}

const REFUSALS: PostRefusals = {
  crossSite: { site: 'Withdrawal', title: 'This form was sent from another site', paragraphs: ['Nothing was sent. Open the withdrawal form on this site and send it from there.'] },
  tooMany: { site: 'Withdrawal', title: 'Too many requests', paragraphs: ['This form was sent too often from your network. Please wait a few minutes and send it again.'] },
};

const admit = (services: Services, request: Request) => admitFormPost(request, services.config.publicBaseUrl, () => services.rateLimits.consume('withdrawIp', clientIp(request.headers)), REFUSALS);

const nowSeconds = (services: Services) => Math.floor(services.clock.now().getTime() / 1000);

/** `POST /withdraw/check`: step one's fields checked for form; on to the confirmation, or back to the field to correct. */
export async function checkWithdrawalForm(services: Services, request: Request): Promise<Response> {
  const refused = await admit(services, request);
  if (refused) return refused;
  const form = typedForm(await readHostedForm(request));
  const draft = encodeURIComponent(drafts.seal(services.config, form, nowSeconds(services)));
  const problem = formProblem(form);
  if (problem) return seeOther(`/withdraw?draft=${draft}&error=${problem}#form-error`);
  return seeOther(`/withdraw/confirm?draft=${draft}`);
}

/** `POST /withdraw/declare`: the confirmed draft declared (recorded only when it names a paid order of that address). */
export async function declareWithdrawalForm(services: Services, request: Request): Promise<Response> {
  const refused = await admit(services, request);
  if (refused) return refused;
  const started = Date.now();
  const body = await readHostedForm(request);
  const sealed = body.get('draft');
  const draft = openDraft(services.config, typeof sealed === 'string' ? sealed : undefined, nowSeconds(services));
  if (draft.state !== 'open') return seeOther('/withdraw?error=expired#form-error');
  // A draft is sealed with its problems too (to fill the form in again): only a clean one is declared.
  const problem = formProblem(draft.form);
  if (problem) return seeOther(`/withdraw?error=${problem}#form-error`);
  const { orderId, email, name, reason } = draft.form;
  await declareWithdrawal(services, { orderId, email, name, reason: reason === '' ? null : reason });
  const declaredAt = nowSeconds(services);
  await awaitAnswerTime(started);
  return seeOther(`/withdraw/received?receipt=${encodeURIComponent(receipts.seal(services.config, { orderId, declaredAt }))}`);
}
