import type { TRPCError } from '@trpc/server';
import { ApiError } from '../errors';
import { apiErrorFromZod } from './zod-errors';
import { errorField, log } from '../observability/log';

/**
 * The API error a failed procedure call stands for, on REST and over tRPC alike: the `ApiError`
 * it threw, its input's validation failure, or the body's. Undefined for anything else (an
 * unknown route, which each transport words, or an unexpected failure).
 */
export function apiErrorOf(error: TRPCError): ApiError | undefined {
  const cause = error.cause;
  if (cause instanceof ApiError) return cause;
  if (error.code === 'BAD_REQUEST' && cause && 'issues' in cause && Array.isArray(cause.issues)) {
    return apiErrorFromZod(cause as Parameters<typeof apiErrorFromZod>[0]);
  }
  switch (error.code) {
    case 'PARSE_ERROR':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send JSON with `Content-Type: application/json`.');
    case 'PAYLOAD_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large.');
    default:
      return undefined;
  }
}

/**
 * An unexpected failure: never a stack, SQL or driver message in the answer; the cause is logged
 * under the request id instead.
 */
export function internalError(requestId: string, what: string, cause: unknown): ApiError {
  log.error({ request_id: requestId, err: errorField(cause) }, `${what} failed`);
  return new ApiError('internal_error', `An internal error occurred. Request id: ${requestId}.`);
}
