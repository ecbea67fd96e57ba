import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberships, oneTimeLinks, products, stores, users } from '@/db/schema';
import { bootstrapDemoStore, ensureSecrets, formatDemoStoreBanner } from '@/server/bootstrap';
import { sha256Hex } from '@/server/ids';
import { describeLink } from '@/server/users/service';
import { createTestDatabase } from '../support/database';
import { createTestClock } from '../support/server';

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
let database: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'bootstrap-'));
});
afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('secrets', () => {
  it('generates the admin token and AUTH_SECRET once, mode 0600, and finds them again', async () => {
    const dir = path.join(dataDir, 'fresh');
    // Two instances starting at once agree on one value.
    const [first, second] = await Promise.all([ensureSecrets({ dataDir: dir, adminToken: undefined }, {}), ensureSecrets({ dataDir: dir, adminToken: undefined }, {})]);
    expect(first).toEqual({ adminToken: expect.stringMatching(/^adm_[0-9A-Za-z]{40}$/), authSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(second).toEqual(first);
    expect(await ensureSecrets({ dataDir: dir, adminToken: undefined }, {})).toEqual(first);
    for (const [file, value] of [
      ['admin-token', first.adminToken],
      ['auth-secret', first.authSecret],
    ] as const) {
      expect(await readFile(path.join(dir, file), 'utf8')).toBe(`${value}\n`);
      expect((await stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
    }
  });

  it('values from the environment win and are not written', async () => {
    const dir = path.join(dataDir, 'from-env');
    const secrets = await ensureSecrets({ dataDir: dir, adminToken: 'adm_from_env' }, { AUTH_SECRET: 'secret-from-env' });
    expect(secrets).toEqual({ adminToken: 'adm_from_env', authSecret: 'secret-from-env' });
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('demo store on an empty database', () => {
  it('is created exactly once, even by two instances at once, with test-mode demo products', async () => {
    const deps = { db: database.db, clock: createTestClock(new Date('2026-01-02T03:04:05Z')), maxProductsPerStore: 10_000 };
    const results = await Promise.all([bootstrapDemoStore(deps), bootstrapDemoStore(deps)]);
    const created = results.filter((result) => result !== undefined);
    expect(created).toHaveLength(1);
    const demo = created[0]!;
    expect(demo).toEqual({
      id: expect.stringMatching(/^acct_/),
      name: 'Demo Store',
      // Tax and subscriptions on, as the README's examples use them.
      flags: { suspended: false, live_api: true, amount_mode: false, tax_calculation: true, subscriptions: true },
      tax_mode: 'product_rate',
      logo_url: null,
      terms_url: null,
      privacy_url: null,
      language: 'en',
      feeRates: { basisPoints: null, fixed: null },
      created: expect.any(Number),
      keys: {
        sk_test: expect.stringMatching(/^sk_test_/),
        pk_test: expect.stringMatching(/^pk_test_/),
        sk_live: expect.stringMatching(/^sk_live_/),
        pk_live: expect.stringMatching(/^pk_live_/),
      },
      ownerLinkToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(await database.db.select({ id: stores.id }).from(stores)).toEqual([{ id: demo.id }]);

    const rows = await database.db
      .select({
        name: products.name,
        livemode: products.livemode,
        amount: products.amount,
        priceMode: products.priceMode,
        priceInterval: products.priceInterval,
        hasLicense: products.hasLicense,
        fileUrl: products.fileUrl,
      })
      .from(products)
      .where(eq(products.storeId, demo.id))
      .orderBy(asc(products.amount));
    expect(rows).toEqual([
      { name: 'Demo monthly membership', livemode: false, amount: 999, priceMode: 'recurring', priceInterval: 'month', hasLicense: false, fileUrl: null },
      { name: 'Demo ebook', livemode: false, amount: 1999, priceMode: 'one_time', priceInterval: null, hasLicense: true, fileUrl: null },
      { name: 'Demo video course', livemode: false, amount: 4900, priceMode: 'one_time', priceInterval: null, hasLicense: false, fileUrl: null },
    ]);

    // Its owner, with no password yet and one invitation link, stored only as a hash.
    const people = await database.db
      .select({ email: users.email, passwordHash: users.passwordHash, storeId: memberships.storeId, role: memberships.role })
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id));
    expect(people).toEqual([{ email: 'owner@example.com', passwordHash: null, storeId: demo.id, role: 'owner' }]);
    const links = await database.db.select({ tokenHash: oneTimeLinks.tokenHash, purpose: oneTimeLinks.purpose, role: oneTimeLinks.role }).from(oneTimeLinks);
    expect(links).toEqual([{ tokenHash: sha256Hex(demo.ownerLinkToken), purpose: 'invite', role: 'owner' }]);
    expect(await describeLink(deps, demo.ownerLinkToken)).toEqual({ kind: 'set_password', email: 'owner@example.com', storeName: 'Demo Store' });

    expect(await bootstrapDemoStore(deps)).toBeUndefined();
  });

  it('the banner shows the four keys, a first request and the owner link', () => {
    const store = {
      id: 'acct_x',
      name: 'Demo Store',
      // Tax and subscriptions on, as the README's examples use them.
      flags: { suspended: false, live_api: true, amount_mode: false, tax_calculation: true, subscriptions: true },
      tax_mode: 'product_rate' as const,
      logo_url: null,
      terms_url: null,
      privacy_url: null,
      language: 'en' as const,
      feeRates: { basisPoints: null, fixed: null },
      created: 0,
      keys: { sk_test: 'sk_test_a', pk_test: 'pk_test_b', sk_live: 'sk_live_c', pk_live: 'pk_live_d' },
      ownerLinkToken: 'tok',
    };
    const banner = formatDemoStoreBanner(store, 'http://localhost:3000');
    for (const line of ['  sk_test  sk_test_a', '  pk_test  pk_test_b', '  sk_live  sk_live_c', '  pk_live  pk_live_d']) expect(banner.split('\n')).toContain(line);
    expect(banner).toContain('curl http://localhost:3000/api/v1/products -H "Authorization: Bearer sk_test_a"');
    expect(banner.split('\n').filter((line) => line.includes('/dashboard/accept/'))).toEqual([
      'Dashboard: set the password of owner@example.com (link valid 24 hours, once): http://localhost:3000/dashboard/accept/tok',
    ]);
  });
});
