/**
 * The billing details on a hosted page of a store taxing by the buyer's country (checkout and
 * subscription alike): what its form posts besides them, what its URL says after the
 * Post/Redirect/Get (codes only: what was typed goes in a cookie, server/checkout/hosted/email.ts),
 * and the answer to the form's script, which sends the details as they change and shows the new
 * amounts in place (server/checkout/hosted/payment-form.browser.ts).
 */
import { ApiError } from '../../errors';
import { clientIp, type Services } from '../../context';
import { formatEur } from '../../kit/hosted-page/amounts';
import { correctionAlert, type BillingFieldName } from '../../kit/hosted-page/messages';
import { readHostedForm } from '../../kit/hosted-page/request';
import { taxLineLabel, type TaxLabel } from '../../kit/hosted-page/tax-label';
import { BILLING_FIELDS, BILLING_LABELS, billingErrorMessage, billingFormOf, type BillingErrorCode, type BillingField, type BillingForm, BILLING_ERROR_CODES } from '../../vat/billing';

/** The form's fields besides the details: the button that only updates the total (no script), and the total the page showed. */
export const BILLING_FORM_FIELDS = { updateTotal: 'update_total', shownTotal: 'shown_total' } as const;

/** The page's query after a post: the refused fields (`vat_id:vat_id_other_country,city:field_required`), and what happened to the total. */
export const BILLING_QUERY = { errors: 'billing_errors', notice: 'notice' } as const;

export const BILLING_NOTICES = ['total_updated', 'total_changed'] as const;
export type BillingNotice = (typeof BILLING_NOTICES)[number];

export type BillingErrors = Partial<Record<BillingField, BillingErrorCode>>;

export const VAT_ID_UNCONFIRMED_MESSAGE = 'Your VAT ID could not be confirmed, so VAT is charged. Ask us for a corrected invoice once it is confirmed.';

export function totalChangedMessage(amountTotal: number): string {
  return `The total has changed to ${formatEur(amountTotal)}. Please check it and confirm.`;
}

/** What a page taxed by the buyer's country knows of them: the details it holds, to fill its form. */
export interface HostedBuyer {
  form: BillingForm;
  /** A VAT ID of another member state charged VAT because VIES could not confirm it (live mode). */
  vatIdUnconfirmed: boolean;
}

/** The billing fields in form order. */
const FORM_ORDER = Object.keys(BILLING_LABELS) as BillingField[];
const FIELD_OF_NAME = new Map(Object.entries(BILLING_FIELDS).map(([field, name]) => [name as string, field as BillingField]));

/** The page's query after a post: its refused fields, or what happened to the total. */
export function billingQuery(outcome: { errors?: BillingErrors; notice?: BillingNotice }): Record<string, string> {
  const errors = FORM_ORDER.flatMap((field) => (outcome.errors?.[field] ? [`${BILLING_FIELDS[field]}:${outcome.errors[field]}`] : [])).join(',');
  return { ...(errors ? { [BILLING_QUERY.errors]: errors } : {}), ...(outcome.notice ? { [BILLING_QUERY.notice]: outcome.notice } : {}) };
}

/** The refused fields a page's URL names; anything else in it is ignored (the page's words are its own). */
function billingErrorsOf(param: string | undefined): BillingErrors {
  const errors: BillingErrors = {};
  for (const entry of (param ?? '').split(',')) {
    const [name = '', code = ''] = entry.split(':');
    const field = FIELD_OF_NAME.get(name);
    if (field && (BILLING_ERROR_CODES as readonly string[]).includes(code)) errors[field] = code as BillingErrorCode;
  }
  return errors;
}

function billingNoticeOf(param: string | undefined): BillingNotice | undefined {
  return (BILLING_NOTICES as readonly string[]).includes(param ?? '') ? (param as BillingNotice) : undefined;
}

/** What the page's query says of a post of its billing details; `posted`: the details typed are in their cookie. */
export function billingPostOf(query: { errors: string | undefined; notice: string | undefined }) {
  const errors = billingErrorsOf(query.errors);
  const notice = billingNoticeOf(query.notice);
  return { errors, notice, posted: notice !== undefined || Object.keys(errors).length > 0 };
}

/** The billing fields as the page shows them: the details typed in the post just made, else those the checkout holds. */
export function billingStateOf(buyer: HostedBuyer, post: ReturnType<typeof billingPostOf>, typed: BillingForm | undefined) {
  return { form: typed ?? buyer.form, errors: post.errors, vatIdUnconfirmed: buyer.vatIdUnconfirmed, totalChanged: post.notice === 'total_changed' };
}

/** Each refused field by its form name with its message, in form order. */
export function billingFieldErrors(errors: BillingErrors): { field: BillingFieldName; message: string }[] {
  return FORM_ORDER.flatMap((field) => {
    const code = errors[field];
    return code ? [{ field: BILLING_FIELDS[field], message: billingErrorMessage(field, code) }] : [];
  });
}

/** The total the page showed, as its form carries it; -1 when it does not (then it differs from any). */
export function shownTotalOf(form: FormData): number {
  const value = form.get(BILLING_FORM_FIELDS.shownTotal);
  return typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : -1;
}

export function updatesTotalOnly(form: FormData): boolean {
  return form.has(BILLING_FORM_FIELDS.updateTotal);
}

/**
 * The texts of a page that change with the billing details, each shown by the elements marked
 * `data-bind` with its name (`title` is the document's): the page renders them, and the form's
 * script puts the ones answered here in their place.
 */
export interface PageTexts {
  title: string;
  heading: string;
  subtotal: string;
  'tax-label': string;
  tax: string;
  total: string;
  pay: string;
}

/** The summary's amounts and VAT row. */
export function summaryTexts(amounts: { amountSubtotal: number; amountTax: number; amountTotal: number; tax: TaxLabel }): Pick<PageTexts, 'subtotal' | 'tax-label' | 'tax' | 'total'> {
  return { subtotal: formatEur(amounts.amountSubtotal), 'tax-label': taxLineLabel(amounts.tax), tax: formatEur(amounts.amountTax), total: formatEur(amounts.amountTotal) };
}

/** What the billing endpoint answers the form's script. */
export type BillingAnswer =
  | { status: 'taxed'; shownTotal: number; texts: PageTexts; vatIdUnconfirmed: boolean }
  | { status: 'refused'; alert: string; errors: { field: BillingFieldName; message: string }[] }
  /** Paid, expired, used, or a payment on its way: the page, reloaded, says which. */
  | { status: 'closed' }
  | { status: 'not_found' };

export function refusedAnswer(errors: BillingErrors): BillingAnswer {
  const fields = billingFieldErrors(errors);
  return { status: 'refused', alert: correctionAlert(fields.map((error) => error.field)), errors: fields };
}

/**
 * POST /checkout/{id}/billing and /subscribe/{id}/billing (the signed link's query): the billing
 * fields as they change, from the form's script. Spends the address's allowance of hosted posts
 * (each may ask VIES), then `update` checks the link, taxes the details and answers JSON.
 */
export async function answerBillingUpdate(services: Services, request: Request, update: (form: BillingForm) => Promise<BillingAnswer>): Promise<Response> {
  const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  try {
    await services.rateLimits.consume('payIp', clientIp(request.headers));
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
    return new Response(JSON.stringify({ status: 'rate_limited' }), { status: 429, headers: { ...headers, 'retry-after': String(error.retryAfter ?? 60) } });
  }
  const answer = await update(billingFormOf(await readHostedForm(request)));
  return new Response(JSON.stringify(answer), { status: answer.status === 'not_found' ? 404 : 200, headers });
}
