import { checkoutFieldErrors, firstFieldError, type CardInput } from './card';
import { DEFAULT_API_BASE_URL } from './constants';
import { isApiErrorType, validationError, type ServiceError } from './errors';
import { isHttpsUrl, isSafeRedirectUrl, sessionIdFromClientSecret } from './urls';

/** The checkout session as the service returns it, plus where to send the customer after a confirm. */
export interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  url: string | null;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'failed';
  livemode: boolean;
  currency: 'eur';
  amount_total: number;
  success_url: string | null;
  /** Where `onSuccess` sends the customer by default. */
  redirect_url?: string | null;
  [field: string]: unknown;
}

export type ConfirmResult = { session: CheckoutSession; error?: undefined } | { error: ServiceError; session?: undefined };

export interface ConfirmParams {
  clientSecret: string;
  /** Derived from the client secret when omitted. */
  sessionId?: string;
  /** Checked in the browser first (validation_error, no request). The confirm request body is `{ client_secret }` alone: the card is never sent. */
  card?: CardInput;
  /** Checked in the browser when given. */
  email?: string;
}

export interface LoadServiceOptions {
  /** The service's origin, e.g. `https://pay.example.com`; default DEFAULT_API_BASE_URL. */
  apiBaseUrl?: string;
  /** For tests and unusual runtimes; default the global fetch. */
  fetch?: typeof fetch;
}

const PUBLISHABLE_KEY = /^pk_(test|live)_[0-9A-Za-z]+$/;

function mask(key: string): string {
  return key.length > 12 ? `${key.slice(0, 8)}…` : '(the given value)';
}

function networkError(): ServiceError {
  return {
    type: 'network_error',
    code: 'network_error',
    message: 'The payment service could not be reached. The payment may still have gone through: check the order before trying again.',
  };
}

function invalidResponse(status: number): ServiceError {
  return {
    type: 'api_error',
    code: 'invalid_response',
    status,
    message: 'The payment service sent an answer that could not be read. The payment may still have gone through: check the order before trying again.',
  };
}

/** `Retry-After` as delta seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** An answer with an error status: the service's envelope, or invalid_response when it is not one. */
function errorFromResponse(status: number, body: unknown, retryAfter: string | null): ServiceError {
  const envelope = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!envelope || !isApiErrorType(envelope.type) || typeof envelope.code !== 'string' || typeof envelope.message !== 'string') {
    return invalidResponse(status);
  }
  const error: ServiceError = { type: envelope.type, code: envelope.code, message: envelope.message, status };
  if (typeof envelope.param === 'string') error.param = envelope.param;
  if (status === 429) {
    const seconds = retryAfterSeconds(retryAfter);
    if (seconds !== undefined) error.retry_after = seconds;
  }
  return error;
}

function isCheckoutSession(body: unknown): body is CheckoutSession {
  const session = body as Partial<CheckoutSession> | null;
  return typeof session === 'object' && session !== null && session.object === 'checkout.session' && typeof session.id === 'string';
}

/** Checks everything the browser can check; the first failure, or undefined. */
function localValidationError(params: ConfirmParams, sessionId: string | null): ServiceError | undefined {
  if (!sessionId) return validationError('invalid_client_secret', 'The client secret is missing or malformed: pass the `client_secret` of the checkout session.', 'client_secret');
  const first = firstFieldError(checkoutFieldErrors(params));
  return first ? validationError(first.error.code, first.error.message, first.field) : undefined;
}

/** The client: one per publishable key. Create it with loadService(). */
export class Service {
  readonly publishableKey: string;
  readonly apiBaseUrl: string;
  readonly livemode: boolean;
  readonly #fetch: typeof fetch;
  /** Sessions with a confirm in flight: a second confirm of one is dropped before any request (`confirm_in_progress`). */
  readonly #confirming = new Set<string>();

  constructor(publishableKey: string, options: LoadServiceOptions = {}) {
    if (typeof publishableKey !== 'string' || !PUBLISHABLE_KEY.test(publishableKey)) {
      const hint = typeof publishableKey === 'string' && /^sk_/.test(publishableKey) ? ' A secret key must never be used in a browser: roll it now.' : '';
      throw new Error(`loadService() needs a publishable key starting with pk_test_ or pk_live_, got ${typeof publishableKey === 'string' ? mask(publishableKey) : typeof publishableKey}.${hint}`);
    }
    const apiBaseUrl = options.apiBaseUrl ?? DEFAULT_API_BASE_URL;
    if (!isSafeRedirectUrl(apiBaseUrl)) throw new Error(`loadService(): apiBaseUrl must be an absolute http(s) URL, got "${apiBaseUrl}".`);
    this.publishableKey = publishableKey;
    this.livemode = publishableKey.startsWith('pk_live_');
    this.apiBaseUrl = new URL(apiBaseUrl).origin;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /**
   * Sends the browser to a hosted page: only absolute http(s) URLs, and only https with a live
   * key. Resolves to `{ error }` (validation_error) instead of navigating otherwise.
   */
  async redirectToCheckout({ url }: { url: string }): Promise<{ error?: ServiceError }> {
    if (!isSafeRedirectUrl(url)) {
      return { error: validationError('unsafe_redirect_url', 'Refusing to redirect: only absolute http(s) URLs are allowed.', 'url') };
    }
    if (this.livemode && !isHttpsUrl(url)) {
      return { error: validationError('insecure_redirect_url', 'Refusing to redirect: live mode requires an https URL.', 'url') };
    }
    window.location.assign(url);
    return {};
  }

  /**
   * Confirms a session from the merchant page (embedded). Never throws: resolves to `{ session }` or `{ error }`. Today
   * the service answers every valid confirm with `three_d_secure_required`: send the customer to
   * the session's hosted `url`.
   */
  async confirmCheckoutSession(params: ConfirmParams): Promise<ConfirmResult> {
    const sessionId = params.sessionId ?? sessionIdFromClientSecret(params.clientSecret);
    const invalid = localValidationError(params, sessionId);
    if (invalid) return { error: invalid };
    if (this.#confirming.has(sessionId!)) {
      return { error: validationError('confirm_in_progress', 'This payment is already being confirmed; wait for its outcome.') };
    }
    if (this.livemode && !isHttpsUrl(this.apiBaseUrl)) {
      return { error: validationError('insecure_api_base_url', 'Live keys talk to the service over HTTPS only: pass its https origin as apiBaseUrl to loadService().') };
    }
    this.#confirming.add(sessionId!);
    try {
      return await this.#postConfirm(sessionId!, params.clientSecret);
    } finally {
      this.#confirming.delete(sessionId!);
    }
  }

  async #postConfirm(sessionId: string, clientSecret: string): Promise<ConfirmResult> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.apiBaseUrl}/api/v1/checkout/sessions/${encodeURIComponent(sessionId)}/confirm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.publishableKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_secret: clientSecret }),
        credentials: 'omit',
      });
    } catch {
      return { error: networkError() };
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return { error: invalidResponse(response.status) };
    }
    if (!response.ok) return { error: errorFromResponse(response.status, body, response.headers.get('retry-after')) };
    return isCheckoutSession(body) ? { session: body } : { error: invalidResponse(response.status) };
  }
}

/** Creates the client synchronously; throws for anything but a `pk_test_`/`pk_live_` key. */
export function loadService(publishableKey: string, options?: LoadServiceOptions): Service {
  return new Service(publishableKey, options);
}
