import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { products, rateLimits as rateLimitsTable } from '@/db/schema';
import { createApiHandler, createServices } from '@/server/app';
import { loadConfig, type Config, type RateLimitConfig } from '@/server/config';
import type { Services } from '@/server/context';
import { createGateways } from '@/server/gateway';
import { createRateLimits } from '@/server/rate-limit/service';
import { createTestDatabase } from '../support/database';
import { createStore, uniqueSku } from '../support/factories';
import { createTestClock, serveFetchHandler } from '../support/server';
import { expectApiError, nextIp, rawRequest, type RawResponse } from '../http/helpers';

/**
 * Per-IP, per-key and product-write limits, with Retry-After on 429. Windows are a minute long and every count stays far inside them, so no assertion
 * depends on how fast the machine is.
 */
const WINDOW = 60;
const HIGH = 100_000;

let database: DatabaseHandle & { url: string | undefined };
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await database.close();
});

type LimiterStore = 'memory' | { db: Services['db'] };

/** One service instance (its own limiter) over the file's database, served over HTTP. */
async function startInstance(limits: Partial<RateLimitConfig>, store: LimiterStore = 'memory', db: Services['db'] = database.db) {
  const base = loadConfig({});
  const config: Config = { ...base, rateLimits: { perIp: HIGH, perKey: HIGH, productWritesPerKey: HIGH, windowSeconds: WINDOW, ...limits } };
  const services: Services = {
    db,
    clock: createTestClock(),
    config,
    rateLimits: createRateLimits(config.rateLimits, store === 'memory' ? undefined : store),
    gateways: createGateways({ db, clock: createTestClock(), config }),
  };
  return serve(services);
}

async function serve(services: Services) {
  const server = await serveFetchHandler(createApiHandler(services));
  closers.push(server.close);
  return {
    services,
    get: (id: string, key: string | undefined, ip: string) =>
      rawRequest(server.baseUrl, 'GET', `/api/v1/products/${id}`, { headers: { 'x-forwarded-for': ip, ...(key ? { authorization: `Bearer ${key}` } : {}) } }),
    create: (key: string, ip: string) =>
      rawRequest(server.baseUrl, 'POST', '/api/v1/products', {
        headers: { 'x-forwarded-for': ip, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Limited', amount: 900, sku: uniqueSku('RL') }),
      }),
    raw: (method: string, urlPath: string, headers: Record<string, string>, body?: string) => rawRequest(server.baseUrl, method, urlPath, { headers, body }),
  };
}

/** 429 `rate_limited`, type `rate_limit_error`, and an integer `Retry-After` within the window. */
function expectRateLimited(response: RawResponse) {
  expectApiError(response, 429, 'rate_limited');
  const retryAfter = response.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[0-9]+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW);
}

function expectNotLimited(response: RawResponse) {
  expect(response.status).not.toBe(429);
  expect(response.headers.get('retry-after')).toBeNull();
}

async function storeWithProduct(services: Pick<Services, 'db'>) {
  const store = await createStore(services);
  const id = `prod_test_${'0'.repeat(24)}`;
  return { store, id };
}

describe('per-IP limit', () => {
  it('every request from one address counts, authenticated or not; the next one is 429 with Retry-After', async () => {
    const instance = await startInstance({ perIp: 5 });
    const { store, id } = await storeWithProduct(instance.services);
    const ip = nextIp();
    expectNotLimited(await instance.get(id, undefined, ip)); // 401
    expectNotLimited(await instance.get(id, 'sk_test_nonexistentnonexistentnonexist', ip)); // 401
    expectNotLimited(await instance.raw('GET', '/api/v1/no-such-route', { 'x-forwarded-for': ip })); // 404
    expectNotLimited(await instance.get(id, store.keys.sk_test, ip)); // 404 resource_missing
    expectNotLimited(await instance.create(store.keys.sk_test, ip)); // 201

    expectRateLimited(await instance.get(id, store.keys.sk_test, ip));
    // Before authentication: a request without a key is limited too, not told 401.
    expectRateLimited(await instance.get(id, undefined, ip));
    // And before the query-string key check, so that refusal is not an unlimited audit write.
    expectRateLimited(await instance.raw('GET', `/api/v1/products/${id}?api_key=${store.keys.sk_test}`, { 'x-forwarded-for': ip }));
  });

  it('addresses are counted separately (first X-Forwarded-For entry)', async () => {
    const instance = await startInstance({ perIp: 3 });
    const { store, id } = await storeWithProduct(instance.services);
    const [a, b] = [nextIp(), nextIp()];
    for (let i = 0; i < 3; i += 1) expectNotLimited(await instance.get(id, store.keys.sk_test, a));
    expectRateLimited(await instance.get(id, store.keys.sk_test, a));
    for (let i = 0; i < 3; i += 1) expectNotLimited(await instance.get(id, store.keys.sk_test, b));
    expectRateLimited(await instance.get(id, store.keys.sk_test, b));
    // The front server puts the socket address first; later entries are not the client.
    const c = nextIp();
    for (let i = 0; i < 3; i += 1) expectNotLimited(await instance.get(id, store.keys.sk_test, `${c}, ${a}`));
    expectRateLimited(await instance.get(id, store.keys.sk_test, `${c}, ${nextIp()}`));
  });
});

describe('per-key limit', () => {
  it('requests with one key are limited across addresses; other keys are not affected', async () => {
    const instance = await startInstance({ perKey: 4 });
    const { store, id } = await storeWithProduct(instance.services);
    const other = await createStore(instance.services);
    for (let i = 0; i < 4; i += 1) expectNotLimited(await instance.get(id, store.keys.sk_test, nextIp()));
    const limited = await instance.get(id, store.keys.sk_test, nextIp());
    expectRateLimited(limited);
    expect(limited.body.error.message).toMatch(/key/i);
    expectRateLimited(await instance.create(store.keys.sk_test, nextIp()));

    // The same store's live key and another store's key have their own budgets.
    expectNotLimited(await instance.get(id, store.keys.sk_live, nextIp()));
    expectNotLimited(await instance.get(id, other.keys.sk_test, nextIp()));
  });

  it('refused authentications do not spend a key’s budget', async () => {
    const instance = await startInstance({ perKey: 2 });
    const { store, id } = await storeWithProduct(instance.services);
    for (let i = 0; i < 5; i += 1) expectApiError(await instance.get(id, store.keys.pk_test, nextIp()), 401, 'wrong_key_type');
    expectNotLimited(await instance.get(id, store.keys.sk_test, nextIp()));
  });
});

describe('product write limit', () => {
  it('product creates hit the stricter write limit; reads with the same key are unaffected', async () => {
    const instance = await startInstance({ perKey: 50, productWritesPerKey: 3 });
    const { store } = await storeWithProduct(instance.services);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await instance.create(store.keys.sk_test, nextIp());
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const refused = await instance.create(store.keys.sk_test, nextIp());
    expectRateLimited(refused);
    expect(refused.body.error.message).toMatch(/write/i);
    const stored = await instance.services.db.select({ id: products.id }).from(products).where(eq(products.storeId, store.id));
    expect(stored).toHaveLength(3);

    for (const id of ids) {
      const read = await instance.get(id, store.keys.sk_test, nextIp());
      expect(read.status).toBe(200);
      expectNotLimited(read);
    }
    // Another key (the same store's live key) writes on its own budget.
    expect((await instance.create(store.keys.sk_live, nextIp())).status).toBe(201);
  });

  it('update (PATCH and its POST alias) and delete spend the same write budget; list and retrieve do not', async () => {
    const instance = await startInstance({ perKey: 50, productWritesPerKey: 4 });
    const { store } = await storeWithProduct(instance.services);
    const key = store.keys.sk_test;
    const send = (method: string, urlPath: string, body?: object) =>
      instance.raw(
        method,
        urlPath,
        {
          'x-forwarded-for': nextIp(),
          authorization: `Bearer ${key}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body ? JSON.stringify(body) : undefined,
      );
    const created = await instance.create(key, nextIp());
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    expect((await send('PATCH', `/api/v1/products/${id}`, { name: 'Renamed' })).status).toBe(200);
    expect((await send('POST', `/api/v1/products/${id}`, { name: 'Renamed again' })).status).toBe(200);
    const second = await instance.create(key, nextIp());
    expect(second.status).toBe(201);
    expectRateLimited(await send('DELETE', `/api/v1/products/${id}`));
    expectRateLimited(await send('PATCH', `/api/v1/products/${id}`, { name: 'Too many' }));
    for (let i = 0; i < 5; i += 1) {
      expect((await send('GET', `/api/v1/products/${id}`)).status).toBe(200);
      expect((await send('GET', '/api/v1/products')).status).toBe(200);
    }
    // The refused writes changed nothing.
    expect((await send('GET', `/api/v1/products/${id}`)).body.name).toBe('Renamed again');
  });
});

describe('counters shared by several instances', () => {
  it('two limiters on the shared store count together (Drizzle store, on whatever database runs)', async () => {
    const shared = { db: database.db };
    const one = await startInstance({ perKey: 6 }, shared);
    const two = await startInstance({ perKey: 6 }, shared);
    const { store, id } = await storeWithProduct(one.services);
    for (let i = 0; i < 3; i += 1) {
      expectNotLimited(await one.get(id, store.keys.sk_test, nextIp()));
      expectNotLimited(await two.get(id, store.keys.sk_test, nextIp()));
    }
    expectRateLimited(await one.get(id, store.keys.sk_test, nextIp()));
    expectRateLimited(await two.get(id, store.keys.sk_test, nextIp()));
    const rows = await database.db.select().from(rateLimitsTable).where(like(rateLimitsTable.key, 'rl:key:%'));
    expect(rows.length).toBeGreaterThanOrEqual(1);
  });

  it('the service wiring: PostgreSQL shares counters between instances; embedded PGlite counts in memory', async () => {
    const limits: RateLimitConfig = { perIp: HIGH, perKey: 4, productWritesPerKey: HIGH, windowSeconds: WINDOW };
    if (database.url) {
      // Two processes' worth of services on one PostgreSQL database, wired exactly as `npm start` wires them.
      const instances = [];
      for (let i = 0; i < 2; i += 1) {
        const created = await createServices({ ...loadConfig({}), databaseUrl: database.url, rateLimits: limits });
        closers.push(created.database.close);
        expect(created.database.driver).toBe('postgres');
        instances.push(await serve(created.services));
      }
      const [one, two] = instances as [Awaited<ReturnType<typeof serve>>, Awaited<ReturnType<typeof serve>>];
      const { store, id } = await storeWithProduct(one.services);
      expectNotLimited(await one.get(id, store.keys.sk_test, nextIp()));
      expectNotLimited(await two.get(id, store.keys.sk_test, nextIp()));
      expectNotLimited(await one.get(id, store.keys.sk_test, nextIp()));
      expectNotLimited(await two.get(id, store.keys.sk_test, nextIp()));
      expectRateLimited(await one.get(id, store.keys.sk_test, nextIp()));
      expectRateLimited(await two.get(id, store.keys.sk_test, nextIp()));
      const rows = await database.db.select().from(rateLimitsTable).where(like(rateLimitsTable.key, 'rl:key:%'));
      expect(rows.some((row) => row.points >= 4)).toBe(true);
    } else {
      // Without DATABASE_URL the service runs on PGlite, one process: the memory limiter counts.
      const dir = await mkdtemp(path.join(tmpdir(), 'rate-limit-pglite-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));
      const created = await createServices({ ...loadConfig({}), databaseUrl: undefined, pgliteDir: dir, rateLimits: limits });
      closers.push(created.database.close);
      expect(created.database.driver).toBe('pglite');
      const instance = await serve(created.services);
      const { store, id } = await storeWithProduct(created.services);
      for (let i = 0; i < 4; i += 1) expectNotLimited(await instance.get(id, store.keys.sk_test, nextIp()));
      expectRateLimited(await instance.get(id, store.keys.sk_test, nextIp()));
      // Nothing was counted in the database table.
      expect(await created.database.db.select().from(rateLimitsTable)).toEqual([]);
      // And a second limiter in memory has its own counters (what "per process" means).
      const second = await serve({ ...created.services, rateLimits: createRateLimits(limits, undefined) });
      expectNotLimited(await second.get(id, store.keys.sk_test, nextIp()));
    }
  });

  it('when the shared store fails, limits still hold in memory instead of failing requests', async () => {
    const failing = new Proxy({} as Services['db'], {
      get() {
        throw new Error('connection refused');
      },
    });
    const instance = await startInstance({ perIp: 3 }, { db: failing });
    const { store, id } = await storeWithProduct(instance.services);
    const ip = nextIp();
    for (let i = 0; i < 3; i += 1) {
      const response = await instance.get(id, store.keys.sk_test, ip);
      expectApiError(response, 404, 'resource_missing');
    }
    expectRateLimited(await instance.get(id, store.keys.sk_test, ip));
  });
});
