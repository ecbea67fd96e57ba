/**
 * What a customer typed besides the card (email, VAT ID, billing details), kept across the
 * Post/Redirect/Get of a failed attempt (or of `Update total`) so the form comes back prefilled
 * without client-side JavaScript. Cookies scoped to the one page's path, HttpOnly, short-lived;
 * card fields are never kept anywhere.
 */
import { isEmailAddress } from '../../kit/fields';
import { hostedPageRoot, type LinkPurpose } from '../../kit/links';
import { BILLING_MAX_LENGTH, type BillingField, type BillingForm } from '../../vat/billing';
import { VAT_ID_MAX_LENGTH } from '../../vat/vat-id';

export const REMEMBERED_EMAIL_COOKIE = 'checkout_email';
export const REMEMBERED_VAT_ID_COOKIE = 'checkout_vat_id';
export const REMEMBERED_BILLING_COOKIE = 'billing_details';
const MAX_AGE_SECONDS = 15 * 60;

/** A cookie of the one hosted page (checkout or subscription) and its posts. */
function rememberedCookie(name: string, page: { purpose: LinkPurpose; id: string }, value: string, secure: boolean): string {
  return [`${name}=${encodeURIComponent(value)}`, `Path=${hostedPageRoot(page.purpose, page.id)}`, `Max-Age=${MAX_AGE_SECONDS}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');
}

export function rememberedEmailCookie(sessionId: string, email: string, secure: boolean): string {
  return rememberedCookie(REMEMBERED_EMAIL_COOKIE, { purpose: 'checkout', id: sessionId }, email, secure);
}

export function rememberedVatIdCookie(sessionId: string, vatId: string, secure: boolean): string {
  return rememberedCookie(REMEMBERED_VAT_ID_COOKIE, { purpose: 'checkout', id: sessionId }, vatId.slice(0, VAT_ID_MAX_LENGTH), secure);
}

/** The longest each billing field is kept: its limit (a longer value is refused anyway, and cut here to fit a cookie). */
const BILLING_KEPT_LENGTH: Record<BillingField, number> = { ...BILLING_MAX_LENGTH, country: 2, vatId: VAT_ID_MAX_LENGTH };

/**
 * The billing details typed on a checkout or subscription page, as base64url JSON (so that any
 * script's letters fit a cookie: a few KiB at most).
 */
export function rememberedBillingCookie(page: { purpose: LinkPurpose; id: string }, form: BillingForm, secure: boolean): string {
  const kept = Object.fromEntries((Object.keys(BILLING_KEPT_LENGTH) as BillingField[]).map((field) => [field, form[field].slice(0, BILLING_KEPT_LENGTH[field])]));
  return rememberedCookie(REMEMBERED_BILLING_COOKIE, page, Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url'), secure);
}

/** The remembered billing details, if every field is still text within its length (a cookie is the client's to change). */
export function rememberedBilling(value: string | undefined): BillingForm | undefined {
  const text = decoded(value);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const fields = parsed as Record<string, unknown>;
  const valid = (Object.keys(BILLING_KEPT_LENGTH) as BillingField[]).every((field) => {
    const kept = fields[field];
    return typeof kept === 'string' && kept.length <= BILLING_KEPT_LENGTH[field];
  });
  return valid ? (fields as unknown as BillingForm) : undefined;
}

function decoded(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** The remembered value, if it still looks like an email (a cookie is the client's to change). */
export function rememberedEmail(value: string | undefined): string | undefined {
  const email = decoded(value);
  return email !== undefined && isEmailAddress(email) ? email : undefined;
}

/** The remembered VAT ID as typed (wrong, maybe: it is shown again to be corrected), within the field's length. */
export function rememberedVatId(value: string | undefined): string | undefined {
  const vatId = decoded(value);
  return vatId !== undefined && vatId.length <= VAT_ID_MAX_LENGTH ? vatId : undefined;
}
