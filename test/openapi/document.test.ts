import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GET as serveOpenApi } from '@/app/api/v1/openapi.json/route';
import { loadConfig } from '@/server/config';
import { ERROR_CATALOG, type ErrorCode } from '@/server/errors';
import { buildOpenApiDocument, getOpenApiDocument } from '@/server/openapi/document';
import { OPENAPI_FILE, OPENAPI_FILE_BASE_URL, renderOpenApiFile } from '@/server/openapi/file';
import { HTTP_METHODS, type OperationObject, type ResponseObject } from '@/server/openapi/types';
import { checkoutSecretKeyProcedure, createRouter, publishableKeyProcedure, secretKeyProcedure } from '@/server/trpc';
import { serveFetchHandler, useTestApi } from '../support/server';

const document = buildOpenApiDocument(OPENAPI_FILE_BASE_URL);

function operations(doc = document): { method: string; path: string; operation: OperationObject }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([route, item]) => HTTP_METHODS.flatMap((method) => (item[method] ? [{ method, path: route, operation: item[method] }] : [])));
}

/** The codes an error response narrows the `Error` envelope to (see server/openapi/errors.ts). */
function codesOf(response: ResponseObject): ErrorCode[] {
  const narrowed = (response.content?.['application/json']?.schema as any)?.allOf?.[1];
  return narrowed?.properties?.error?.properties?.code?.enum ?? [];
}

describe('committed openapi/openapi.json', () => {
  it('matches the routers (run `npm run openapi:write` when this fails)', () => {
    const committed = readFileSync(path.resolve(import.meta.dirname, '../..', OPENAPI_FILE), 'utf8');
    expect(committed === renderOpenApiFile(), `${OPENAPI_FILE} is out of date: run \`npm run openapi:write\` and commit it`).toBe(true);
  });
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with a license, and its server is the origin plus /api/v1', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String), license: { name: 'MIT', identifier: 'MIT' } });
    expect(document.servers).toEqual([{ url: 'http://localhost:3000/api/v1' }]);
    expect(Object.keys(document.paths ?? {})).toContain('/products');
  });

  it('POST /products answers 201 with a Product, and 200 with it on an idempotent replay', () => {
    const operation = document.paths?.['/products']?.post;
    const responses = operation?.responses ?? {};
    expect(responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Product' });
    expect(responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Product' });
    expect(operation?.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
  });

  it('every operation has an operationId, a summary, a tag and at least the errors every request can meet', () => {
    for (const { method, path: route, operation } of operations()) {
      const name = `${method.toUpperCase()} ${route}`;
      expect(operation.operationId, name).toBeTruthy();
      expect(operation.summary, name).toBeTruthy();
      expect(operation.tags?.length, name).toBeGreaterThan(0);
      expect(Object.keys(operation.responses ?? {}), name).toEqual(expect.arrayContaining(['429', '500']));
    }
  });

  it('the Error schema is the envelope, with every code and type of the catalog', () => {
    const error = document.components?.schemas?.Error as any;
    expect(error.required).toEqual(['error']);
    const fields = error.properties.error;
    expect(fields.required).toEqual(['type', 'code', 'message']);
    expect(fields.properties.code.enum).toEqual(Object.keys(ERROR_CATALOG));
    expect(new Set(fields.properties.type.enum)).toEqual(new Set(Object.values(ERROR_CATALOG).map((entry) => entry.type)));
    expect(fields.properties.param).toMatchObject({ type: 'string' });
    // The library's own error schemas are gone.
    expect(Object.keys(document.components?.schemas ?? {}).filter((name) => name.startsWith('error.'))).toEqual([]);
  });

  it('each error response lists only codes of its status, with their types', () => {
    for (const { method, path: route, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400) continue;
        const codes = codesOf(response as ResponseObject);
        expect(codes.length, `${method} ${route} ${status}`).toBeGreaterThan(0);
        for (const code of codes) expect(ERROR_CATALOG[code].status, `${method} ${route} ${code}`).toBe(Number(status));
      }
    }
  });

  it('product operations document their conflicts, lookups and body errors', () => {
    const create = document.paths?.['/products']?.post?.responses ?? {};
    expect(codesOf(create['409'])).toEqual(expect.arrayContaining(['sku_unavailable', 'product_limit_reached']));
    expect(codesOf(create['413'])).toEqual(['payload_too_large']);
    expect(codesOf(create['415'])).toEqual(['unsupported_media_type']);
    expect(codesOf(create['400'])).toEqual(expect.arrayContaining(['parameter_invalid', 'invalid_json']));
    expect(codesOf(create['401'])).toEqual(['missing_api_key', 'invalid_api_key', 'wrong_key_type']);
    expect(create['404']).toBeUndefined();
    const retrieve = document.paths?.['/products/{id}']?.get?.responses ?? {};
    expect(codesOf(retrieve['404'])).toEqual(['resource_missing']);
    expect(retrieve['415']).toBeUndefined();
  });

  it('checkouts, coupons, promotion codes and plan changes document the codes of their rules', () => {
    const responses = (route: string, method: 'get' | 'post' | 'patch' | 'delete') => document.paths?.[route]?.[method]?.responses ?? {};
    const session = responses('/checkout/sessions', 'post');
    expect(codesOf(session['400'])).toEqual(expect.arrayContaining(['discount_invalid', 'parameter_invalid', 'currency_unsupported']));
    expect(codesOf(session['404'])).toEqual(['resource_missing']);
    const subscription = responses('/subscriptions', 'post');
    expect(codesOf(subscription['400'])).toEqual(expect.arrayContaining(['discount_invalid', 'trial_already_used', 'parameter_invalid', 'price_inactive']));
    expect(codesOf(subscription['404'])).toEqual(['resource_missing']);
    // The embedded confirmation never pays, so it never meets a discount that ran out: the
    // session it left unpayable answers `session_payment_failed`.
    const confirm = responses('/checkout/sessions/{id}/confirm', 'post');
    expect(codesOf(confirm['400'])).toEqual(['parameter_invalid', 'invalid_json', 'session_expired', 'three_d_secure_required']);
    expect(codesOf(confirm['409'])).toEqual(['session_already_complete', 'session_payment_failed']);
    const change = responses('/subscriptions/{id}/change', 'post');
    expect(codesOf(change['400'])).toEqual(['parameter_invalid', 'invalid_json', 'price_inactive', 'price_mode_unsupported', 'idempotency_key_invalid']);
    expect(codesOf(change['402'])).toEqual(['card_declined']);
    expect(codesOf(change['404'])).toEqual(['resource_missing']);
    expect(codesOf(change['409'])).toEqual(['session_payment_in_progress', 'idempotency_key_reused', 'subscription_not_active']);
    expect(codesOf(change['500'])).toEqual(['internal_error', 'payment_outcome_unknown']);
    expect(codesOf(change['503'])).toEqual(['feature_unavailable', 'service_busy']);
    const coupon = responses('/coupons', 'post');
    expect(codesOf(coupon['400'])).toEqual(['parameter_invalid', 'invalid_json', 'currency_unsupported', 'metadata_invalid', 'idempotency_key_invalid']);
    expect(codesOf(coupon['404'])).toEqual(['resource_missing']);
    expect(codesOf(responses('/coupons/{id}', 'delete')['404'])).toEqual(['resource_missing']);
    const code = responses('/promotion_codes', 'post');
    expect(codesOf(code['400'])).toEqual(['parameter_invalid', 'invalid_json', 'metadata_invalid', 'idempotency_key_invalid']);
    expect(codesOf(code['404'])).toEqual(['resource_missing']);
    expect(codesOf(code['409'])).toEqual(['idempotency_key_reused', 'promotion_code_unavailable']);
    expect(codesOf(responses('/promotion_codes/{id}', 'patch')['400'])).toEqual(['parameter_invalid', 'invalid_json', 'metadata_invalid']);
    expect(codesOf(responses('/promotion_codes', 'get')['404'])).toEqual(['resource_missing']);
  });

  it('every 429 carries Retry-After', () => {
    expect(document.components?.headers?.RetryAfter).toMatchObject({ schema: { type: 'integer' } });
    for (const { method, path: route, operation } of operations()) {
      expect(operation.responses?.['429']?.headers, `${method} ${route}`).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' } });
    }
  });

  it('catalog operations require a secret key as a bearer token', () => {
    expect(document.components?.securitySchemes?.secretKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { method, path: route, operation } of operations()) {
      if (!route.startsWith('/products')) continue;
      expect(operation.security, `${method} ${route}`).toEqual([{ secretKey: [] }]);
    }
  });

  it('leaves the operator (admin) procedures out', () => {
    const text = JSON.stringify(document).toLowerCase();
    expect(text).not.toContain('/admin');
    expect(text).not.toContain('"admin');
  });

  it('is built once per process and base URL', () => {
    expect(getOpenApiDocument('http://a.test')).toBe(getOpenApiDocument('http://a.test'));
    expect(getOpenApiDocument('http://b.test').servers).toEqual([{ url: 'http://b.test/api/v1' }]);
  });
});

describe('OpenAPI meta of future operations', () => {
  // A router shaped like checkout sessions and the embedded confirm, to check what the
  // products alone do not exercise: X-Api-Key, publishable keys, Idempotency-Key, extra codes.
  const fixture = createRouter({
    createSession: checkoutSecretKeyProcedure
      .meta({ openapi: { method: 'POST', path: '/sessions', tags: ['Fixture'], summary: 'Create' }, successStatus: 201, idempotent: true, errors: ['price_inactive'] })
      .input(z.object({ price_id: z.string() }))
      .output(z.object({ id: z.string() }))
      .mutation(() => ({ id: 'x' })),
    confirm: publishableKeyProcedure
      .meta({ openapi: { method: 'POST', path: '/sessions/{id}/confirm', tags: ['Fixture'], summary: 'Confirm' }, errors: ['three_d_secure_required'] })
      .input(z.object({ id: z.string(), client_secret: z.string() }))
      .output(z.object({ id: z.string() }))
      .mutation(() => ({ id: 'x' })),
    list: secretKeyProcedure
      .meta({ openapi: { method: 'GET', path: '/sessions', tags: ['Fixture'], summary: 'List' } })
      .input(z.object({ limit: z.number().int().optional() }))
      .output(z.object({ id: z.string() }))
      .query(() => ({ id: 'x' })),
  });
  const doc = buildOpenApiDocument('http://localhost:3000', fixture);
  const create = doc.paths?.['/sessions']?.post as OperationObject;

  it('an idempotent create takes Idempotency-Key, answers 201, 200 on replay and 409 on reuse', () => {
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(doc.components?.parameters?.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false, schema: { maxLength: 191 } });
    expect(Object.keys(create.responses ?? {})).toEqual(expect.arrayContaining(['200', '201']));
    expect(codesOf(create.responses?.['409'])).toEqual(['idempotency_key_reused']);
    expect(codesOf(create.responses?.['400'])).toEqual(expect.arrayContaining(['idempotency_key_invalid', 'price_inactive']));
  });

  it('security follows the procedure base: X-Api-Key on checkout, publishable keys on confirm', () => {
    expect(create.security).toEqual([{ secretKey: [] }, { apiKeyHeader: [] }]);
    expect(doc.components?.securitySchemes?.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    const confirm = doc.paths?.['/sessions/{id}/confirm']?.post as OperationObject;
    expect(confirm.security).toEqual([{ publishableKey: [] }]);
    expect(codesOf(confirm.responses?.['403'])).toEqual(['capability_disabled']);
    expect(codesOf(confirm.responses?.['404'])).toEqual(['resource_missing']);
  });

  it('operations without a body or idempotency get neither their errors nor the header', () => {
    const list = doc.paths?.['/sessions']?.get as OperationObject;
    expect(list.responses?.['415']).toBeUndefined();
    expect(list.responses?.['409']).toBeUndefined();
    expect(list.parameters).not.toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
  });
});

describe('GET /api/v1/openapi.json', () => {
  let server: Awaited<ReturnType<typeof serveFetchHandler>>;
  beforeAll(async () => {
    server = await serveFetchHandler(async () => serveOpenApi());
  });
  afterAll(() => server.close());

  it('serves the built document without a key, cacheable', async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const expected = JSON.parse(JSON.stringify(buildOpenApiDocument(loadConfig().publicBaseUrl)));
    expect(await response.json()).toEqual(expected);
  });
});

describe('documented routes are the routed ones', () => {
  const api = useTestApi();

  it('every operation answers at server path + path (401 without a key, never an unknown route)', async () => {
    const prefix = new URL(document.servers?.[0]?.url ?? '').pathname;
    for (const { method, path: route, operation } of operations()) {
      const url = `${prefix}${route.replace(/\{[^}]+\}/g, 'prod_test_000000000000000000000000')}`;
      const hasBody = ['post', 'patch', 'put'].includes(method);
      const response = await api.request(method.toUpperCase(), url, hasBody ? { body: {} } : {});
      const name = `${method.toUpperCase()} ${url}`;
      expect(response.body?.error?.message ?? '', name).not.toMatch(/^Unrecognized request URL/);
      if (operation.security?.length) expect(response.body, name).toMatchObject({ error: { code: 'missing_api_key' } });
    }
    const unknown = await api.request('GET', `${prefix}/no-such-route`);
    expect(unknown.status).toBe(404);
  });
});
