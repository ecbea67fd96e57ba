/**
 * The browser client's error object: what every failed confirm or redirect resolves to.
 * API errors keep the service's `type` and `code`; the client adds `validation_error` (checked in
 * the browser, no request sent) and `network_error`, and the codes `confirm_in_progress` and
 * `invalid_response`.
 */
export type ServiceErrorType = 'card_error' | 'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'api_error' | 'validation_error' | 'network_error';

export interface ServiceError {
  type: ServiceErrorType;
  code: string;
  message: string;
  /** The HTTP status, when the service answered. */
  status?: number;
  /** Seconds to wait before retrying (from `Retry-After`, on 429). */
  retry_after?: number;
  /** The field at fault, when there is one (`card_number`, `expiry`, `cvc`, `email`, `client_secret`). */
  param?: string;
}

export function validationError(code: string, message: string, param?: string): ServiceError {
  return param === undefined ? { type: 'validation_error', code, message } : { type: 'validation_error', code, message, param };
}

const API_ERROR_TYPES: ReadonlySet<string> = new Set(['card_error', 'invalid_request_error', 'authentication_error', 'rate_limit_error', 'api_error']);

export function isApiErrorType(type: unknown): type is ServiceErrorType {
  return typeof type === 'string' && API_ERROR_TYPES.has(type);
}

/**
 * After these the payment may or may not have gone through: retrieve the session on
 * the server before creating a new one.
 */
export function outcomeUnknown(error: ServiceError): boolean {
  return error.type === 'network_error' || error.code === 'invalid_response';
}
