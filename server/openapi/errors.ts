/**
 * The error half of the OpenAPI document, derived from ERROR_CATALOG so the two cannot drift:
 * the `Error` envelope schema, and for each operation the codes it can answer, grouped by status.
 */
import { ERROR_CATALOG, type ErrorCode, type ErrorType } from '../errors';
import type { ApiMeta } from '../trpc';
import type { ResponseObject, SchemaObject } from './types';

export const ERROR_SCHEMA_REF = '#/components/schemas/Error';
export const RETRY_AFTER_HEADER_REF = '#/components/headers/RetryAfter';

const ALL_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

function typesOf(codes: readonly ErrorCode[]): ErrorType[] {
  return [...new Set(codes.map((code) => ERROR_CATALOG[code].type))];
}

/** `{ error: { type, code, message, param? } }`: the body of every answer with status >= 400. */
export const errorSchema: SchemaObject = {
  type: 'object',
  description: 'Every failed request answers this envelope with the HTTP status of its `code`. Match on `code`; `message` is for people and may change.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message'],
      properties: {
        type: { type: 'string', enum: typesOf(ALL_CODES), description: 'The family of the error.' },
        code: { type: 'string', enum: ALL_CODES, description: 'Machine-readable reason; fixes the HTTP status.' },
        message: { type: 'string', description: 'What went wrong and how to fix it, for people.' },
        param: { type: 'string', description: 'The request field at fault, when there is one: `amount`, `images[2]`.' },
      },
    },
  },
  examples: [{ error: { type: 'invalid_request_error', code: 'parameter_invalid', message: 'Invalid amount: expected number, received string.', param: 'amount' } }],
};

export const retryAfterHeader = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 1 },
} as const;

/** What the document knows about one operation, enough to tell which failures it can answer. */
export interface OperationFacts {
  method: string;
  path: string;
  meta: ApiMeta;
  hasInput: boolean;
}

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/**
 * The codes an operation can answer. Most follow from what it is (server/http/api-handler.ts,
 * server/auth/service.ts); codes only its service knows come from its `errors` meta.
 */
export function operationErrorCodes({ method, path, meta, hasInput }: OperationFacts): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (hasInput) codes.add('parameter_invalid');
  if (BODY_METHODS.has(method.toUpperCase())) {
    // server/http/body.ts: every body method must send a JSON object of at most 64 KiB.
    for (const code of ['parameter_invalid', 'invalid_json', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(code);
  }
  if (meta.idempotent) {
    codes.add('idempotency_key_invalid');
    codes.add('idempotency_key_reused');
  }
  if (meta.auth) {
    for (const code of ['missing_api_key', 'invalid_api_key', 'wrong_key_type', 'capability_disabled'] as const) codes.add(code);
    if (meta.auth.kinds.includes('secret')) codes.add('account_suspended');
  }
  // Ids of other stores and of the other environment answer exactly like unknown ones.
  if (/\{[^}]+\}/.test(path)) codes.add('resource_missing');
  for (const code of meta.errors ?? []) codes.add(code);
  // The per-IP limit applies to every request, before authentication, and so does the instance's
  // bound on requests in flight.
  codes.add('rate_limited');
  codes.add('internal_error');
  codes.add('service_busy');
  // Catalog order, so the document does not depend on the order codes were listed in.
  return ALL_CODES.filter((code) => codes.has(code));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Authentication failed',
  402: 'Card error',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/**
 * One response per status. Its schema is the `Error` envelope narrowed to the codes (and so
 * the types) this operation can answer there, which generated clients and /docs both read.
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const statusCodes = byStatus.get(status) ?? [];
    const response: ResponseObject = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${statusCodes.map((code) => `\`${code}\``).join(', ')}.`,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: ERROR_SCHEMA_REF },
              {
                type: 'object',
                properties: {
                  error: {
                    type: 'object',
                    properties: { type: { enum: typesOf(statusCodes) }, code: { enum: statusCodes } },
                  },
                },
              },
            ],
          },
        },
      },
    };
    if (status === 429 || statusCodes.includes('service_busy')) response.headers = { 'Retry-After': { $ref: RETRY_AFTER_HEADER_REF } };
    responses[String(status)] = response;
  }
  return responses;
}
