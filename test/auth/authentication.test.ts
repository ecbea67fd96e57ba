import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, auditEvents, products } from '@/db/schema';
import { sha256Hex } from '@/server/ids';
import { updateStore } from '@/server/stores/service';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { expectApiError, expectApiHeaders, nextIp, rawRequest } from '../http/helpers';

const api = useTestApi();

type Probe = 'read' | 'write';
const PROBES: Probe[] = ['read', 'write'];

/** One request on a catalog endpoint from a fresh address, so its audit row can be found by ip. */
async function probe(kind: Probe, options: { headers?: Record<string, string>; productId?: string; query?: string } = {}) {
  const ip = nextIp();
  const headers = { 'x-forwarded-for': ip, ...options.headers };
  const query = options.query ?? '';
  const response =
    kind === 'read'
      ? await api.request('GET', `/api/v1/products/${options.productId ?? 'prod_test_000000000000000000000000'}${query}`, { headers })
      : await api.request('POST', `/api/v1/products${query}`, { headers, body: { name: 'Probe', amount: 1000, sku: uniqueSku('PROBE') } });
  return { ...response, ip };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function auditRows(ip: string) {
  return api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip));
}

/** Every authentication failure is audited: one row, with the code and a hint, never the key. */
async function expectAudited(ip: string, code: string, expected: { rawKeys?: string[]; hint?: string | null; storeId?: string | null; livemode?: boolean | null; path?: string }) {
  const rows = await auditRows(ip);
  expect(rows).toHaveLength(1);
  const row = rows[0]!;
  expect(row).toMatchObject({ action: 'auth.failed', code });
  if (expected.hint !== undefined) expect(row.keyHint).toBe(expected.hint);
  if (expected.storeId !== undefined) expect(row.storeId).toBe(expected.storeId);
  if (expected.livemode !== undefined) expect(row.livemode).toBe(expected.livemode);
  if (expected.path !== undefined) expect(row.path).toBe(expected.path);
  const text = JSON.stringify(row);
  for (const key of expected.rawKeys ?? []) expect(text).not.toContain(key);
}

async function expectNoRawKeyInAuditTrail(keys: string[]) {
  const text = JSON.stringify(await api.services.db.select().from(auditEvents));
  for (const key of keys) {
    expect(text).not.toContain(key);
    // Not even the random part without its prefix.
    expect(text).not.toContain(key.slice(8));
  }
}

const hintOf = (key: string) => `${key.slice(0, 8)}…${key.slice(-4)}`;

async function createProductFor(key: string): Promise<string> {
  const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'Owned', amount: 500, sku: uniqueSku() } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

describe('missing and invalid keys', () => {
  it.each(PROBES)('no Authorization header → 401 missing_api_key, audited (%s)', async (kind) => {
    const response = await probe(kind);
    expectApiError(response, 401, 'missing_api_key');
    await expectAudited(response.ip, 'missing_api_key', { hint: null, storeId: null, path: kind === 'read' ? undefined : '/api/v1/products' });
  });

  it.each(PROBES)('an empty Authorization header → 401 missing_api_key (%s)', async (kind) => {
    const response = await probe(kind, { headers: { authorization: '' } });
    expectApiError(response, 401, 'missing_api_key');
    await expectAudited(response.ip, 'missing_api_key', {});
  });

  it.each(PROBES)('HTTP Basic with the secret key as user name and no password (curl -u "$SK:") authenticates like Bearer (%s)', async (kind) => {
    const store = await createStore(api.services);
    const basic = `Basic ${Buffer.from(`${store.keys.sk_test}:`).toString('base64')}`;
    const response = await probe(kind, { headers: { authorization: basic } });
    // Authenticated: the read finds no such product, the write creates one.
    if (kind === 'read') expectApiError(response, 404, 'resource_missing');
    else expect(response.status).toBe(201);
  });

  it.each(PROBES)('HTTP Basic with a password, without the colon, or with a publishable key follows the Bearer rules (%s)', async (kind) => {
    const store = await createStore(api.services);
    const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    const withPassword = await probe(kind, { headers: { authorization: basic(`${store.keys.sk_test}:secret`) } });
    expectApiError(withPassword, 401, 'invalid_api_key');
    await expectAudited(withPassword.ip, 'invalid_api_key', { hint: 'malformed', rawKeys: [store.keys.sk_test] });
    const noColon = await probe(kind, { headers: { authorization: basic(store.keys.sk_test) } });
    expectApiError(noColon, 401, 'invalid_api_key');
    const publishable = await probe(kind, { headers: { authorization: basic(`${store.keys.pk_test}:`) } });
    expectApiError(publishable, 401, 'wrong_key_type');
  });

  it.each([
    ['garbage token', 'Bearer garbage'],
    ['no token', 'Bearer'],
    ['two tokens', 'Bearer sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaa extra'],
    ['wrong prefix', 'Bearer rk_test_abcdefghijklmnopqrstuvwxyz0123'],
    ['too short', 'Bearer sk_test_abc'],
    ['bad characters', 'Bearer sk_test_abcdefghijklmnopqrstuvwx-yz01234'],
    ['a token only', 'sk_test_abcdefghijklmnopqrstuvwxyz0123'],
  ])('malformed Authorization (%s) → 401 invalid_api_key', async (_name, header) => {
    for (const kind of PROBES) {
      const response = await probe(kind, { headers: { authorization: header } });
      expectApiError(response, 401, 'invalid_api_key');
      await expectAudited(response.ip, 'invalid_api_key', { storeId: null });
    }
  });

  it.each(['sk_test', 'sk_live', 'pk_test', 'pk_live'])('an unknown well-formed %s key → 401 invalid_api_key with a hint, never the key', async (prefix) => {
    const key = `${prefix}_${'Zx9'.repeat(10)}Q7w2`;
    for (const kind of PROBES) {
      const response = await probe(kind, { headers: bearer(key) });
      expectApiError(response, 401, 'invalid_api_key');
      await expectAudited(response.ip, 'invalid_api_key', { hint: hintOf(key), storeId: null, rawKeys: [key] });
    }
  });

  it('the Bearer scheme name is case-insensitive', async () => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys.sk_test);
    const response = await probe('read', { headers: { authorization: `bearer ${store.keys.sk_test}` }, productId: id });
    expect(response.status).toBe(200);
  });

  it('a revoked key → 401 invalid_api_key; the store’s other keys keep working', async () => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys.sk_test);
    const liveId = await createProductFor(store.keys.sk_live);
    await api.services.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.keyHash, sha256Hex(store.keys.sk_test)));
    for (const kind of PROBES) {
      const response = await probe(kind, { headers: bearer(store.keys.sk_test), productId: id });
      expectApiError(response, 401, 'invalid_api_key');
      await expectAudited(response.ip, 'invalid_api_key', { hint: hintOf(store.keys.sk_test), rawKeys: [store.keys.sk_test] });
    }
    const live = await probe('read', { headers: bearer(store.keys.sk_live), productId: liveId });
    expect(live.status).toBe(200);
  });
});

describe('publishable keys on catalog endpoints', () => {
  it.each(['pk_test', 'pk_live'] as const)('%s on a read and a write → 401 wrong_key_type, audited with the store', async (slot) => {
    const store = await createStore(api.services);
    const id = await createProductFor(slot === 'pk_test' ? store.keys.sk_test : store.keys.sk_live);
    const before = await api.services.db.select({ id: products.id }).from(products).where(eq(products.storeId, store.id));
    for (const kind of PROBES) {
      const response = await probe(kind, { headers: bearer(store.keys[slot]), productId: id });
      expectApiError(response, 401, 'wrong_key_type');
      await expectAudited(response.ip, 'wrong_key_type', { hint: hintOf(store.keys[slot]), storeId: store.id, livemode: slot === 'pk_live', rawKeys: [store.keys[slot]] });
    }
    // The refused write created nothing.
    const after = await api.services.db.select({ id: products.id }).from(products).where(eq(products.storeId, store.id));
    expect(after).toHaveLength(before.length);
  });
});

describe('every catalog operation refuses what the probes refuse', () => {
  const operations = (id: string): [string, string, object | undefined][] => [
    ['GET', '/api/v1/products', undefined],
    ['GET', `/api/v1/products/${id}`, undefined],
    ['POST', '/api/v1/products', { name: 'Nope', amount: 100 }],
    ['PATCH', `/api/v1/products/${id}`, { name: 'Changed' }],
    ['POST', `/api/v1/products/${id}`, { name: 'Changed' }],
    ['DELETE', `/api/v1/products/${id}`, undefined],
  ];

  it('no key, X-Api-Key, publishable keys and query-string keys on list, retrieve, create, update and delete', async () => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys.sk_test);
    const before = await api.request('GET', `/api/v1/products/${id}`, { key: store.keys.sk_test });
    const refusals: [Record<string, string>, string, string, number][] = [
      [{}, '', 'missing_api_key', 401],
      [{ 'x-api-key': store.keys.sk_test }, '', 'missing_api_key', 401],
      [bearer(store.keys.pk_test), '', 'wrong_key_type', 401],
      [bearer(store.keys.pk_live), '', 'wrong_key_type', 401],
      [bearer(store.keys.sk_test), `?api_key=${store.keys.sk_test}`, 'invalid_api_key', 401],
    ];
    for (const [method, path, body] of operations(id)) {
      for (const [headers, query, code, status] of refusals) {
        const ip = nextIp();
        const response = await api.request(method, `${path}${query}`, { headers: { 'x-forwarded-for': ip, ...headers }, body });
        expect({ method, path, code: response.body?.error?.code }).toEqual({ method, path, code });
        expectApiError(response, status, code);
        await expectAudited(ip, code, { rawKeys: Object.values(store.keys) });
      }
    }
    const after = await api.request('GET', `/api/v1/products/${id}`, { key: store.keys.sk_test });
    expect(after.body).toEqual(before.body);
    const stored = await api.services.db.select({ id: products.id }).from(products).where(eq(products.storeId, store.id));
    expect(stored).toHaveLength(1);
  });
});

describe('keys in the query string', () => {
  it.each([
    ['api_key', (key: string) => `?api_key=${key}`],
    ['key', (key: string) => `?key=${key}`],
    ['apikey', (key: string) => `?apikey=${key}`],
    ['API_KEY (any case)', (key: string) => `?API_KEY=${key}`],
    ['api_key with garbage', () => '?api_key=whatever'],
    ['sk_ value under another name', (key: string) => `?token=${key}`],
    ['sk_ value among other params', (key: string) => `?expand=price&q=${key}`],
  ])('%s → 401 invalid_api_key even beside a valid header, audited without the key', async (_name, query) => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys.sk_test);
    for (const kind of PROBES) {
      const q = query(store.keys.sk_test);
      const response = await probe(kind, { headers: bearer(store.keys.sk_test), productId: id, query: q });
      expectApiError(response, 401, 'invalid_api_key');
      await expectAudited(response.ip, 'invalid_api_key', { rawKeys: [store.keys.sk_test] });
    }
    const created = await api.services.db.select({ id: products.id }).from(products).where(eq(products.storeId, store.id));
    expect(created).toHaveLength(1);
  });

  it.each(['pk_test', 'pk_live', 'sk_live'] as const)('a %s value in the query string → 401 invalid_api_key', async (slot) => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys.sk_test);
    const response = await probe('read', { headers: bearer(store.keys.sk_test), productId: id, query: `?x=${store.keys[slot]}` });
    expectApiError(response, 401, 'invalid_api_key');
    await expectAudited(response.ip, 'invalid_api_key', { hint: hintOf(store.keys[slot]), rawKeys: [store.keys[slot]] });
  });

  it('a key in the query string is refused without any header too, and on unknown routes', async () => {
    const store = await createStore(api.services);
    const bare = await probe('read', { query: `?api_key=${store.keys.sk_test}` });
    expectApiError(bare, 401, 'invalid_api_key');
    await expectAudited(bare.ip, 'invalid_api_key', { rawKeys: [store.keys.sk_test] });
    const ip = nextIp();
    const unknown = await api.request('GET', `/api/v1/nothing-here?key=${store.keys.sk_live}`, { headers: { 'x-forwarded-for': ip } });
    expectApiError(unknown, 401, 'invalid_api_key');
    await expectAudited(ip, 'invalid_api_key', { rawKeys: [store.keys.sk_live] });
  });

  it('ordinary query parameters are not mistaken for keys', async () => {
    const store = await createStore(api.services);
    // An unknown route, so that only the key detector could turn this 404 into a 401.
    const response = await api.request('GET', '/api/v1/not-a-route?task=sku_1&monkey=pk&name=pk-sk_x&skey=1', { key: store.keys.sk_test });
    expectApiError(response, 404, 'resource_missing');
  });

  it('a value that merely starts sk_ or pk_ is ordinary: ?sku=sk_blue filters the list', async () => {
    const store = await createStore(api.services);
    for (const sku of ['sk_blue', 'pk_red']) {
      const created = await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'Shirt', amount: 500, sku } });
      expect(created.status).toBe(201);
    }
    const response = await api.request('GET', '/api/v1/products?sku=sk_blue', { key: store.keys.sk_test });
    expect(response.status).toBe(200);
    expect(response.body.data.map((product: { sku: string }) => product.sku)).toEqual(['sk_blue']);
  });

  it.each(['sk_test_', 'sk_live_', 'pk_test_', 'pk_live_'])('%s followed by 16 letters or digits is a key; 15 are not', async (prefix) => {
    const store = await createStore(api.services);
    const list = (sku: string) => {
      const ip = nextIp();
      return api.request('GET', `/api/v1/products?sku=${sku}`, { headers: { 'x-forwarded-for': ip, ...bearer(store.keys.sk_test) } }).then((response) => ({ ...response, ip }));
    };
    const keyShaped = await list(`${prefix}Ab3456789012345P`);
    expectApiError(keyShaped, 401, 'invalid_api_key');
    await expectAudited(keyShaped.ip, 'invalid_api_key', { hint: `${prefix}…345P` });
    const shorter = await list(`${prefix}Ab345678901234P`);
    expect(shorter.status).toBe(200);
    expect(shorter.body.data).toEqual([]);
  });

  it.each(PROBES)('a key-shaped value in the query beside a valid header → 401 invalid_api_key, nothing created, the key not echoed (%s)', async (kind) => {
    const store = await createStore(api.services);
    const queryKey = 'sk_live_Ab3456789012345678901234';
    const response = await probe(kind, { headers: bearer(store.keys.sk_test), query: `?ref=${queryKey}` });
    expectApiError(response, 401, 'invalid_api_key');
    expect(JSON.stringify(response.body)).not.toContain(queryKey);
    const listed = await api.request('GET', '/api/v1/products', { headers: { 'x-forwarded-for': nextIp(), ...bearer(store.keys.sk_test) } });
    expect(listed.body.data).toEqual([]);
  });
});

describe('X-Api-Key is for checkout sessions only', () => {
  it.each(['sk_test', 'sk_live'] as const)('%s in X-Api-Key on the catalog → 401 missing_api_key', async (slot) => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys[slot]);
    for (const kind of PROBES) {
      const response = await probe(kind, { headers: { 'x-api-key': store.keys[slot] }, productId: id });
      expectApiError(response, 401, 'missing_api_key');
      await expectAudited(response.ip, 'missing_api_key', { rawKeys: [store.keys[slot]] });
    }
  });
});

describe('suspended account and disabled channel', () => {
  it('suspended: live secret → 403 account_suspended; test secret works; publishable keys stay wrong_key_type', async () => {
    const store = await createStore(api.services);
    const testId = await createProductFor(store.keys.sk_test);
    const liveId = await createProductFor(store.keys.sk_live);
    await updateStore(api.services.db, store.id, { suspended: true });

    for (const kind of PROBES) {
      const live = await probe(kind, { headers: bearer(store.keys.sk_live), productId: liveId });
      expectApiError(live, 403, 'account_suspended');
      await expectAudited(live.ip, 'account_suspended', { hint: hintOf(store.keys.sk_live), storeId: store.id, livemode: true, rawKeys: [store.keys.sk_live] });

      const test = await probe(kind, { headers: bearer(store.keys.sk_test), productId: testId });
      expect(test.status).toBe(kind === 'read' ? 200 : 201);
      expectApiHeaders(test);
      // No failure: a read writes nothing, a write its own entry naming the key.
      expect((await auditRows(test.ip)).map((row) => [row.action, row.keyHint])).toEqual(kind === 'read' ? [] : [['product.create', hintOf(store.keys.sk_test)]]);

      // Decision: the key type is judged first, so a publishable key learns nothing about the account state.
      const pkLive = await probe(kind, { headers: bearer(store.keys.pk_live), productId: liveId });
      expectApiError(pkLive, 401, 'wrong_key_type');
      await expectAudited(pkLive.ip, 'wrong_key_type', { storeId: store.id, livemode: true });
      const pkTest = await probe(kind, { headers: bearer(store.keys.pk_test), productId: testId });
      expectApiError(pkTest, 401, 'wrong_key_type');
    }
  });

  it('live_api off: live secret → 403 capability_disabled; test keys unaffected', async () => {
    const store = await createStore(api.services, { liveApi: false });
    const testId = await createProductFor(store.keys.sk_test);
    for (const kind of PROBES) {
      const live = await probe(kind, { headers: bearer(store.keys.sk_live) });
      expectApiError(live, 403, 'capability_disabled');
      await expectAudited(live.ip, 'capability_disabled', { hint: hintOf(store.keys.sk_live), storeId: store.id, livemode: true, rawKeys: [store.keys.sk_live] });
      const test = await probe(kind, { headers: bearer(store.keys.sk_test), productId: testId });
      expect(test.status).toBe(kind === 'read' ? 200 : 201);
      const pkLive = await probe(kind, { headers: bearer(store.keys.pk_live) });
      expectApiError(pkLive, 401, 'wrong_key_type');
    }
  });

  it('suspended and live_api off together: the live secret key gets account_suspended', async () => {
    const store = await createStore(api.services, { suspended: true, liveApi: false });
    const response = await probe('read', { headers: bearer(store.keys.sk_live) });
    expectApiError(response, 403, 'account_suspended');
  });

  it('flags switched by updateStore take effect on the next request', async () => {
    const store = await createStore(api.services);
    const liveId = await createProductFor(store.keys.sk_live);
    const read = () => probe('read', { headers: bearer(store.keys.sk_live), productId: liveId });

    expect((await read()).status).toBe(200);
    await updateStore(api.services.db, store.id, { suspended: true });
    expectApiError(await read(), 403, 'account_suspended');
    await updateStore(api.services.db, store.id, { suspended: false });
    expect((await read()).status).toBe(200);
    await updateStore(api.services.db, store.id, { liveApi: false });
    expectApiError(await read(), 403, 'capability_disabled');
    await updateStore(api.services.db, store.id, { liveApi: true });
    const back = await read();
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ id: liveId, livemode: true });
  });
});

describe('storage and audit of keys', () => {
  it('keys are stored only as SHA-256 hashes', async () => {
    const store = await createStore(api.services);
    const rows = await api.services.db.select().from(apiKeys).where(eq(apiKeys.storeId, store.id));
    expect(rows).toHaveLength(4);
    const text = JSON.stringify(rows);
    const all = Object.values(store.keys);
    for (const key of all) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(8));
    }
    expect(rows.map((row) => row.keyHash).sort()).toEqual(all.map(sha256Hex).sort());
    for (const row of rows) expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    // The whole table holds no key of any store created so far.
    const everything = JSON.stringify(await api.services.db.select().from(apiKeys));
    for (const key of all) expect(everything).not.toContain(key);
  });

  it('no raw key anywhere in audit_events after every kind of failure', async () => {
    const store = await createStore(api.services, { liveApi: false });
    const suspended = await createStore(api.services, { suspended: true });
    const keys = [...Object.values(store.keys), ...Object.values(suspended.keys)];
    await probe('read', { headers: bearer(store.keys.pk_test) });
    await probe('write', { headers: bearer(store.keys.pk_live) });
    await probe('read', { headers: bearer(store.keys.sk_live) });
    await probe('read', { headers: bearer(suspended.keys.sk_live) });
    await probe('read', { headers: bearer(`${store.keys.sk_test}x`) });
    await probe('read', { headers: { authorization: `Basic ${store.keys.sk_test}` } });
    await probe('read', { headers: { 'x-api-key': store.keys.sk_test } });
    await probe('read', { query: `?api_key=${store.keys.sk_test}` });
    await probe('write', { headers: bearer(store.keys.sk_test), query: `?k=${store.keys.pk_live}` });
    await expectNoRawKeyInAuditTrail(keys);
    const failures = await api.services.db.select().from(auditEvents).where(eq(auditEvents.action, 'auth.failed'));
    expect(failures.length).toBeGreaterThanOrEqual(9);
  });

  it('successful requests are not audited as failures', async () => {
    const store = await createStore(api.services);
    const id = await createProductFor(store.keys.sk_test);
    const response = await probe('read', { headers: bearer(store.keys.sk_test), productId: id });
    expect(response.status).toBe(200);
    expect(await auditRows(response.ip)).toEqual([]);
  });

  it('the 401 body never echoes the presented key', async () => {
    const store = await createStore(api.services);
    const key = `${store.keys.sk_test.slice(0, -1)}${store.keys.sk_test.endsWith('0') ? '1' : '0'}`;
    const response = await rawRequest(api.baseUrl, 'GET', '/api/v1/products/prod_test_x', { headers: bearer(key) });
    expect(response.status).toBe(401);
    expect(response.text).not.toContain(key);
    const query = await rawRequest(api.baseUrl, 'GET', `/api/v1/products/prod_test_x?api_key=${store.keys.sk_test}`);
    expect(query.status).toBe(401);
    expect(query.text).not.toContain(store.keys.sk_test);
  });
});
