import { expect } from 'vitest';
import { epochSeconds } from '@/server/clock';
import { expectApiError, rawRequest } from '../http/helpers';
import { uniqueSku } from './factories';
import type { TestApi } from './server';

/** HTTP helpers shared by the API suites: fixed time, products, and the error envelope. */

/** A fixed, whole-second instant, so `created`/`updated` can be asserted exactly. */
export const T0 = new Date('2026-03-01T12:00:00.000Z');
export const epoch = epochSeconds;

/** POST /products with a valid body (overridable) and a fresh sku; fails the test unless 201. */
export async function createProduct(api: TestApi, key: string, body: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/api/v1/products', { key, body: { name: 'Ebook', amount: 1999, sku: uniqueSku(), ...body } });
  expect(response.status).toBe(201);
  return response.body;
}

/** The error envelope, with the field it blames (or none). */
export function expectError(response: { status: number; body: any; headers: Headers }, status: number, code: string, param?: string) {
  expectApiError(response, status, code);
  expect(response.body.error.param).toBe(param);
}

/**
 * An id of another store, of the other environment, and an unknown id all answer 404
 * `resource_missing`, byte for byte (the request id is a header, not in the body).
 */
export function expectIdenticalMissing(responses: { status: number; body: any; headers: Headers; text: string }[], param: string) {
  for (const response of responses) expectError(response, 404, 'resource_missing', param);
  for (const response of responses.slice(1)) expect(response.text).toBe(responses[0]!.text);
}

/** A request whose raw text is kept, for byte-identical comparisons. */
export function rawApiRequest(api: TestApi, method: string, path: string, key: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return rawRequest(api.baseUrl, method, path, { headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
}
