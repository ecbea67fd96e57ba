import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG, isErrorCode } from '@/server/errors';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { createProduct } from '../support/api';
import { verifyLedger } from '@/server/balance/verify';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { insertOrder } from '../orders/fixtures';

/**
 * Every operation of the OpenAPI document, sent hostile values by a property-based search: NUL
 * and other control characters, unpaired surrogates, very long strings, deep JSON, numbers at and
 * past 2^53, wrong types, duplicate keys, `__proto__` and `constructor` keys, and malformed
 * percent-encoding in path and query. Whatever the input: never a 5xx; a refusal is the error
 * envelope with a 4xx of its code and writes nothing; text the database cannot hold is 400
 * `parameter_invalid` naming its field; metadata is echoed as sent.
 *
 * `npm test` runs a fixed seed and FUZZ_RUNS (default 150) requests; `npm run fuzz` runs 3000
 * from a new seed (`FUZZ_SEED=<n>` replays one: fast-check prints it with a failure).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED === 'random' ? undefined : Number(process.env.FUZZ_SEED ?? 20261126);

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
};

interface Operation {
  id: string;
  method: string;
  /** `/products/{id}`, below /api/v1. */
  path: string;
  query: string[];
  body: Schema | undefined;
  publishable: boolean;
}

const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true, amountMode: true });

const document = buildOpenApiDocument('http://localhost');
const componentSchemas = (document.components?.schemas ?? {}) as Record<string, Schema>;

function resolve(schema: Schema): Schema {
  return schema.$ref ? resolve(componentSchemas[schema.$ref.split('/').pop()!]!) : schema;
}

/** A body stated as one object per mode (`oneOf`) is fuzzed over every mode's fields, from a valid body of the first mode. */
function bodySchemaOf(schema: Schema): Schema {
  const variants = schema.oneOf?.map(resolve);
  if (!variants) return schema;
  return { type: 'object', properties: Object.assign({}, ...variants.map((variant) => variant.properties)), required: variants[0]!.required };
}

const operations: Operation[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, any>).map(([method, operation]) => {
    const parameters = (operation.parameters ?? []) as { in: string; name: string }[];
    const body = operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
    return {
      // fast-check names the operation by its id in a counterexample.
      [fc.toStringMethod]: () => operation.operationId as string,
      id: operation.operationId as string,
      method: method.toUpperCase(),
      path,
      query: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
      body: body && bodySchemaOf(resolve(body)),
      publishable: (operation.security ?? []).some((requirement: object) => 'publishableKey' in requirement),
    };
  }),
);

/** Real values of the test store, by field name and by the collection a path names. */
const known: Record<string, unknown> = {};
const pathIds: Record<string, string> = {};

beforeAll(async () => {
  const product = await createProduct(api, store.key);
  const request = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: store.key, body });
  const session = await request('POST', '/checkout/sessions', { price_id: product.price_id });
  const endpoint = await request('POST', '/webhook_endpoints', { url: 'https://hooks.example.com/fuzz', events: ['product.created'] });
  const order = await insertOrder(api, store, { customerEmail: 'fuzz-buyer@example.com', lines: [{ licenseKeys: 1 }] });
  const portal = await request('POST', '/portal/sessions', { customer_email: 'fuzz-buyer@example.com' });
  const events = await request('GET', '/events');
  Object.assign(known, {
    price_id: product.price_id,
    product_id: product.id,
    order_id: order.id,
    customer_id: order.customer?.id,
    customer_email: 'fuzz-buyer@example.com',
    email: 'fuzz-buyer@example.com',
    client_secret: session.body.client_secret,
    endpoint_id: endpoint.body.id,
    event_id: events.body.data[0].id,
    key: order.licenseKeys[0],
    url: 'https://hooks.example.com/fuzz',
    success_url: 'https://shop.example.com/thanks',
    cancel_url: 'https://shop.example.com/cart',
    events: ['product.created'],
    amount: 1000,
    description: 'Fuzzed',
  });
  Object.assign(pathIds, {
    products: product.id,
    checkout: session.body.id,
    orders: order.id,
    customers: order.customer?.id,
    webhook_endpoints: endpoint.body.id,
    portal: portal.body.id,
    events: events.body.data[0].id,
  });
});

/** A value the schema accepts (the store's own for a field it names), so a hostile field is the one thing wrong. */
function sampleOf(schema: Schema, name: string): unknown {
  if (name in known) return known[name];
  const resolved = resolve(schema);
  const choice = resolved.anyOf ?? resolved.oneOf;
  if (choice) return sampleOf(choice.find((member) => resolve(member).type !== 'null') ?? choice[0]!, name);
  if (resolved.enum) return resolved.enum[0];
  const type = Array.isArray(resolved.type) ? resolved.type.find((member) => member !== 'null') : resolved.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.min(Math.max(1000, resolved.minimum ?? 0), resolved.maximum ?? Number.MAX_SAFE_INTEGER);
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: resolved.minItems ?? 0 }, () => sampleOf(resolved.items ?? {}, name));
    case 'object':
      return baseBody(resolved);
    default:
      return resolved.format === 'email' ? 'fuzz@example.com' : 'fuzz';
  }
}

function baseBody(schema: Schema): Record<string, unknown> {
  const properties = schema.properties ?? {};
  return Object.fromEntries((schema.required ?? []).map((name) => [name, sampleOf(properties[name] ?? {}, name)]));
}

function fillPath(path: string, id: string | undefined): string {
  const collection = path.split('/')[1]!;
  return path.replace(/\{[^}]+\}/g, id ?? pathIds[collection] ?? 'unknown_fuzz_id');
}

/** Strings PostgreSQL cannot store: U+0000, or a surrogate outside a pair. */
const unsafeText = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom('\u0000', '\ud800', '\udfff', '\udc00x\ud83d'), fc.string({ maxLength: 12 }))
  .map(([before, bad, after]) => `${before}${bad}${after}`);

/** Deep JSON, written out only when the body is (fast-check's report of the case stays short). */
class DeepJson {
  constructor(
    readonly kind: 'array' | 'object',
    readonly depth: number,
  ) {}

  /** As text: JSON.stringify itself runs out of stack long before a 64 KiB body does. */
  text(): string {
    return this.kind === 'array' ? `${'['.repeat(this.depth)}0${']'.repeat(this.depth)}` : `${'{"a":'.repeat(this.depth)}0${'}'.repeat(this.depth)}`;
  }

  [fc.toStringMethod](): string {
    return `<${this.kind}s nested ${this.depth} deep>`;
  }
}

/** Hostile scalars, for a query string as for a body. */
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 53 - 1, 2 ** 31, -(2 ** 31) - 1, 1e308, -1, 0, 0.5, 1e-7, -0),
  fc.constantFrom('', ' ', '123', '1e3', '0x10', 'NaN', 'Infinity', '-0', '9007199254740993', '2147483648'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^[\u0001-\u001f\u007f]{1,8}$/),
  fc.integer({ min: 300, max: 4000 }).map((length) => 'x'.repeat(length)),
);

/** Hostile values that are not unsafe text: any answer but a 5xx will do, and a refusal writes nothing. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileScalar,
  fc.constantFrom(null, true, false, [], {}),
  fc.integer({ min: 4000, max: 70_000 }).map((length) => 'x'.repeat(length)),
  fc.tuple(fc.constantFrom('array' as const, 'object' as const), fc.integer({ min: 50, max: 5000 })).map(([kind, depth]) => new DeepJson(kind, depth)),
  fc.constantFrom('__proto__', 'constructor', 'prototype').map((key) => JSON.parse(`{"${key}": {"polluted": true}}`) as unknown),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }),
);

/** Malformed or hostile percent-encoding, as it stands in a URL. */
const hostileEncoding = fc.constantFrom('%ZZ', '%', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%FF', '%%30', '%2', 'a%00b', '%00', '%0A', '%7F');

type Case =
  | { kind: 'body-text'; op: Operation; field: string; value: string; inKey: boolean }
  | { kind: 'metadata-text'; op: Operation; key: string; value: string; inKey: boolean }
  | { kind: 'query-text'; op: Operation; field: string; value: string }
  | { kind: 'path-encoding'; op: Operation; segment: string }
  | { kind: 'query-encoding'; op: Operation; field: string; encoded: string }
  | { kind: 'body-value'; op: Operation; field: string; value: unknown; duplicate: boolean }
  | { kind: 'query-value'; op: Operation; field: string; value: unknown }
  | { kind: 'metadata-keys'; op: Operation; metadata: Record<string, string> }
  | { kind: 'top-level-key'; op: Operation; key: string };

const withBody = () => operations.filter((op) => op.body);
const fieldOf = (op: Operation) => fc.constantFrom(...Object.keys(op.body?.properties ?? {}), 'fuzz_unknown');
const queryFieldOf = (op: Operation) => fc.constantFrom(...op.query, 'fuzz_unknown');
const withMetadata = () => operations.filter((op) => op.body?.properties?.metadata);

const caseArbitrary: fc.Arbitrary<Case> = fc.oneof(
  fc.constantFrom(...withBody()).chain((op) => fc.record({ kind: fc.constant('body-text' as const), op: fc.constant(op), field: fieldOf(op), value: unsafeText, inKey: fc.boolean() })),
  fc
    .constantFrom(...withMetadata())
    .chain((op) => fc.record({ kind: fc.constant('metadata-text' as const), op: fc.constant(op), key: fc.stringMatching(/^[a-z]{1,10}$/), value: unsafeText, inKey: fc.boolean() })),
  fc
    .constantFrom(...operations)
    .chain((op) => fc.record({ kind: fc.constant('query-text' as const), op: fc.constant(op), field: queryFieldOf(op), value: unsafeText.filter((text) => text.includes('\u0000')) })),
  fc.constantFrom(...operations.filter((op) => op.path.includes('{'))).chain((op) => fc.record({ kind: fc.constant('path-encoding' as const), op: fc.constant(op), segment: hostileEncoding })),
  fc.constantFrom(...operations).chain((op) => fc.record({ kind: fc.constant('query-encoding' as const), op: fc.constant(op), field: queryFieldOf(op), encoded: hostileEncoding })),
  fc.constantFrom(...withBody()).chain((op) => fc.record({ kind: fc.constant('body-value' as const), op: fc.constant(op), field: fieldOf(op), value: hostileValue, duplicate: fc.boolean() })),
  fc
    .constantFrom(...operations.filter((op) => op.query.length > 0))
    .chain((op) => fc.record({ kind: fc.constant('query-value' as const), op: fc.constant(op), field: queryFieldOf(op), value: hostileScalar })),
  fc.constantFrom(...withMetadata()).chain((op) =>
    fc.record({
      kind: fc.constant('metadata-keys' as const),
      op: fc.constant(op),
      metadata: fc
        .uniqueArray(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'plan'), { minLength: 1, maxLength: 4 })
        .map((keys) => Object.fromEntries(keys.map((key, index) => [key, `v${index}`]))),
    }),
  ),
  fc.constantFrom(...withBody()).chain((op) => fc.record({ kind: fc.constant('top-level-key' as const), op: fc.constant(op), key: fc.constantFrom('__proto__', 'constructor') })),
);

const jsonText = (value: unknown) => (value instanceof DeepJson ? value.text() : JSON.stringify(value));

/** The body text: JSON of `fields`, with `extra` (already JSON) appended as members written by hand. */
function bodyText(fields: Record<string, unknown>, extra: string[] = []): string {
  const members = [...Object.entries(fields).map(([name, value]) => `${JSON.stringify(name)}:${jsonText(value)}`), ...extra];
  return `{${members.join(',')}}`;
}

interface Built {
  url: string;
  body?: string;
  /** The exact refusal the case must get, when there is one. */
  expect?: { status: number; code: string; param?: string };
  /** Metadata the answer must echo, if it succeeds. */
  echo?: Record<string, string>;
}

const escapedName = (name: string) => JSON.stringify(name).slice(1, -1);

function build(testCase: Case): Built {
  const { op } = testCase;
  const base = op.body ? baseBody(op.body) : undefined;
  const path = `/api/v1${fillPath(op.path, testCase.kind === 'path-encoding' ? testCase.segment : undefined)}`;
  const url = (query = '') => `${path}${query}`;
  const plainBody = base === undefined ? undefined : bodyText(base);
  switch (testCase.kind) {
    case 'body-text': {
      const { [testCase.field]: _, ...rest } = base!;
      if (testCase.inKey) {
        const name = `${testCase.field}${testCase.value}`;
        return { url: url(), body: bodyText({ ...rest, [name]: 'x' }), expect: { status: 400, code: 'parameter_invalid', param: escapedName(name) } };
      }
      return { url: url(), body: bodyText({ ...rest, [testCase.field]: testCase.value }), expect: { status: 400, code: 'parameter_invalid', param: testCase.field } };
    }
    case 'metadata-text': {
      const metadata = testCase.inKey ? { [`${testCase.key}${testCase.value}`]: 'x' } : { [testCase.key]: testCase.value };
      const param = `metadata.${escapedName(Object.keys(metadata)[0]!)}`;
      return { url: url(), body: bodyText({ ...base, metadata }), expect: { status: 400, code: 'parameter_invalid', param } };
    }
    case 'query-text':
      return {
        url: url(`?${new URLSearchParams({ [testCase.field]: testCase.value })}`),
        body: plainBody,
        expect: { status: 400, code: 'parameter_invalid', param: testCase.field },
      };
    case 'path-encoding': {
      let decoded: string | undefined;
      try {
        decoded = decodeURIComponent(testCase.segment);
      } catch {
        decoded = undefined;
      }
      if (decoded === undefined) return { url: url(), body: plainBody, expect: { status: 404, code: 'resource_missing' } };
      if (decoded.includes('\u0000')) return { url: url(), body: plainBody, expect: { status: 400, code: 'parameter_invalid', param: 'id' } };
      return { url: url(), body: plainBody };
    }
    case 'query-encoding':
      return { url: url(`?${testCase.field}=${testCase.encoded}`), body: plainBody };
    case 'body-value': {
      if (!testCase.duplicate) return { url: url(), body: bodyText({ ...base, [testCase.field]: testCase.value }) };
      // The same member twice: JSON.parse keeps the last.
      return { url: url(), body: bodyText(base!, [`${JSON.stringify(testCase.field)}:${jsonText(testCase.value)}`]) };
    }
    case 'query-value':
      return { url: url(`?${new URLSearchParams({ [testCase.field]: typeof testCase.value === 'string' ? testCase.value : JSON.stringify(testCase.value) })}`), body: plainBody };
    case 'metadata-keys':
      return { url: url(), body: bodyText({ ...base, metadata: testCase.metadata }), echo: testCase.metadata };
    case 'top-level-key':
      return { url: url(), body: bodyText(base!, [`${JSON.stringify(testCase.key)}:{"polluted":true}`]) };
  }
}

/** Rows in every table a request could write (rate-limit counters aside). */
let countRows: () => Promise<Record<string, number>>;

beforeAll(async () => {
  const db = api.services.db;
  const listed = (await db.execute(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not in ('rate_limits') and table_name not like '%migrations%'",
  )) as unknown as { rows?: { table_name: string }[] } & { table_name: string }[];
  const tables = (listed.rows ?? listed).map((row) => row.table_name);
  expect(tables).toContain('products');
  const query = `select ${tables.map((table) => `(select count(*) from "${table}")::int as "${table}"`).join(', ')}`;
  countRows = async () => {
    const result = (await db.execute(query)) as unknown as { rows?: Record<string, number>[] } & Record<string, number>[];
    return (result.rows ?? result)[0]!;
  };
});

async function send(testCase: Case): Promise<void> {
  const built = build(testCase);
  const before = await countRows();
  const headers: Record<string, string> = { authorization: `Bearer ${testCase.op.publishable ? store.keys.pk_test : store.key}` };
  if (built.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.baseUrl}${built.url}`, { method: testCase.op.method, headers, body: built.body });
  const text = await response.text();
  const what = `${testCase.op.method} ${built.url} ${built.body?.slice(0, 300) ?? ''} → ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, what).toBeLessThan(500);
  const answer = JSON.parse(text) as { error?: { type: string; code: string; message: string; param?: string }; metadata?: unknown };
  if (built.expect) {
    expect({ status: response.status, code: answer.error?.code, param: answer.error?.param }, what).toEqual(built.expect);
  }
  if (response.status >= 400) {
    const { error } = answer;
    expect(typeof error?.message, what).toBe('string');
    expect(isErrorCode(error?.code), what).toBe(true);
    expect({ status: ERROR_CATALOG[error!.code as keyof typeof ERROR_CATALOG].status, type: ERROR_CATALOG[error!.code as keyof typeof ERROR_CATALOG].type }, what).toEqual({
      status: response.status,
      type: error!.type,
    });
    // A refused credential (a client secret that does not match) is written to the audit trail, and only that.
    const after = await countRows();
    if (error!.type === 'authentication_error') after.audit_events = before.audit_events!;
    expect(after, `${what}: a refused request wrote`).toEqual(before);
  } else if (built.echo && answer.metadata !== undefined) {
    expect(Object.entries(answer.metadata as object), what).toEqual(Object.entries(built.echo));
  }
}

describe('hostile input against every operation of the OpenAPI document', () => {
  it('the document lists every operation the fuzz walks', () => {
    expect(operations.length).toBeGreaterThanOrEqual(40);
    expect(operations.every((op) => op.id && op.method && op.path)).toBe(true);
  });

  it(
    `never a 5xx; refusals are the envelope with their 4xx and write nothing; unsafe text is parameter_invalid naming its field (${RUNS} requests)`,
    async () => {
      await fc.assert(fc.asyncProperty(caseArbitrary, send), { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true });
      // Whatever was accepted, the ledger still follows from the documents.
      expect(await verifyLedger(api.services.db, api.clock.now())).toMatchObject({ ok: true });
    },
    Math.max(120_000, RUNS * 500),
  );

  it('every operation, with unsafe text in each of its body fields and query parameters', async () => {
    for (const op of operations) {
      for (const field of Object.keys(op.body?.properties ?? {})) await send({ kind: 'body-text', op, field, value: 'a\u0000b', inKey: false });
      for (const field of op.query) await send({ kind: 'query-text', op, field, value: 'a\u0000b' });
      if (op.path.includes('{')) {
        await send({ kind: 'path-encoding', op, segment: '%ZZ' });
        await send({ kind: 'path-encoding', op, segment: 'a%00b' });
      }
    }
  }, 120_000);
});
