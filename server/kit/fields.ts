/** Field rules shared by every domain's request schemas and hosted forms. */

/** The smallest amount a customer can be charged, in cents. */
export const MIN_AMOUNT = 50;
export const MAX_URL_LENGTH = 2000;
/** RFC 5321 caps a forward path at 254 characters. */
export const MAX_EMAIL_LENGTH = 254;

/** The usual pragmatic shape check: one @, and a dot after it. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email a customer typed on a hosted form: at most 254 characters, shaped like an address. */
export function isEmailAddress(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL.test(value);
}

/** An absolute http(s) URL of at most 2000 characters (https in live mode is checked by the services). */
export function isAbsoluteHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || !/^https?:\/\/[^\s]+$/i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Why `value` cannot be a link or image shown to customers on the hosted pages, or undefined when
 * it can: an absolute https URL of at most 2000 characters; http too while the service itself is
 * served over http (a local or test run), since an https page cannot show http content.
 */
export function customerPageUrlProblem(value: string, publicBaseUrl: string): string | undefined {
  const httpAllowed = publicBaseUrl.startsWith('http://');
  if (!isAbsoluteHttpUrl(value)) return `must be an absolute ${httpAllowed ? 'http(s)' : 'https'} URL of at most ${MAX_URL_LENGTH} characters`;
  if (!httpAllowed && !/^https:/i.test(value)) return 'must be an https URL: the hosted pages are served over https';
  return undefined;
}
