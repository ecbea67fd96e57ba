import { describe, expect, it } from 'vitest';
import { readHostedSubmission } from '@/server/kit/hosted-page/request';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { createProduct, expectError } from '../support/api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { insertCustomer } from '../orders/fixtures';
import { rawRequest } from './helpers';

/**
 * Input the database cannot hold is refused at the door: a string with U+0000 or an unpaired
 * surrogate, in a body, a query or a path, is 400 `parameter_invalid` naming its field and
 * writes nothing; a path that does not decode is 404 `resource_missing`; metadata keys named
 * `__proto__` or `constructor` are kept like any other.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });

const send = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: store.key, body });
/** The body exactly as written: JSON.stringify would turn an object's `__proto__` member into nothing. */
const sendText = (method: string, path: string, text: string) =>
  rawRequest(api.baseUrl, method, `/api/v1${path}`, { headers: { authorization: `Bearer ${store.key}`, 'content-type': 'application/json' }, body: text });
const productCount = async () => (await send('GET', '/products?limit=100')).body.data.length as number;

describe('U+0000 and unpaired surrogates: 400 parameter_invalid naming the field, nothing written', () => {
  it.each([
    ['NUL in a name', { name: 'Ebook\u0000', amount: 1999 }, 'name'],
    ['an unpaired high surrogate in a description', { name: 'Ebook', amount: 1999, description: 'half \ud83d of an emoji' }, 'description'],
    ['an unpaired low surrogate in a SKU', { name: 'Ebook', amount: 1999, sku: '\udc00abc' }, 'sku'],
    ['NUL in an array element', { name: 'Ebook', amount: 1999, images: ['https://img.example.com/a.png', 'https://img.example.com/\u0000'] }, 'images[1]'],
    ['NUL in a field name', { name: 'Ebook', amount: 1999, 'na\u0000me': 'x' }, 'na\\u0000me'],
  ])('%s', async (_, body, param) => {
    const before = await productCount();
    const response = await send('POST', '/products', body);
    expectError(response, 400, 'parameter_invalid', param);
    expect(response.body.error.message).toBe(`Invalid ${param}: text must not contain NUL characters (U+0000) or unpaired surrogates.`);
    expect(await productCount()).toBe(before);
  });

  it('a well-formed emoji (a surrogate pair) is ordinary text', async () => {
    const response = await send('POST', '/products', { name: 'Moth 🦋 atlas', amount: 1999 });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe('Moth 🦋 atlas');
  });

  it('metadata: a value and a key with NUL are named under metadata', async () => {
    const product = await createProduct(api, store.key);
    const value = await send('POST', '/checkout/sessions', { price_id: product.price_id, metadata: { plan: 'pro\u0000' } });
    expectError(value, 400, 'parameter_invalid', 'metadata.plan');
    const key = await send('POST', '/checkout/sessions', { price_id: product.price_id, metadata: { 'pl\u0000an': 'pro' } });
    expectError(key, 400, 'parameter_invalid', 'metadata.pl\\u0000an');
  });

  it.each([
    ['a list filter', '/products?sku=ab%00c', 'sku'],
    ['a cursor', '/orders?starting_after=ord_%00', 'starting_after'],
    ['an e-mail filter', '/customers?email=a%00%40example.com', 'email'],
    ['an unknown parameter', '/products?x%00y=1', 'x\\u0000y'],
    ['a key-named parameter (refused keys are audited: never with a NUL)', '/products?api_key=sk_test_%00%00%00%00', 'api_key'],
  ])('NUL in the query: %s', async (_, path, param) => {
    expectError(await send('GET', path), 400, 'parameter_invalid', param);
  });

  it('NUL in a path id: 400 naming `id`', async () => {
    expectError(await send('GET', '/products/prod_%00'), 400, 'parameter_invalid', 'id');
    expectError(await send('POST', '/licenses/validate', { key: 'LK-\u0000' }), 400, 'parameter_invalid', 'key');
  });

  it('over /api/trpc: the same code and field', async () => {
    const input = encodeURIComponent(JSON.stringify({ sku: 'a\u0000' }));
    const response = await rawRequest(api.baseUrl, 'GET', `/api/trpc/products.list?input=${input}`, { headers: { authorization: `Bearer ${store.key}` } });
    expect(response.status).toBe(400);
    expect(response.body.error.data).toMatchObject({ code: 'parameter_invalid', param: 'sku', httpStatus: 400 });
  });
});

/** Every GET and DELETE of the API with its query parameters; a path's ids filled with a dummy (the query is judged first). */
const queryOperations = Object.entries(buildOpenApiDocument('http://localhost').paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, { parameters?: { in: string; name: string }[] }>)
    .filter(([method]) => method === 'get' || method === 'delete')
    .map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, 'x_test_missing'),
      query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
    })),
);

describe('a query whose percent-encoding is not UTF-8: 400 parameter_invalid naming the parameter', () => {
  const get = (query: string) => rawRequest(api.baseUrl, 'GET', `/api/v1/products${query}`, { headers: { authorization: `Bearer ${store.key}` } });

  it.each([
    ['an encoded unpaired surrogate', '?sku=%ED%A0%80', 'sku'],
    ['a lead byte before a non-continuation byte', '?sku=%C3%28', 'sku'],
    ['a byte that is never UTF-8', '?sku=%FF', 'sku'],
    ['a lead byte at the end', '?sku=%C3', 'sku'],
    ['an overlong encoding', '?sku=%C0%AF', 'sku'],
    ['after a valid parameter', '?limit=2&sku=ok%E9', 'sku'],
    ['in a cursor', '?starting_after=prod_%ED%B0%80', 'starting_after'],
    ['in a name', '?sk%C3u=1', 'sk%C3u'],
    ['in an unknown parameter, before a valid one', '?x%FF=1&sku=a', 'x%FF'],
    ['a value with a + for a space', '?sku+name=a+%FF', 'sku name'],
  ])('%s', async (_, query, param) => {
    const response = await get(query);
    expectError(response, 400, 'parameter_invalid', param);
    expect(response.body.error.message).toBe(`Invalid ${param}: its percent-encoding is not UTF-8.`);
  });

  it('valid UTF-8 is ordinary text (é and 🦋 encoded); a stray % and %ZZ read as themselves', async () => {
    const customer = await insertCustomer(api, store, { email: 'zoë.🦋@example.com' });
    const found = await send('GET', `/customers?email=${encodeURIComponent('zoë.🦋@example.com')}`);
    expect(found.status).toBe(200);
    expect(found.body.data.map((listed: { id: string }) => listed.id)).toEqual([customer.id]);
    for (const query of ['?sku=r%C3%A9', '?sku=100%', '?sku=%ZZ', '?sku=%E']) {
      const response = await get(query);
      expect([query, response.status, response.body.data]).toEqual([query, 200, []]);
    }
  });

  it('every GET and DELETE of the API refuses it in each of its parameters, naming that parameter', async () => {
    expect(queryOperations.filter((operation) => operation.query.length > 0).length).toBeGreaterThanOrEqual(10);
    for (const operation of queryOperations) {
      for (const param of [...operation.query, 'x']) {
        const response = await rawRequest(api.baseUrl, operation.method, `/api/v1${operation.path}?${param}=%ED%A0%80`, { headers: { authorization: `Bearer ${store.key}` } });
        expect([operation.method, operation.path, response.status, response.body?.error?.code, response.body?.error?.param]).toEqual([
          operation.method,
          operation.path,
          400,
          'parameter_invalid',
          param,
        ]);
      }
    }
  });

  it('over /api/trpc: 400 parameter_invalid naming input, never a 5xx', async () => {
    for (const input of ['%ED%A0%80', `${encodeURIComponent('{"sku":"')}%ED%A0%80${encodeURIComponent('"}')}`, '%C3%28', '%FF']) {
      const response = await rawRequest(api.baseUrl, 'GET', `/api/trpc/products.list?input=${input}`, { headers: { authorization: `Bearer ${store.key}` } });
      expect(response.status).toBe(400);
      expect(response.body.error.data).toMatchObject({ code: 'parameter_invalid', param: 'input', httpStatus: 400 });
    }
    const batch = await rawRequest(api.baseUrl, 'GET', `/api/trpc/products.list,products.list?batch=1&input=%FF`, { headers: { authorization: `Bearer ${store.key}` } });
    expect(batch.status).toBe(400);
  });
});

describe('a path that does not decode: 404 resource_missing', () => {
  it.each([
    ['GET', '/products/%ZZ'],
    ['POST', '/checkout/sessions/%ZZ/confirm'],
    ['GET', '/products/%E0%A4%A'],
    ['DELETE', '/webhook_endpoints/%'],
  ])('%s %s', async (method, path) => {
    const response = await rawRequest(api.baseUrl, method, `/api/v1${path}`, {
      headers: { authorization: `Bearer ${store.key}`, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'Unrecognized request URL: its path is not valid percent-encoding.' } });
  });
});

describe('metadata keys __proto__ and constructor are stored and echoed like any other', () => {
  const METADATA = '{"__proto__":"a","constructor":"b","plan":"c","toString":"d"}';
  const ENTRIES = [
    ['__proto__', 'a'],
    ['constructor', 'b'],
    ['plan', 'c'],
    ['toString', 'd'],
  ];

  it('checkout session: the create and a retrieve answer every key, in order', async () => {
    const product = await createProduct(api, store.key);
    const created = await sendText('POST', '/checkout/sessions', `{"price_id":${JSON.stringify(product.price_id)},"metadata":${METADATA}}`);
    expect(created.status).toBe(201);
    expect(created.text).toContain(`"metadata":${METADATA}`);
    expect(Object.entries(created.body.metadata)).toEqual(ENTRIES);
    const read = await rawRequest(api.baseUrl, 'GET', `/api/v1/checkout/sessions/${created.body.id}`, { headers: { authorization: `Bearer ${store.key}` } });
    expect(read.text).toContain(`"metadata":${METADATA}`);
  });

  it('portal session', async () => {
    const customer = await insertCustomer(api, store, { email: 'proto@example.com' });
    const created = await sendText('POST', '/portal/sessions', `{"customer_id":${JSON.stringify(customer.id)},"metadata":${METADATA}}`);
    expect(created.status).toBe(201);
    expect(created.text).toContain(`"metadata":${METADATA}`);
  });

  it('subscription checkout', async () => {
    const created = await sendText('POST', '/subscriptions', `{"amount":990,"interval":"month","plan_name":"Pro plan","total_payments":12,"customer_email":"ada@example.com","metadata":${METADATA}}`);
    expect(created.status).toBe(201);
    expect(created.text).toContain(`"metadata":${METADATA}`);
  });

  it('a top-level `__proto__` member is an unknown parameter, not a way around the schema', async () => {
    const response = await sendText('POST', '/products', '{"name":"Ebook","amount":1999,"__proto__":{"amount":5}}');
    expectError(response, 400, 'parameter_invalid', '__proto__');
  });
});

describe('hosted forms', () => {
  it("a field that is not safe text reads as missing, so the form's own check refuses it", async () => {
    const body = new URLSearchParams({ email: 'ada\u0000@example.com', card_number: '4242 4242 4242 4242', cvc: '123' });
    const submission = await readHostedSubmission(new Request('http://localhost/checkout/cs_test_x/pay?expires=1&signature=s', { method: 'POST', body }), 'cs_test_x');
    expect([...submission.form.keys()]).toEqual(['card_number', 'cvc']);
  });
});
