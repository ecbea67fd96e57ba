/**
 * What a customer typed besides the card (email, VAT ID), kept across the Post/Redirect/Get of a
 * failed attempt so the form comes back prefilled without client-side JavaScript. Cookies scoped
 * to the one session's path, HttpOnly, short-lived; card fields are never kept anywhere.
 */
import { isEmailAddress } from '../../kit/fields';
import { VAT_ID_MAX_LENGTH } from '../../vat/vat-id';

export const REMEMBERED_EMAIL_COOKIE = 'checkout_email';
export const REMEMBERED_VAT_ID_COOKIE = 'checkout_vat_id';
const MAX_AGE_SECONDS = 15 * 60;

function rememberedCookie(name: string, sessionId: string, value: string, secure: boolean): string {
  return [`${name}=${encodeURIComponent(value)}`, `Path=/checkout/${encodeURIComponent(sessionId)}`, `Max-Age=${MAX_AGE_SECONDS}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join(
    '; ',
  );
}

export function rememberedEmailCookie(sessionId: string, email: string, secure: boolean): string {
  return rememberedCookie(REMEMBERED_EMAIL_COOKIE, sessionId, email, secure);
}

export function rememberedVatIdCookie(sessionId: string, vatId: string, secure: boolean): string {
  return rememberedCookie(REMEMBERED_VAT_ID_COOKIE, sessionId, vatId.slice(0, VAT_ID_MAX_LENGTH), secure);
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
