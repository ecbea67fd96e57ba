/**
 * Link signing: every link and secret the service hands out is an HMAC-SHA256 under AUTH_SECRET,
 * so it can be checked without storing it: client secrets, hosted-page links, receipt links,
 * download links.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DocumentLanguage } from '@/db/schema';
import { epochSeconds } from '../clock';
import { ApiError } from '../errors';
import { sha256Hex, digestsEqual } from '../ids';

/** The key behind every signature; createServices() always resolves one (server/app.ts). */
export function signingSecret(config: { authSecret: string | undefined }): string {
  if (!config.authSecret) throw new ApiError('internal_error', 'The service has no AUTH_SECRET to sign links with.');
  return config.authSecret;
}

function hmac(secret: string, message: string): Buffer {
  return createHmac('sha256', secret).update(message).digest();
}

/**
 * `cs_…_secret_<random>`. Derived from the session id under the server key, so an
 * idempotent replay can return the original secret while only its SHA-256 is stored.
 */
export function clientSecretFor(secret: string, sessionId: string): string {
  return `${sessionId}_secret_${hmac(secret, `client_secret:${sessionId}`).toString('base64url').replace(/[-_]/g, '').slice(0, 32)}`;
}

export function clientSecretHash(clientSecret: string): string {
  return sha256Hex(clientSecret);
}

/** Constant-time check of a presented client secret against the stored hash. */
export function clientSecretMatches(presented: string, storedHash: string): boolean {
  return digestsEqual(sha256Hex(presented), storedHash);
}

export type LinkPurpose = 'checkout' | 'subscription_checkout' | 'download' | 'payment_method' | 'keep_subscription';

const LINK_PATHS: Record<LinkPurpose, string> = {
  checkout: '/checkout',
  subscription_checkout: '/subscribe',
  download: '/download',
  payment_method: '/payment-method',
  keep_subscription: '/cancel/keep',
};

function linkSignature(secret: string, purpose: LinkPurpose, id: string, expires: number): string {
  return hmac(secret, `${purpose}:${id}:${expires}`).toString('base64url');
}

/**
 * A hosted page's own signed URL again (path and query only), or one below it (`/pay`, the form's
 * target): the form posts the link along, and the handler comes back to the page after a POST.
 */
export function hostedPagePath(purpose: LinkPurpose, params: { id: string; expires: string; signature: string }, extra: Record<string, string> = {}, below = ''): string {
  const query = new URLSearchParams({ expires: params.expires, signature: params.signature, ...extra });
  return `${hostedPageRoot(purpose, params.id)}${below}?${query}`;
}

/** The path of a hosted page, which its posts are below (`/checkout/{id}`): the scope of its cookies. */
export function hostedPageRoot(purpose: LinkPurpose, id: string): string {
  return `${LINK_PATHS[purpose]}/${encodeURIComponent(id)}`;
}

/** A hosted-page URL, signed (HMAC-SHA256) and valid until `expires` (epoch seconds). */
export function signedLink(baseUrl: string, secret: string, purpose: LinkPurpose, id: string, expires: number): string {
  const signature = linkSignature(secret, purpose, id, expires);
  return `${baseUrl}${LINK_PATHS[purpose]}/${encodeURIComponent(id)}?expires=${expires}&signature=${signature}`;
}

export type LinkCheck = 'valid' | 'invalid' | 'expired';

/**
 * Verifies a hosted link: the signature first (a tampered id or expiry fails it), then the
 * expiry against the store's clock in epoch seconds.
 */
export function checkLink(secret: string, purpose: LinkPurpose, id: string, expires: string | undefined, signature: string | undefined, nowSeconds: number): LinkCheck {
  if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) return 'invalid';
  const expected = Buffer.from(linkSignature(secret, purpose, id, Number(expires)));
  const presented = Buffer.from(signature);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return 'invalid';
  return nowSeconds >= Number(expires) ? 'expired' : 'valid';
}

/** A payment-method link works this long, so a customer who reads the e-mail days later can still use it. */
export const PAYMENT_METHOD_LINK_DAYS = 7;

export interface PaymentMethodLink {
  url: string;
  expires_at: number;
}

/**
 * `<PUBLIC_BASE_URL>/payment-method/<sub id>?expires=&signature=`: the page where a customer gives a
 * new card for one subscription, valid for 7 days from `now` (the subscription's store clock).
 * Handed out by the API, the portal and the e-mails that ask for a working card; a German e-mail's
 * opens the page in German (`&lang=de`, outside the signature: the page's language is no secret).
 */
export function paymentMethodLink(config: LinkConfig, subscriptionId: string, now: Date, language: DocumentLanguage = 'en'): PaymentMethodLink {
  const expires = epochSeconds(now) + PAYMENT_METHOD_LINK_DAYS * 86_400;
  const url = signedLink(config.publicBaseUrl, signingSecret(config), 'payment_method', subscriptionId, expires);
  return { url: language === 'en' ? url : `${url}&lang=${language}`, expires_at: expires };
}

export function checkPaymentMethodLink(config: Pick<LinkConfig, 'authSecret'>, subscriptionId: string, expires: string | undefined, signature: string | undefined, nowSeconds: number): LinkCheck {
  return checkLink(signingSecret(config), 'payment_method', subscriptionId, expires, signature, nowSeconds);
}

/** A receipt link (a purchase's or a subscription's) works this long after the payment, on the store's clock. */
export const RECEIPT_LINK_DAYS = 30;

/** Whether a receipt link of a payment made at `paidAt` is past its days at `now` (the store's clock). */
export function receiptLinkExpired(paidAt: Date | null, now: Date): boolean {
  return paidAt !== null && now.getTime() >= paidAt.getTime() + RECEIPT_LINK_DAYS * 86_400_000;
}

/**
 * The receipt page's signature: proof that the holder is the browser that paid, since session
 * ids themselves are not secret (they reach the merchant's success_url). The receipt page
 * itself stops answering RECEIPT_LINK_DAYS after the payment (server/checkout/hosted/receipt.ts).
 */
function receiptSignature(secret: string, sessionId: string): string {
  return hmac(secret, `receipt:${sessionId}`).toString('base64url');
}

function receiptSignatureMatches(secret: string, sessionId: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(receiptSignature(secret, sessionId));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * A merchant's URL with our parameters appended to its query: the
 * merchant's own query is kept byte for byte (URLSearchParams would re-encode it, breaking a
 * merchant that signs its return URL), and a #fragment stays last.
 */
export function appendQuery(merchantUrl: string, params: Record<string, string>): string {
  const url = new URL(merchantUrl);
  const added = new URLSearchParams(params).toString();
  url.search = url.search.length > 1 ? `${url.search.slice(1)}&${added}` : added;
  return url.toString();
}

/** What links are made from: the service's signing secret and the origin customers reach. */
export interface LinkConfig {
  authSecret: string | undefined;
  publicBaseUrl: string;
}

/**
 * `<PUBLIC_BASE_URL>/<checkout|subscribe>/<id>/<receipt|return>?signature=…`: the pages that show
 * what was paid, signed with the receipt signature (a bare id must not be enough).
 */
export function receiptPageUrl(config: LinkConfig, purpose: LinkPurpose, id: string, page: 'receipt' | 'return'): string {
  return `${config.publicBaseUrl}${LINK_PATHS[purpose]}/${encodeURIComponent(id)}/${page}?signature=${receiptSignature(signingSecret(config), id)}`;
}

/** Where a paid session without success_url lands. */
export function receiptUrl(config: LinkConfig, sessionId: string): string {
  return receiptPageUrl(config, 'checkout', sessionId, 'receipt');
}

/** For the receipt page and the 3-D Secure return: is this the signature we handed out? */
export function receiptSignatureValid(config: Pick<LinkConfig, 'authSecret'>, id: string, signature: string | undefined): boolean {
  return receiptSignatureMatches(signingSecret(config), id, signature);
}

/**
 * Where the acquirer sends the customer back after a 3-D Secure challenge. Signed like the
 * receipt: the return page reveals the receipt, so a bare session id must not be enough.
 */
export function threeDSecureReturnUrl(config: LinkConfig, sessionId: string): string {
  return receiptPageUrl(config, 'checkout', sessionId, 'return');
}

/** success_url with `session_id` added, its own query kept; else the receipt page. */
export function paidRedirectUrl(config: LinkConfig, session: { id: string; successUrl: string | null }): string {
  if (!session.successUrl) return receiptUrl(config, session.id);
  return appendQuery(session.successUrl, { session_id: session.id });
}
