/**
 * The one table of error codes (codes and statuses are public interface: never change one).
 * Domain code throws `new ApiError(code, …)` and never picks a status; the HTTP layer and the
 * OpenAPI document both read this table.
 */
export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'card_error' | 'rate_limit_error' | 'api_error';

const invalid = (status: number) => ({ status, type: 'invalid_request_error' as const });
const auth = { status: 401, type: 'authentication_error' as const };
const card = { status: 402, type: 'card_error' as const };

export const ERROR_CATALOG = {
  parameter_invalid: invalid(400),
  invalid_json: invalid(400),
  session_expired: invalid(400),
  invalid_success_url: invalid(400),
  invalid_cancel_url: invalid(400),
  unsupported_test_card: invalid(400),
  price_inactive: invalid(400),
  price_mode_unsupported: invalid(400),
  currency_unsupported: invalid(400),
  amount_mode_unsupported: invalid(400),
  metadata_invalid: invalid(400),
  idempotency_key_invalid: invalid(400),
  three_d_secure_required: invalid(400),
  discount_invalid: invalid(400),
  trial_already_used: invalid(400),
  missing_api_key: auth,
  invalid_api_key: auth,
  wrong_key_type: auth,
  invalid_client_secret: auth,
  environment_mismatch: auth,
  card_declined: card,
  invalid_card_number: card,
  invalid_expiry: card,
  expired_card: card,
  invalid_cvc: card,
  capability_disabled: invalid(403),
  account_suspended: invalid(403),
  test_mode_only: invalid(403),
  resource_missing: invalid(404),
  session_already_complete: invalid(409),
  session_payment_failed: invalid(409),
  session_payment_in_progress: invalid(409),
  order_already_processed: invalid(409),
  idempotency_key_reused: invalid(409),
  product_has_active_subscriptions: invalid(409),
  product_has_licenses: invalid(409),
  sku_unavailable: invalid(409),
  product_limit_reached: invalid(409),
  webhook_endpoint_limit_reached: invalid(409),
  webhook_endpoint_disabled: invalid(409),
  subscription_pending: invalid(409),
  subscription_not_active: invalid(409),
  balance_insufficient: invalid(409),
  payouts_held: invalid(409),
  payout_not_paid: invalid(409),
  order_disputed: invalid(409),
  dispute_not_editable: invalid(409),
  promotion_code_unavailable: invalid(409),
  payload_too_large: invalid(413),
  unsupported_media_type: invalid(415),
  rate_limited: { status: 429, type: 'rate_limit_error' },
  too_many_attempts: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  payment_outcome_unknown: { status: 500, type: 'api_error' },
  settlement_failed: { status: 500, type: 'api_error' },
  feature_unavailable: { status: 503, type: 'api_error' },
  service_busy: { status: 503, type: 'api_error' },
} as const satisfies Record<string, { status: number; type: ErrorType }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOG, value);
}

export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; param?: string };
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  /** Seconds, sent as `Retry-After` on 429 and 503. */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: { param?: string; retryAfter?: number } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.param = options.param;
    this.retryAfter = options.retryAfter;
  }

  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { type: ERROR_CATALOG[this.code].type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    return { error };
  }
}

recognizeAcrossBundles(ApiError, 'ApiError');

/**
 * Next bundles the server code into several chunks, each with its own copy of a class, while the
 * app's services are one singleton on `globalThis` (server/app.ts): an error its gateway or rate
 * limiter throws is an instance of whichever chunk's copy built it, and a plain `instanceof` in
 * another chunk says no. A class marked here is recognized by a registered symbol on its
 * prototype instead, so `instanceof` holds across copies.
 */
export function recognizeAcrossBundles(cls: abstract new (...args: never[]) => object, name: string): void {
  const brand = Symbol.for(`payments-service:${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  // Inherited by subclasses, so mark only classes nothing extends.
  Object.defineProperty(cls, Symbol.hasInstance, {
    value: (value: unknown) => typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true,
  });
}

/**
 * The answer for every id that is unknown, foreign or of the other environment: identical bytes.
 * The id is deliberately not echoed, so the body cannot depend on which id was
 * asked for; callers still pass it so the call site reads as what was looked up.
 */
export function resourceMissing(kind: string, _id: string, param = 'id'): ApiError {
  return new ApiError('resource_missing', `No such ${kind}. Check the id, and that it belongs to this account and to the mode (test or live) of the key used.`, { param });
}
