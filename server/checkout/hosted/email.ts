/**
 * The email a customer typed, kept across the Post/Redirect/Get of a failed card attempt so the
 * form comes back prefilled without client-side JavaScript. A cookie scoped to the one session's
 * path, HttpOnly, short-lived; card fields are never kept anywhere.
 */
import { isEmailAddress } from '../../kit/fields';

export const REMEMBERED_EMAIL_COOKIE = 'checkout_email';
const MAX_AGE_SECONDS = 15 * 60;

export function rememberedEmailCookie(sessionId: string, email: string, secure: boolean): string {
  return [
    `${REMEMBERED_EMAIL_COOKIE}=${encodeURIComponent(email)}`,
    `Path=/checkout/${encodeURIComponent(sessionId)}`,
    `Max-Age=${MAX_AGE_SECONDS}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The remembered value, if it still looks like an email (a cookie is the client's to change). */
export function rememberedEmail(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let email: string;
  try {
    email = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  return isEmailAddress(email) ? email : undefined;
}
