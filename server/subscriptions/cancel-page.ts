/**
 * The /cancel pages' two form posts and the e-mail's keep link:
 *
 * 1. `POST /cancel/check` checks the fields for form only and goes on to the confirmation page,
 *    the typed values sealed into its link (`draft`), or back to the form with the field to correct.
 * 2. `POST /cancel/declare` declares the cancellation and goes on to "Cancellation received".
 * 3. `GET /cancel/keep/<sub id>` (signed) undoes the scheduled end.
 *
 * Neither post tells whether the address has a subscription: every declaration is recorded and
 * answered alike, after the same minimum time. The language (`lang`) travels with every step.
 */
import { CANCELLATION_TIMINGS, type CancellationTiming, type DocumentLanguage } from '@/db/schema';
import type { CustomerActor } from '../audit/service';
import { epochSeconds } from '../clock';
import { clientIp, type Services } from '../context';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../kit/fields';
import { admitFormPost, awaitAnswerTime, sealedDrafts, sealedReceipts, seeOther, type DraftState, type PostRefusals } from '../kit/hosted-page/declaration-form';
import { createHandoff } from '../kit/hosted-page/handoff';
import type { InvalidLinkNotice } from '../kit/hosted-page/invalid-link';
import { readHostedForm, type HostedLinkParams } from '../kit/hosted-page/request';
import { chosenLanguage } from '../kit/language';
import { checkKeepSubscriptionLink, declareCancellation, keepSubscription, type KeepOutcome } from './cancellation';
import { SUBSCRIPTION_ID } from './schemas';

/** What the customer typed in step one. */
export interface CancelForm {
  email: string;
  /** A subscription id or an invoice number; empty when none was typed. */
  number: string;
  name: string;
  reason: string;
  cancelAt: CancellationTiming;
}

/** A field to correct, by its form name; `reason_required` is the reason an extraordinary cancellation needs. */
export const CANCEL_FORM_PROBLEMS = ['email', 'number', 'name', 'reason', 'reason_required'] as const;
export type CancelFormProblem = (typeof CANCEL_FORM_PROBLEMS)[number];

export const MAX_NAME_LENGTH = 200;
export const MAX_REASON_LENGTH = 2000;
export const MAX_NUMBER_LENGTH = 80;

/** The form of an invoice number (server/invoices/numbering.ts). */
const INVOICE_NUMBER = /^(TEST-)?INV-[0-9A-Z]{6}-[0-9]{6,}$/;

type TextField = Exclude<keyof CancelForm, 'cancelAt'>;

/** Longest value kept of each field: one past its limit still fails the check, and a huge one never swells the draft's link. */
const KEPT_LENGTH: Record<TextField, number> = { email: MAX_EMAIL_LENGTH + 1, number: MAX_NUMBER_LENGTH + 1, name: MAX_NAME_LENGTH + 1, reason: MAX_REASON_LENGTH + 1 };

function typedForm(form: FormData): CancelForm {
  const text = (field: TextField) => {
    const value = form.get(field);
    return typeof value === 'string' ? value.trim().slice(0, KEPT_LENGTH[field]) : '';
  };
  const cancelAt = form.get('cancel_at');
  return { email: text('email'), number: text('number'), name: text('name'), reason: text('reason'), cancelAt: cancelAt === 'asap' ? 'asap' : 'period_end' };
}

/** The first field that cannot be used, in the form's order. */
export function cancelFormProblem(form: CancelForm): CancelFormProblem | undefined {
  if (!isEmailAddress(form.email)) return 'email';
  if (form.number !== '' && !SUBSCRIPTION_ID.test(form.number) && !INVOICE_NUMBER.test(form.number)) return 'number';
  if (form.name === '' || form.name.length > MAX_NAME_LENGTH) return 'name';
  if (form.reason.length > MAX_REASON_LENGTH) return 'reason';
  if (form.cancelAt === 'asap' && form.reason === '') return 'reason_required';
  return undefined;
}

function isCancelForm(value: unknown): value is CancelForm {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (['email', 'number', 'name', 'reason'] as const).every((field) => typeof record[field] === 'string') && CANCELLATION_TIMINGS.includes(record.cancelAt as CancellationTiming);
}

const drafts = sealedDrafts('cancellation draft', isCancelForm);

/** A draft link's values: `expired` past its hour, `invalid` when it does not open. */
export function openCancelDraft(config: Services['config'], sealed: string | undefined, nowSeconds: number): DraftState<CancelForm> {
  return drafts.open(config, sealed, nowSeconds);
}

/** The "Cancellation received" page's facts: what was typed to name the subscription, and when it was declared (epoch seconds). */
export interface CancelReceipt {
  email: string;
  number: string;
  declaredAt: number;
}

const receipts = sealedReceipts<CancelReceipt>('cancellation receipt');

export function openCancelReceipt(config: Services['config'], sealed: string | undefined): CancelReceipt | undefined {
  return receipts.open(config, sealed);
}

const REFUSALS: Record<DocumentLanguage, PostRefusals> = {
  en: {
    crossSite: { site: 'Cancellation', title: 'This form was sent from another site', paragraphs: ['Nothing was sent. Open the cancellation form on this site and send it from there.'] },
    tooMany: { site: 'Cancellation', title: 'Too many requests', paragraphs: ['This form was sent too often from your network. Please wait a few minutes and send it again.'] },
  },
  de: {
    crossSite: {
      site: 'Kündigung',
      title: 'Dieses Formular wurde von einer anderen Website gesendet',
      paragraphs: ['Es wurde nichts gesendet. Öffnen Sie das Kündigungsformular auf dieser Website und senden Sie es von dort.'],
      language: 'de',
    },
    tooMany: {
      site: 'Kündigung',
      title: 'Zu viele Anfragen',
      paragraphs: ['Dieses Formular wurde zu oft aus Ihrem Netzwerk gesendet. Bitte warten Sie einige Minuten und senden Sie es dann erneut.'],
      language: 'de',
    },
  },
};

/** What the 404 of a keep link that does not verify says. */
export const KEEP_LINK_NOTICE: InvalidLinkNotice = {
  site: 'Subscription',
  title: 'This link is not valid',
  paragraphs: ['The link may have expired, been copied incompletely or changed. Nothing was changed.'],
};

const nowSeconds = (services: Services) => Math.floor(services.clock.now().getTime() / 1000);

/** A post's language: its form's `lang`, else the browser's. */
const postLanguage = (request: Request, form: FormData): DocumentLanguage => {
  const asked = form.get('lang');
  return chosenLanguage(typeof asked === 'string' ? asked : undefined, request.headers.get('accept-language'));
};

async function admittedForm(services: Services, request: Request): Promise<{ refused: Response } | { form: FormData; language: DocumentLanguage }> {
  // Read first, so that even a refusal answers in the form's language.
  const form = await readHostedForm(request);
  const language = postLanguage(request, form);
  const refused = await admitFormPost(request, services.config.publicBaseUrl, () => services.rateLimits.consume('cancelIp', clientIp(request.headers)), REFUSALS[language]);
  return refused ? { refused } : { form, language };
}

/** `POST /cancel/check`: step one's fields checked for form; on to the confirmation, or back to the field to correct. */
export async function checkCancelForm(services: Services, request: Request): Promise<Response> {
  const admitted = await admittedForm(services, request);
  if ('refused' in admitted) return admitted.refused;
  const form = typedForm(admitted.form);
  const draft = encodeURIComponent(drafts.seal(services.config, form, nowSeconds(services)));
  const problem = cancelFormProblem(form);
  if (problem) return seeOther(`/cancel?draft=${draft}&lang=${admitted.language}&error=${problem}#form-error`);
  return seeOther(`/cancel/confirm?draft=${draft}&lang=${admitted.language}`);
}

/** `POST /cancel/declare`: the confirmed draft declared: recorded always, ending what it matches. */
export async function declareCancelForm(services: Services, request: Request): Promise<Response> {
  const admitted = await admittedForm(services, request);
  if ('refused' in admitted) return admitted.refused;
  const started = Date.now();
  const { language } = admitted;
  const sealed = admitted.form.get('draft');
  const draft = openCancelDraft(services.config, typeof sealed === 'string' ? sealed : undefined, nowSeconds(services));
  if (draft.state !== 'open') return seeOther(`/cancel?lang=${language}&error=expired#form-error`);
  // A draft is sealed with its problems too (to fill the form in again): only a clean one is declared.
  const problem = cancelFormProblem(draft.form);
  if (problem) return seeOther(`/cancel?lang=${language}&error=${problem}#form-error`);
  const { email, number, name, reason, cancelAt } = draft.form;
  const actor: CustomerActor = { kind: 'customer', request: { ip: clientIp(request.headers), method: 'POST', path: '/cancel/declare' } };
  const declared = await declareCancellation(services, { email, number: number === '' ? null : number, name, reason: reason === '' ? null : reason, cancelAt, language }, actor);
  await awaitAnswerTime(started);
  const receipt = receipts.seal(services.config, { email, number, declaredAt: epochSeconds(declared.declaredAt) });
  return seeOther(`/cancel/received?receipt=${encodeURIComponent(receipt)}&lang=${language}`);
}

/** What the keep link's page shows: the outcome, in the subscription's language. */
export interface KeepPage {
  state: KeepOutcome['state'];
  language: DocumentLanguage;
  planName: string;
  /** When it renews (kept or never scheduled to end) or ended; epoch seconds. */
  at: number;
}

/**
 * `GET /cancel/keep/<sub id>`: the signed link of the `cancellation_received` e-mail undoes the
 * scheduled end; undefined for a link that does not verify (or has expired: it is valid until the end).
 */
export async function keepFromLink(services: Services, link: HostedLinkParams, ip: string): Promise<KeepPage | undefined> {
  if (checkKeepSubscriptionLink(services.config, link.id, link.expires, link.signature, nowSeconds(services)) !== 'valid') return undefined;
  const actor: CustomerActor = { kind: 'customer', request: { ip, method: 'GET', path: `/cancel/keep/${link.id}` } };
  const outcome = await keepSubscription(services, link.id, actor);
  if (!outcome) return undefined;
  const { subscription } = outcome;
  const at = outcome.state === 'ended' ? (subscription.endedAt ?? subscription.canceledAt ?? subscription.currentPeriodEnd) : subscription.currentPeriodEnd;
  return { state: outcome.state, language: subscription.language, planName: subscription.planName, at: epochSeconds(at) };
}

/** What proxy.ts found for the keep link, handed on to its page. */
export const keepPageHandoff = createHandoff<KeepPage>('keep-subscription');
