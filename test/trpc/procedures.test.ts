import { initTRPC } from '@trpc/server';
import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { rawRequest } from '../http/helpers';
import { createProduct, expectError } from '../support/api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createSubscription } from '../support/subscriptions';
import { asRpcError, rejection, rpcError, trpcClient, type Exchange } from './support';

/** The app router over tRPC at /api/trpc: the same procedures, auth, errors and audit as /api/v1. */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });

const UNKNOWN_PRODUCT = 'prod_test_unknownunknownunknown1';

describe('/api/trpc serves the app router', () => {
  it('two queries in one batched request answer what REST answers', async () => {
    const product = await createProduct(api, store.key);
    const exchanges: Exchange[] = [];
    const client = trpcClient(api, { key: store.key, exchanges });
    const [list, retrieved] = await Promise.all([client.products.list.query({ limit: 1 }), client.products.retrieve.query({ id: product.id })]);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.url).toContain('/api/trpc/products.list,products.retrieve?batch=1');
    expect(exchanges[0]!.status).toBe(200);
    expect(exchanges[0]!.headers.get('request-id')).toMatch(/^req_/);
    expect(list).toEqual((await api.request('GET', '/api/v1/products?limit=1', { key: store.key })).body);
    expect(retrieved).toEqual(product);
  });

  it('a create answers 201 and its Idempotency-Key replays it with 200; another body under the key is 409', async () => {
    const exchanges: Exchange[] = [];
    const client = trpcClient(api, { key: store.key, headers: { 'idempotency-key': 'trpc-endpoint-1' }, exchanges });
    const created = await client.webhookEndpoints.create.mutate({ url: 'http://127.0.0.1:9/hooks' });
    expect(created).toMatchObject({ object: 'webhook_endpoint', url: 'http://127.0.0.1:9/hooks', secret: expect.stringMatching(/^whsec_/) });
    const replayed = await client.webhookEndpoints.create.mutate({ url: 'http://127.0.0.1:9/hooks' });
    expect(replayed).toEqual(created);
    expect(exchanges.map((exchange) => exchange.status)).toEqual([201, 200]);
    const listed = await trpcClient(api, { key: store.key }).webhookEndpoints.list.query({});
    expect(listed.data.filter((endpoint) => endpoint.id === created.id)).toHaveLength(1);

    const reused = await rejection(client.webhookEndpoints.create.mutate({ url: 'http://127.0.0.1:9/other' }));
    expect(reused.data).toEqual({ type: 'invalid_request_error', code: 'idempotency_key_reused', httpStatus: 409 });
    expect(exchanges.at(-1)!.status).toBe(409);
  });

  it('missing, invalid and publishable keys → 401 with the API’s codes, audited as on REST', async () => {
    for (const [key, code] of [
      [undefined, 'missing_api_key'],
      ['sk_test_notakeynotakeynotakeynotakey', 'invalid_api_key'],
      [store.keys.pk_test, 'wrong_key_type'],
    ] as const) {
      const exchanges: Exchange[] = [];
      const error = await rejection(trpcClient(api, { key, exchanges }).products.list.query({}));
      const rest = await api.request('GET', '/api/v1/products', key === undefined ? {} : { key });
      expectError(rest, 401, code);
      expect(rpcError(error)).toEqual(asRpcError(rest));
      expect(exchanges[0]!.status).toBe(401);
    }
    const ip = '203.0.113.77';
    const forged = 'sk_test_forgedforgedforgedforged1';
    const headers = { 'x-forwarded-for': ip };
    await rejection(trpcClient(api, { key: forged, headers }).products.create.mutate({ name: 'Ebook', amount: 500 }));
    await api.request('POST', '/api/v1/products', { key: forged, headers, body: { name: 'Ebook', amount: 500 } });
    const rows = await api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip)).orderBy(asc(auditEvents.id));
    expect(rows.map(({ action, code, keyHint, method, path }) => ({ action, code, keyHint, method, path }))).toEqual([
      { action: 'auth.failed', code: 'invalid_api_key', keyHint: 'sk_test_…ged1', method: 'POST', path: '/api/trpc/products.create' },
      { action: 'auth.failed', code: 'invalid_api_key', keyHint: 'sk_test_…ged1', method: 'POST', path: '/api/v1/products' },
    ]);
  });

  it('an unknown id → 404 resource_missing naming `id`, word for word as REST', async () => {
    const exchanges: Exchange[] = [];
    const error = await rejection(trpcClient(api, { key: store.key, exchanges }).products.retrieve.query({ id: UNKNOWN_PRODUCT }));
    const rest = await api.request('GET', `/api/v1/products/${UNKNOWN_PRODUCT}`, { key: store.key });
    expectError(rest, 404, 'resource_missing', 'id');
    expect(rpcError(error)).toEqual(asRpcError(rest));
    expect(exchanges[0]!.status).toBe(404);
  });

  it('an invalid input → 400 parameter_invalid naming the field, as REST words it', async () => {
    const client = trpcClient(api, { key: store.key });
    const limit = await rejection(client.products.list.query({ limit: 0 }));
    const restLimit = await api.request('GET', '/api/v1/products?limit=0', { key: store.key });
    expectError(restLimit, 400, 'parameter_invalid', 'limit');
    expect(rpcError(limit)).toEqual(asRpcError(restLimit));

    const unknownField = await rejection(client.products.create.mutate({ name: 'Ebook', amount: 500, colour: 'red' }));
    const restUnknown = await api.request('POST', '/api/v1/products', { key: store.key, body: { name: 'Ebook', amount: 500, colour: 'red' } });
    expectError(restUnknown, 400, 'parameter_invalid', 'colour');
    expect(rpcError(unknownField)).toEqual(asRpcError(restUnknown));
  });

  it('a PATCH-like mutation takes its id from the input, not as a body field it refuses', async () => {
    const product = await createProduct(api, store.key);
    const updated = await trpcClient(api, { key: store.key }).products.update.mutate({ id: product.id, name: 'Renamed' });
    expect(updated).toEqual({ ...product, name: 'Renamed', updated: updated.updated });
  });

  it('a key-shaped value in a query’s input (it travels in the URL) → 401 invalid_api_key, audited', async () => {
    const sku = store.key;
    const ip = '203.0.113.79';
    const error = await rejection(trpcClient(api, { key: store.key, headers: { 'x-forwarded-for': ip } }).products.list.query({ sku }));
    expect(error.data).toEqual({ type: 'authentication_error', code: 'invalid_api_key', httpStatus: 401 });
    const rows = await api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip));
    expect(rows).toEqual([expect.objectContaining({ action: 'auth.failed', code: 'invalid_api_key', method: 'GET', path: '/api/trpc/products.list', keyHint: `sk_test_…${sku.slice(-4)}` })]);
    // In a mutation's input (a POST body) the same value is an ordinary sku.
    const created = await trpcClient(api, { key: store.key }).products.create.mutate({ name: 'Ebook', amount: 500, sku });
    expect(created).toMatchObject({ object: 'product', sku });
  });

  it('a subscription update over tRPC writes the audit row REST writes, with its own path', async () => {
    const subscription = await createSubscription(api.services, store.id);
    const ip = '203.0.113.78';
    await trpcClient(api, { key: store.key, headers: { 'x-forwarded-for': ip } }).subscriptions.update.mutate({ id: subscription.id, metadata: { crm: 'X9' } });
    await api.request('POST', `/api/v1/subscriptions/${subscription.id}`, { key: store.key, headers: { 'x-forwarded-for': ip }, body: { metadata: { crm: 'X9' } } });
    const rows = await api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip)).orderBy(asc(auditEvents.id));
    const fields = ({ action, code, storeId, livemode, keyHint, method, path, details }: (typeof rows)[number]) => ({ action, code, storeId, livemode, keyHint, method, path, details });
    expect(rows.map(fields)).toEqual([
      {
        action: 'subscription.update',
        code: null,
        storeId: store.id,
        livemode: false,
        keyHint: `sk_test_…${store.key.slice(-4)}`,
        method: 'POST',
        path: '/api/trpc/subscriptions.update',
        details: { subscription: subscription.id, fields: ['metadata'] },
      },
      {
        action: 'subscription.update',
        code: null,
        storeId: store.id,
        livemode: false,
        keyHint: `sk_test_…${store.key.slice(-4)}`,
        method: 'POST',
        path: `/api/v1/subscriptions/${subscription.id}`,
        details: { subscription: subscription.id, fields: ['metadata'] },
      },
    ]);
  });
});

describe('/api/trpc refuses what the protocol or the body gets wrong with the API’s codes', () => {
  const post = (path: string, body: string, contentType = 'application/json') =>
    rawRequest(api.baseUrl, 'POST', `/api/trpc/${path}`, { headers: { authorization: `Bearer ${store.key}`, 'content-type': contentType }, body });

  it('an unknown procedure, or a mutation asked with GET → 404 resource_missing', async () => {
    const unknown = await rawRequest(api.baseUrl, 'GET', '/api/trpc/products.frobnicate', { headers: { authorization: `Bearer ${store.key}` } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.data).toEqual({ type: 'invalid_request_error', code: 'resource_missing', httpStatus: 404 });
    const wrongMethod = await rawRequest(api.baseUrl, 'GET', '/api/trpc/products.create', { headers: { authorization: `Bearer ${store.key}` } });
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.error.data).toEqual({ type: 'invalid_request_error', code: 'resource_missing', httpStatus: 404 });
  });

  it('a body that is not JSON, is malformed or too large → 415, 400 invalid_json, 413, as on REST; no stack, no internals', async () => {
    const cases = [
      ['{"name":"Ebook","amount":500}', 'text/plain', 415, 'unsupported_media_type'],
      ['{"name":', 'application/json', 400, 'invalid_json'],
      [JSON.stringify({ name: 'x'.repeat(70 * 1024), amount: 500 }), 'application/json', 413, 'payload_too_large'],
    ] as const;
    for (const [body, contentType, status, code] of cases) {
      const response = await post('products.create', body, contentType);
      const rest = await rawRequest(api.baseUrl, 'POST', '/api/v1/products', { headers: { authorization: `Bearer ${store.key}`, 'content-type': contentType }, body });
      expectError(rest, status, code);
      expect(response.status).toBe(status);
      expect(Object.keys(response.body.error)).toEqual(['code', 'message', 'data']);
      expect({ message: response.body.error.message, data: response.body.error.data }).toEqual(asRpcError(rest));
    }
  });

  // tRPC's object-spread helper is patched to Object.assign (patches/), which sets the prototype
  // from an own `__proto__` member: the first test fails without the patch, the second pins that
  // no input gets one that way.
  it('the spread patch is applied: a middleware context with an own `__proto__` member gets it as its prototype', async () => {
    const t = initTRPC.create();
    const withProto = t.middleware(({ next }) => next({ ctx: JSON.parse('{"__proto__":{"inherited":true}}') as object }));
    const probe = t.procedure.use(withProto).query(({ ctx }) => ({ own: Object.hasOwn(ctx, '__proto__'), inherited: (ctx as { inherited?: boolean }).inherited === true }));
    expect(await t.createCallerFactory(t.router({ probe }))({}).probe()).toEqual({ own: false, inherited: true });
  });

  it('a top-level `__proto__` member is an unknown parameter, as on REST; a metadata key `__proto__` is stored and echoed', async () => {
    const refused = await post('products.create', '{"name":"Ebook","amount":1999,"__proto__":{"amount":5}}');
    expect(refused.status).toBe(400);
    expect(refused.body.error.data).toMatchObject({ code: 'parameter_invalid', param: '__proto__', httpStatus: 400 });
    const product = await createProduct(api, store.key);
    const metadata = '{"__proto__":"a","constructor":"b","plan":"c"}';
    const created = await post('checkout.create', `{"price_id":"${product.price_id}","success_url":"https://example.com/thanks","metadata":${metadata}}`);
    expect(created.status).toBe(201);
    expect(created.text).toContain(`"metadata":${metadata}`);
  });

  it('a refused body is judged after the key: no key → 401', async () => {
    const response = await rawRequest(api.baseUrl, 'POST', '/api/trpc/products.create', { headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(response.status).toBe(401);
    expect(response.body.error.data).toEqual({ type: 'authentication_error', code: 'missing_api_key', httpStatus: 401 });
  });
});
