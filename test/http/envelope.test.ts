import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '@/server/config';
import type { Services } from '@/server/context';
import { createGateways } from '@/server/gateway';
import { createApiHandler } from '@/server/app';
import { MAX_JSON_BODY_BYTES } from '@/server/http/body';
import { createRateLimits } from '@/server/rate-limit/service';
import { createStore, uniqueSku } from '../support/factories';
import { createTestDatabase } from '../support/database';
import { createTestClock, serveFetchHandler, useTestApi } from '../support/server';
import { expectApiError, expectApiHeaders, rawRequest } from './helpers';

const api = useTestApi();
let key: string;
let productId: string;

beforeAll(async () => {
  const store = await createStore(api.services);
  key = store.keys.sk_test;
  const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'Envelope', amount: 100, sku: uniqueSku() } });
  expect(created.status).toBe(201);
  productId = created.body.id;
});

const auth = () => ({ authorization: `Bearer ${key}` });
const productBody = () => JSON.stringify({ name: 'Body test', amount: 250, sku: uniqueSku() });
const post = (headers: Record<string, string>, body?: string | Uint8Array | ReadableStream<Uint8Array>) =>
  rawRequest(api.baseUrl, 'POST', '/api/v1/products', { headers: { ...auth(), ...headers }, body });

describe('wire format: JSON bodies', () => {
  it('malformed JSON → 400 invalid_json', async () => {
    for (const text of ['{"name": "x", "amount": 1', '{name: "x"}', '{"a":1}}', "{'a':1}", '\u0000']) {
      expectApiError(await post({ 'content-type': 'application/json' }, text), 400, 'invalid_json');
    }
  });

  it('missing Content-Type on POST → 415 unsupported_media_type', async () => {
    // A Uint8Array body makes fetch send no Content-Type of its own.
    expectApiError(await post({}, new TextEncoder().encode(productBody())), 415, 'unsupported_media_type');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'application/json-patch+json', 'json'])(
    'Content-Type %s on POST → 415 unsupported_media_type',
    async (contentType) => {
      expectApiError(await post({ 'content-type': contentType }, productBody()), 415, 'unsupported_media_type');
    },
  );

  it.each(['application/json', 'Application/JSON; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8', 'application/json ; charset="utf-8"'])(
    'Content-Type %s is accepted (media types are case-insensitive)',
    async (contentType) => {
      const response = await post({ 'content-type': contentType }, productBody());
      expect(response.status).toBe(201);
      expectApiHeaders(response);
      expect(response.body).toMatchObject({ object: 'product', name: 'Body test', amount: 250 });
    },
  );

  it('a body over 64 KiB → 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'Big', amount: 100, description: 'x'.repeat(MAX_JSON_BODY_BYTES) });
    expectApiError(await post({ 'content-type': 'application/json' }, big), 413, 'payload_too_large');
  });

  it('a streamed body over 64 KiB without Content-Length → 413 payload_too_large', async () => {
    const chunk = new TextEncoder().encode(`{"name":"Big","amount":100,"description":"${'y'.repeat(16 * 1024)}`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        controller.enqueue(sent === 0 ? chunk : new TextEncoder().encode('z'.repeat(16 * 1024)));
        sent += 1;
      },
    });
    expectApiError(await post({ 'content-type': 'application/json' }, stream), 413, 'payload_too_large');
  });

  it('a body just under 64 KiB is read and validated normally', async () => {
    const base = JSON.stringify({ name: 'Big', amount: 100, description: '' });
    const padded = JSON.stringify({ name: 'Big', amount: 100, description: 'd'.repeat(MAX_JSON_BODY_BYTES - base.length) });
    expect(Buffer.byteLength(padded)).toBe(MAX_JSON_BODY_BYTES);
    // Too long a description (up to 2000 chars), but not too large a body.
    expectApiError(await post({ 'content-type': 'application/json' }, padded), 400, 'parameter_invalid');
  });

  it.each([
    ['an array', '[{"name":"x","amount":100}]'],
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
  ])('a JSON body that is %s → 400 parameter_invalid', async (_name, text) => {
    expectApiError(await post({ 'content-type': 'application/json' }, text), 400, 'parameter_invalid');
  });
});

describe('credentials are judged before the body', () => {
  const noAuth = (headers: Record<string, string>, body?: string | Uint8Array) => rawRequest(api.baseUrl, 'POST', '/api/v1/products', { headers, body });
  const huge = JSON.stringify({ name: 'x', amount: 1, description: 'x'.repeat(MAX_JSON_BODY_BYTES) });

  it('no key with no body, a wrong Content-Type, malformed JSON or too large a body → 401 missing_api_key', async () => {
    expectApiError(await noAuth({}), 401, 'missing_api_key');
    expectApiError(await noAuth({ 'content-type': 'text/plain' }, 'x'), 401, 'missing_api_key');
    expectApiError(await noAuth({ 'content-type': 'application/json' }, '{oops'), 401, 'missing_api_key');
    expectApiError(await noAuth({ 'content-type': 'application/json' }, '[1]'), 401, 'missing_api_key');
    expectApiError(await noAuth({ 'content-type': 'application/json' }, huge), 401, 'missing_api_key');
  });

  it('an invalid, publishable or suspended live key with a bad body gets its auth error', async () => {
    const suspended = await createStore(api.services, { suspended: true });
    const cases: [Record<string, string>, number, string][] = [
      [{ authorization: 'Bearer sk_test_unknownunknownunknownunknown' }, 401, 'invalid_api_key'],
      [{ authorization: `Bearer ${suspended.keys.pk_test}` }, 401, 'wrong_key_type'],
      [{ 'x-api-key': suspended.keys.sk_test }, 401, 'missing_api_key'],
      [{ authorization: `Bearer ${suspended.keys.sk_live}` }, 403, 'account_suspended'],
    ];
    for (const [headers, status, code] of cases) {
      expectApiError(await noAuth(headers), status, code);
      expectApiError(await noAuth({ ...headers, 'content-type': 'application/json' }, '{oops'), status, code);
      expectApiError(await noAuth({ ...headers, 'content-type': 'application/json' }, huge), status, code);
    }
    // With a valid key the body error itself answers.
    expectApiError(await noAuth({ authorization: `Bearer ${suspended.keys.sk_test}` }), 415, 'unsupported_media_type');
  });
});

describe('routes', () => {
  it.each([
    ['GET', '/api/v1/nope'],
    ['GET', '/api/v1'],
    ['GET', '/api/v1/'],
    ['GET', '/api/v1/products/x/y'],
    ['DELETE', '/api/v1/nope/1'],
    ['PUT', '/api/v1/products/prod_test_x'],
    ['PUT', '/api/v1/products'],
    ['PATCH', '/api/v1/products'],
    ['POST', '/api/v1/nope'],
  ])('%s %s (unknown route or method) → 404 resource_missing', async (method, path) => {
    // Without a body, with a JSON body, and with a body of the wrong type: the route decides first.
    const variants: { headers: Record<string, string>; body?: string }[] = [{ headers: auth() }];
    if (method !== 'GET' && method !== 'DELETE') {
      variants.push({ headers: { ...auth(), 'content-type': 'application/json' }, body: '{"a":1}' });
      variants.push({ headers: { ...auth(), 'content-type': 'text/plain' }, body: 'hello' });
      variants.push({ headers: { ...auth(), 'content-type': 'application/json' }, body: '{oops' });
    }
    for (const variant of variants) {
      expectApiError(await rawRequest(api.baseUrl, method, path, variant), 404, 'resource_missing');
    }
  });

  it('an unknown route answers 404 without a key too', async () => {
    expectApiError(await rawRequest(api.baseUrl, 'GET', '/api/v1/nope'), 404, 'resource_missing');
  });

  it('HEAD and OPTIONS on the API answer the JSON 404 envelope, not an empty success', async () => {
    for (const method of ['OPTIONS']) {
      expectApiError(await rawRequest(api.baseUrl, method, '/api/v1/nope', { headers: auth() }), 404, 'resource_missing');
    }
    const head = await rawRequest(api.baseUrl, 'HEAD', '/api/v1/nope', { headers: auth() });
    expect(head.status).toBe(404);
    expectApiHeaders(head);
  });

  it('a query parameter sent twice → 400 parameter_invalid naming it; sent once, its string is read as a number', async () => {
    const twice = await rawRequest(api.baseUrl, 'GET', '/api/v1/products?limit=1&limit=2', { headers: auth() });
    expectApiError(twice, 400, 'parameter_invalid');
    expect(twice.body.error.param).toBe('limit');
    const once = await rawRequest(api.baseUrl, 'GET', '/api/v1/products?limit=1', { headers: auth() });
    expect(once.status).toBe(200);
    expect(once.body).toMatchObject({ object: 'list', url: '/api/v1/products', livemode: false });
    expect(once.body.data).toHaveLength(1);
  });

  it('HEAD on a read answers like GET, without a body', async () => {
    const head = await rawRequest(api.baseUrl, 'HEAD', `/api/v1/products/${productId}`, { headers: auth() });
    expect(head.status).toBe(200);
    expectApiHeaders(head);
    expect(head.text).toBe('');
    const unauthenticated = await rawRequest(api.baseUrl, 'HEAD', `/api/v1/products/${productId}`);
    expect(unauthenticated.status).toBe(401);
  });
});

describe('every answer', () => {
  it('success and error answers carry application/json, a request-id and no-store', async () => {
    const ok = await rawRequest(api.baseUrl, 'GET', `/api/v1/products/${productId}`, { headers: auth() });
    expect(ok.status).toBe(200);
    expectApiHeaders(ok);
    const created = await post({ 'content-type': 'application/json' }, productBody());
    expect(created.status).toBe(201);
    expectApiHeaders(created);
    expectApiError(await rawRequest(api.baseUrl, 'GET', `/api/v1/products/${productId}`), 401, 'missing_api_key');
    expectApiError(await post({ 'content-type': 'application/json' }, '{"name":"x","amount":1.5}'), 400, 'parameter_invalid');
  });

  it('request ids are unique per request', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      const response = await rawRequest(api.baseUrl, 'GET', `/api/v1/products/${productId}`, { headers: auth() });
      ids.add(response.headers.get('request-id')!);
    }
    expect(ids.size).toBe(5);
  });

  it('validation errors use the envelope, never the library’s issues/data/stack', async () => {
    for (const body of [{}, { name: '', amount: 100 }, { name: 'x', amount: '100' }, { name: 'x', amount: 100, unknown: true }, { name: 'x', amount: 100, currency: 'eur' }]) {
      const response = await post({ 'content-type': 'application/json' }, JSON.stringify(body));
      expectApiError(response, 400, 'parameter_invalid');
    }
  });
});

describe('unexpected exceptions → 500 internal_error', () => {
  const SECRET_DETAIL = 'SELECT key_hash FROM api_keys WHERE secret = 42';

  afterEach(() => {
    vi.restoreAllMocks();
  });

  function expectGeneric500(response: Awaited<ReturnType<typeof rawRequest>>) {
    expectApiError(response, 500, 'internal_error');
    for (const leak of ['SELECT', 'api_keys', 'secret = 42', ' at ', '.ts:', 'Error:', 'node_modules', 'relation', 'connection']) {
      expect(response.text).not.toContain(leak);
    }
    // The request id in the message lets support find the logged cause.
    expect(response.body.error.message).toContain(response.headers.get('request-id'));
  }

  it('a database that throws gives a generic 500 with no SQL or stack', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const failing = new Proxy({} as Services['db'], {
      get() {
        throw new Error(`${SECRET_DETAIL}\n    at Object.query (/srv/node_modules/postgres/src/connection.ts:12:3)`);
      },
    });
    const config = loadConfig({});
    const services: Services = {
      db: failing,
      clock: createTestClock(),
      config,
      rateLimits: createRateLimits(config.rateLimits, undefined),
      gateways: createGateways({ db: failing, clock: createTestClock(), config }),
    };
    const server = await serveFetchHandler(createApiHandler(services));
    try {
      const headers = { authorization: `Bearer ${key}` };
      expectGeneric500(await rawRequest(server.baseUrl, 'GET', '/api/v1/products/prod_test_x', { headers }));
      expectGeneric500(await rawRequest(server.baseUrl, 'POST', '/api/v1/products', { headers: { ...headers, 'content-type': 'application/json' }, body: productBody() }));
    } finally {
      await server.close();
    }
  });

  it('a closed database gives a generic 500', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const database = await createTestDatabase();
    const config = loadConfig({});
    const services: Services = {
      db: database.db,
      clock: createTestClock(),
      config,
      rateLimits: createRateLimits(config.rateLimits, undefined),
      gateways: createGateways({ db: database.db, clock: createTestClock(), config }),
    };
    const store = await createStore(services);
    const server = await serveFetchHandler(createApiHandler(services));
    try {
      const headers = { authorization: `Bearer ${store.keys.sk_test}` };
      const before = await rawRequest(server.baseUrl, 'GET', '/api/v1/products/prod_test_x', { headers });
      expectApiError(before, 404, 'resource_missing');
      await database.close();
      expectGeneric500(await rawRequest(server.baseUrl, 'GET', '/api/v1/products/prod_test_x', { headers }));
    } finally {
      await server.close();
    }
  });

  it('a failing audit write on a query-string key is still a generic 500, never the key', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const failing = new Proxy({} as Services['db'], {
      get() {
        throw new Error(SECRET_DETAIL);
      },
    });
    const config = loadConfig({});
    const services: Services = {
      db: failing,
      clock: createTestClock(),
      config,
      rateLimits: createRateLimits(config.rateLimits, undefined),
      gateways: createGateways({ db: failing, clock: createTestClock(), config }),
    };
    const server = await serveFetchHandler(createApiHandler(services));
    try {
      const response = await rawRequest(server.baseUrl, 'GET', `/api/v1/products/prod_test_x?api_key=${key}`);
      expect([401, 500]).toContain(response.status);
      expect(response.text).not.toContain(key);
      expect(response.text).not.toContain('SELECT');
    } finally {
      await server.close();
    }
  });
});
