import { expect } from 'vitest';

/** The `type` every status carries (413 `payload_too_large` included). Written out here, not read from the catalog, so the catalog is checked. */
export const ERROR_TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'card_error',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
};

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A request with full control over headers and the raw body (no defaults added). */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Uint8Array | ReadableStream<Uint8Array> } = {},
): Promise<RawResponse> {
  const init: RequestInit & { duplex?: 'half' } = { method, headers: options.headers ?? {} };
  if (options.body !== undefined) {
    init.body = options.body as BodyInit;
    if (options.body instanceof ReadableStream) init.duplex = 'half';
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** What every API answer carries, success or error. */
export function expectApiHeaders(response: { headers: Headers }): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
  expect(response.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{8,}$/);
  expect(response.headers.get('cache-control')).toBe('no-store');
}

function collectKeys(value: unknown, into: Set<string>): Set<string> {
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      into.add(key);
      collectKeys(inner, into);
    }
  }
  return into;
}

/**
 * Exactly `{ error: { type, code, message } }` (plus an optional `param`), the type that
 * belongs to the status, and nothing of the library's own shape (`issues`, `data`, `stack`).
 */
export function expectApiError(response: { status: number; body: any; headers: Headers }, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: { code } } });
  expectApiHeaders(response);
  expect(Object.keys(response.body)).toEqual(['error']);
  const { type, code: actualCode, message, ...rest } = response.body.error;
  expect(type).toBe(ERROR_TYPE_BY_STATUS[status]);
  expect(actualCode).toBe(code);
  expect(typeof message).toBe('string');
  expect(message.length).toBeGreaterThan(0);
  expect(Object.keys(rest).filter((key) => key !== 'param')).toEqual([]);
  if ('param' in rest) expect(typeof rest.param).toBe('string');
  const keys = collectKeys(response.body, new Set());
  for (const forbidden of ['issues', 'data', 'stack']) expect(keys.has(forbidden)).toBe(false);
}

let ipCounter = 0;
/** A fresh client address per call, so audit rows and per-IP counters of one request can be told apart. */
export function nextIp(): string {
  ipCounter += 1;
  return `10.0.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}
