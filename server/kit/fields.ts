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
