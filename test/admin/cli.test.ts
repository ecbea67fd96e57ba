import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, backupCodes, users } from '@/db/schema';
import { randomBase62 } from '@/server/ids';
import { uniqueSku } from '../support/factories';
import { expectFailure, expectJson, useAdminCli } from '../support/admin-cli';
import { serveFetchHandler, useTestApi } from '../support/server';

const api = useTestApi();
const { token: TOKEN, url, runCli, runCliProcess, runNpm } = useAdminCli(api);

const defaultFlags = { suspended: false, live_api: true, amount_mode: false, tax_calculation: false, subscriptions: false };
/** PLATFORM_FEE_PERCENT and PLATFORM_FEE_FIXED's defaults, which a store without rates of its own pays. */
const defaultFees = { percent: 5, fixed: 50 };

describe('npm run admin', { timeout: 150_000 }, () => {
  it('store:create prints id, name, keys and flags; the keys work', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Acme Books']));
    expect(store).toEqual({
      id: expect.stringMatching(/^acct_/),
      name: 'Acme Books',
      keys: {
        sk_test: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
        pk_test: expect.stringMatching(/^pk_test_[0-9A-Za-z]{32}$/),
        sk_live: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
        pk_live: expect.stringMatching(/^pk_live_[0-9A-Za-z]{32}$/),
      },
      flags: defaultFlags,
      tax_mode: 'product_rate',
      created: expect.any(Number),
    });
    expect(Object.keys(store)).toEqual(['id', 'name', 'keys', 'flags', 'tax_mode', 'created']);
    const listed = await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'Ebook', amount: 1999, sku: uniqueSku() } });
    expect(listed.status).toBe(201);
  });

  it('store:create --amount-mode --tax-calculation --subscriptions (also --flag=value) sets those flags', async () => {
    const store = expectJson(await runCli(['store:create', '--name=Flags', '--amount-mode', '--tax-calculation', '--subscriptions=true']));
    expect(store.flags).toEqual({ ...defaultFlags, amount_mode: true, tax_calculation: true, subscriptions: true });
  });

  it('store:update switches flags with true|false, which take effect on the public API', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Update me']));
    const updated = expectJson(
      await runCli(['store:update', '--id', store.id, '--suspended', 'true', '--live-api', 'false', '--amount-mode', 'true', '--tax-calculation', 'true', '--subscriptions', 'true']),
    );
    expect(updated).toEqual({
      id: store.id,
      name: 'Update me',
      flags: { suspended: true, live_api: false, amount_mode: true, tax_calculation: true, subscriptions: true },
      tax_mode: 'product_rate',
      logo_url: null,
      terms_url: null,
      privacy_url: null,
      language: 'en',
      fees: defaultFees,
      created: store.created,
    });
    const live = await api.request('GET', '/api/v1/products/prod_live_000000000000000000000000', { key: store.keys.sk_live });
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('account_suspended');

    const resumed = expectJson(await runCli(['store:update', '--id', store.id, '--suspended', 'false']));
    expect(resumed.flags).toEqual({ suspended: false, live_api: false, amount_mode: true, tax_calculation: true, subscriptions: true });
    const disabled = await api.request('GET', '/api/v1/products/prod_live_000000000000000000000000', { key: store.keys.sk_live });
    expect(disabled.status).toBe(403);
    expect(disabled.body.error.code).toBe('capability_disabled');
  });

  it('store:create and store:update --tax-mode set the tax mode, printed beside the flags and listed', async () => {
    const created = expectJson(await runCli(['store:create', '--name', 'Buyer country', '--tax-mode', 'buyer_country']));
    expect(created).toMatchObject({ flags: defaultFlags, tax_mode: 'buyer_country' });
    expect(Object.keys(created)).toEqual(['id', 'name', 'keys', 'flags', 'tax_mode', 'created']);

    const store = expectJson(await runCli(['store:create', '--name', 'Switching mode']));
    const switched = expectJson(await runCli(['store:update', '--id', store.id, '--tax-mode=buyer_country']));
    expect(switched).toEqual({ ...store, keys: undefined, tax_mode: 'buyer_country', logo_url: null, terms_url: null, privacy_url: null, language: 'en', fees: defaultFees });
    expect(Object.keys(switched)).toEqual(['id', 'name', 'flags', 'tax_mode', 'logo_url', 'terms_url', 'privacy_url', 'language', 'fees', 'created']);
    expect(expectJson(await runCli(['store:list'])).data).toContainEqual(switched);
    const back = expectJson(await runCli(['store:update', '--id', store.id, '--tax-mode', 'product_rate']));
    expect(back).toEqual({ ...switched, tax_mode: 'product_rate' });
  });

  it('another --tax-mode exits non-zero with parameter_invalid and changes nothing', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Careful mode']));
    for (const args of [
      ['store:update', '--id', store.id, '--tax-mode', 'vat'],
      ['store:update', '--id', store.id, '--tax-mode', 'Buyer_Country'],
      ['store:create', '--name', 'Never made', '--tax-mode', 'destination'],
    ]) {
      expectFailure(await runCli(args), 2, /^Error: parameter_invalid: --tax-mode takes product_rate or buyer_country, not "\w+"\.\n$/);
    }
    expectFailure(await runCli(['store:update', '--id', store.id, '--tax-mode']), 2, /--tax-mode needs a value/);
    const listed = expectJson(await runCli(['store:list'])).data;
    expect(listed.find((entry: { id: string }) => entry.id === store.id).tax_mode).toBe('product_rate');
    expect(listed.map((entry: { name: string }) => entry.name)).not.toContain('Never made');
  });

  it('store:update --name --logo-url --terms-url --privacy-url sets them; "" removes one', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Unbranded']));
    const branded = expectJson(
      await runCli([
        'store:update',
        '--id',
        store.id,
        '--name',
        'Moth Books',
        '--logo-url',
        'https://cdn.example/moth.png',
        '--terms-url',
        'https://moth.example/terms',
        '--privacy-url=https://moth.example/privacy',
      ]),
    );
    expect(branded).toEqual({
      ...store,
      keys: undefined,
      fees: defaultFees,
      name: 'Moth Books',
      logo_url: 'https://cdn.example/moth.png',
      terms_url: 'https://moth.example/terms',
      privacy_url: 'https://moth.example/privacy',
      language: 'en',
    });
    const removed = expectJson(await runCli(['store:update', '--id', store.id, '--terms-url', '']));
    expect(removed).toEqual({ ...branded, terms_url: null });
  });

  it('product:attach-license and product:attach-file print the product; the url is never printed', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Products']));
    const created = await api.request('POST', '/api/v1/products', { key: store.keys.sk_test, body: { name: 'Ebook', amount: 1999, sku: uniqueSku() } });
    const licensed = expectJson(await runCli(['product:attach-license', '--id', created.body.id]));
    expect(licensed).toEqual({ ...created.body, has_license: true, updated: expect.any(Number) });
    const url = 'https://files.example.com/private/book.pdf';
    const result = await runCli(['product:attach-file', '--id', created.body.id, '--url', url]);
    const withFile = expectJson(result);
    expect(withFile).toEqual({ ...created.body, has_license: true, has_file: true, updated: expect.any(Number) });
    expect(result.stdout).not.toContain('files.example.com');
  });

  it('reads the token the service generated in DATA_DIR when ADMIN_TOKEN is unset', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'admin-cli-'));
    try {
      await writeFile(path.join(dataDir, 'admin-token'), `${TOKEN}\n`, { mode: 0o600 });
      const store = expectJson(await runCli(['store:create', '--name', 'From file'], { SERVICE_URL: url(), DATA_DIR: dataDir }));
      expect(store.name).toBe('From file');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('SERVICE_URL defaults to 127.0.0.1 on PORT', async () => {
    const port = new URL(url()).port;
    const store = expectJson(await runCli(['store:create', '--name', 'Default url'], { PORT: port, ADMIN_TOKEN: TOKEN }));
    expect(store.name).toBe('Default url');
  });
});

describe('npm run admin: dashboard people', { timeout: 150_000 }, () => {
  const acceptUrl = () => new RegExp(`^${api.services.config.publicBaseUrl}/dashboard/accept/[A-Za-z0-9_-]{43}$`);

  it('user:invite prints the person and a one-time link; the same person in another store gets a membership; user:reset prints a link', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Team']));
    const invited = expectJson(await runCli(['user:invite', '--store', store.id, '--email', 'Pat@Example.com', '--role', 'developer']));
    expect(invited).toEqual({ user: { email: 'pat@example.com', role: 'developer', store: store.id }, url: expect.stringMatching(acceptUrl()) });
    expect(Object.keys(invited)).toEqual(['user', 'url']);

    const other = expectJson(await runCli(['store:create', '--name', 'Other team']));
    const second = expectJson(await runCli(['user:invite', '--store', other.id, '--email', 'pat@example.com', '--role', 'viewer']));
    expect(second).toEqual({ user: { email: 'pat@example.com', role: 'viewer', store: other.id }, url: expect.stringMatching(acceptUrl()) });
    expect(second.url).not.toBe(invited.url);

    const reset = expectJson(await runCli(['user:reset', '--email', 'PAT@example.com']));
    expect(reset).toEqual({ url: expect.stringMatching(acceptUrl()) });
  });

  it('user:reset --clear-two-factor turns the person’s two-factor off (secret and backup codes), audited; without the flag it stays on', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Lost phone']));
    expectJson(await runCli(['user:invite', '--store', store.id, '--email', 'lost@example.com', '--role', 'owner']));
    const [person] = await api.services.db.select({ id: users.id }).from(users).where(eq(users.email, 'lost@example.com'));
    await api.services.db.update(users).set({ totpSecret: 'sealed-secret', totpEnabledAt: new Date(), totpLastStep: 1 }).where(eq(users.id, person!.id));
    await api.services.db.insert(backupCodes).values({ id: `bkc_${randomBase62(12)}`, userId: person!.id, codeHash: 'f'.repeat(64), createdAt: new Date() });
    const twoFactor = async () => {
      const [row] = await api.services.db.select({ secret: users.totpSecret, enabledAt: users.totpEnabledAt, lastStep: users.totpLastStep }).from(users).where(eq(users.id, person!.id));
      const codes = await api.services.db.select().from(backupCodes).where(eq(backupCodes.userId, person!.id));
      return { on: row!.enabledAt !== null, secret: row!.secret, lastStep: row!.lastStep, codes: codes.length };
    };

    expect(expectJson(await runCli(['user:reset', '--email', 'lost@example.com']))).toEqual({ url: expect.stringMatching(acceptUrl()) });
    expect(await twoFactor()).toEqual({ on: true, secret: 'sealed-secret', lastStep: 1, codes: 1 });

    const cleared = expectJson(await runCli(['user:reset', '--email', 'LOST@example.com', '--clear-two-factor']));
    expect(cleared).toEqual({ url: expect.stringMatching(acceptUrl()), two_factor_cleared: true });
    expect(await twoFactor()).toEqual({ on: false, secret: null, lastStep: null, codes: 0 });
    const audited = await api.services.db.select().from(auditEvents).where(eq(auditEvents.action, 'admin.user.clear_two_factor'));
    expect(audited).toEqual([expect.objectContaining({ action: 'admin.user.clear_two_factor', method: 'POST', details: { email: 'lost@example.com' } })]);
    expect(JSON.stringify(audited)).not.toContain(cleared.url.split('/').at(-1));
    expectFailure(await runCli(['user:reset', '--email', 'lost@example.com', '--clear-two-factor', 'maybe']), 2, /--clear-two-factor takes true or false/);
  });

  it('refusals: unknown e-mail on reset, unknown store, unknown role, a second invitation to the same store', async () => {
    expectFailure(await runCli(['user:reset', '--email', 'nobody@example.com']), 1, /NOT_FOUND \(404\): No dashboard user with e-mail 'nobody@example.com'\./);
    expectFailure(await runCli(['user:invite', '--store', 'acct_missing', '--email', 'a@example.com', '--role', 'owner']), 1, /NOT_FOUND \(404\): No store with id 'acct_missing'\./);
    const store = expectJson(await runCli(['store:create', '--name', 'Refusals']));
    expectFailure(await runCli(['user:invite', '--store', store.id, '--email', 'a@example.com', '--role', 'boss']), 1, /BAD_REQUEST \(400\): role: /);
    expectFailure(await runCli(['user:invite', '--store', store.id, '--email', 'not-an-address', '--role', 'owner']), 1, /BAD_REQUEST \(400\): Give a valid e-mail address\./);
    expectJson(await runCli(['user:invite', '--store', store.id, '--email', 'a@example.com', '--role', 'owner']));
    expectFailure(await runCli(['user:invite', '--store', store.id, '--email', 'a@example.com', '--role', 'viewer']), 1, /BAD_REQUEST \(400\): a@example.com is already a member/);
    // As a process: a refused command line is the process's exit code 2.
    expectFailure(await runCliProcess(['user:invite', '--store', store.id, '--email', 'a@example.com']), 2, /--role is required/);
  });
});

describe('npm run admin: stores and their keys', { timeout: 150_000 }, () => {
  const works = async (key: string) => (await api.request('GET', '/api/v1/products?limit=1', { key })).status;

  it('store:list prints every store with its flags and never a key', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Listed']));
    const result = await runCli(['store:list']);
    const listed = expectJson(result);
    expect(listed.object).toBe('list');
    expect(listed.data).toContainEqual({
      id: store.id,
      name: 'Listed',
      flags: defaultFlags,
      tax_mode: 'product_rate',
      logo_url: null,
      terms_url: null,
      privacy_url: null,
      language: 'en',
      fees: defaultFees,
      created: store.created,
    });
    for (const entry of listed.data) expect(Object.keys(entry)).toEqual(['id', 'name', 'flags', 'tax_mode', 'logo_url', 'terms_url', 'privacy_url', 'language', 'fees', 'created']);
    for (const key of Object.values(store.keys) as string[]) expect(result.stdout).not.toContain(key);
  });

  it('`npm run -s admin -- store:list`, as documented, prints exactly one JSON object on stdout', async () => {
    const result = await runNpm(['run', '-s', 'admin', '--', 'store:list']);
    const listed = expectJson(result);
    expect(listed.object).toBe('list');
  });

  it('the project does not silence npm: a failing npm command says why', async () => {
    const loglevel = await runNpm(['config', 'get', 'loglevel'], {});
    expect(loglevel.code).toBe(0);
    expect(loglevel.stdout.trim()).not.toBe('silent');
    const failing = await runNpm(['run', 'no-such-script'], {});
    expect(failing.code).not.toBe(0);
    expect(failing.stderr).toContain('no-such-script');
  });

  it('keys:roll makes new keys of every type; the old ones stop at once', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Leaked']));
    const rolled = expectJson(await runCli(['keys:roll', '--store', store.id]));
    expect(rolled).toEqual({
      id: store.id,
      keys: {
        sk_test: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
        pk_test: expect.stringMatching(/^pk_test_[0-9A-Za-z]{32}$/),
        sk_live: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
        pk_live: expect.stringMatching(/^pk_live_[0-9A-Za-z]{32}$/),
      },
      old_keys_expire_at: null,
    });
    const old = await api.request('GET', '/api/v1/products?limit=1', { key: store.keys.sk_test });
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('invalid_api_key');
    expect(await works(store.keys.sk_live)).toBe(401);
    expect(await works(rolled.keys.sk_test)).toBe(200);
    expect(await works(rolled.keys.sk_live)).toBe(200);
  });

  it('keys:roll --type sk_test --expires-in 3600: only that type; the old key works until then', async () => {
    const store = expectJson(await runCli(['store:create', '--name', 'Rotating']));
    const before = Math.floor(Date.now() / 1000);
    const rolled = expectJson(await runCli(['keys:roll', '--store', store.id, '--type', 'sk_test', '--expires-in', '3600']));
    expect(Object.keys(rolled.keys)).toEqual(['sk_test']);
    // An hour from the service's clock (this file's test clock started when it did).
    expect(Math.abs(rolled.old_keys_expire_at - (before + 3600))).toBeLessThan(300);
    expect(await works(store.keys.sk_test)).toBe(200);
    expect(await works(rolled.keys.sk_test)).toBe(200);
    expect(await works(store.keys.sk_live)).toBe(200);
  });

  it('keys:roll refusals: an unknown store exits 1; a bad type or duration exits 2', async () => {
    expectFailure(await runCli(['keys:roll', '--store', 'acct_missing']), 1, /NOT_FOUND \(404\): No store with id 'acct_missing'\./);
    expectFailure(await runCli(['keys:roll', '--store', 'acct_x', '--type', 'rk_test']), 2, /--type takes sk_test, pk_test, sk_live, pk_live, not "rk_test"/);
    expectFailure(await runCli(['keys:roll', '--store', 'acct_x', '--expires-in', 'soon']), 2, /--expires-in takes a whole number of seconds, not "soon"/);
  });
});

describe('npm run admin failures: non-zero exit, stderr, nothing on stdout', { timeout: 150_000 }, () => {
  it('bad command lines exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Usage: npm run admin -- <command>/],
      [['store:delete', '--id', 'x'], /Unknown command "store:delete"/],
      [['store:create'], /--name is required/],
      [['store:create', '--name'], /--name needs a value/],
      [['store:create', '--name', 'X', '--colour', 'red'], /Unknown flag --colour/],
      [['store:create', '--name', 'X', 'extra'], /Unexpected argument "extra"/],
      [['store:update', '--id', 'acct_x', '--suspended', 'maybe'], /--suspended takes true or false, not "maybe"/],
      [['store:update', '--id', 'acct_x'], /at least one flag/],
      [['store:update', '--id', 'a', '--id', 'b', '--suspended', 'true'], /--id is given twice/],
      [['product:attach-file', '--id', 'prod_test_x'], /--url is required/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    results.forEach((result, i) => expectFailure(result, 2, cases[i]![1]));
  });

  it('wrong token → exit 1 naming the 401', async () => {
    expectFailure(await runCli(['store:create', '--name', 'X'], { SERVICE_URL: url(), ADMIN_TOKEN: 'adm_wrong' }), 1, /refused the admin token \(401\)/);
  });

  it('no token anywhere → exit 1 saying how to get one', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'admin-cli-'));
    try {
      expectFailure(await runCli(['store:create', '--name', 'X'], { SERVICE_URL: url(), DATA_DIR: dataDir }), 1, /No admin token: set ADMIN_TOKEN, or start the service once/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('service down → exit 1 saying it cannot be reached', async () => {
    // A privileged port nothing here listens on (a port just closed could be taken by another
    // test meanwhile; the discard port 9 would be refused by fetch itself as a "bad port").
    const down = 'http://127.0.0.1:2';
    expectFailure(await runCli(['store:create', '--name', 'X'], { SERVICE_URL: down, ADMIN_TOKEN: TOKEN }), 1, new RegExp(`Cannot reach the service at ${down} \\(ECONNREFUSED\\)`));
  });

  it('something else at SERVICE_URL → exit 1', async () => {
    const other = await serveFetchHandler(async () => new Response('<html>not here</html>', { status: 404, headers: { 'content-type': 'text/html' } }));
    try {
      expectFailure(await runCli(['store:create', '--name', 'X'], { SERVICE_URL: other.baseUrl, ADMIN_TOKEN: TOKEN }), 1, new RegExp(`Unexpected answer from ${other.baseUrl}`));
    } finally {
      await other.close();
    }
  });

  it('errors of the service → exit 1 with its code and message', async () => {
    expectFailure(await runCli(['store:update', '--id', 'acct_missing', '--suspended', 'true']), 1, /NOT_FOUND \(404\): No store with id 'acct_missing'\./);
    expectFailure(await runCli(['product:attach-license', '--id', 'prod_test_missing']), 1, /NOT_FOUND \(404\): No product with id 'prod_test_missing' in any store\./);
    expectFailure(await runCli(['product:attach-file', '--id', 'prod_test_missing', '--url', 'ftp://x/y']), 1, /BAD_REQUEST \(400\): url: must be an absolute http\(s\) URL/);
    expectFailure(await runCli(['store:create', '--name', '   ']), 1, /BAD_REQUEST \(400\): name: /);
    const store = expectJson(await runCli(['store:create', '--name', 'Links']));
    expectFailure(
      await runCli(['store:update', '--id', store.id, '--logo-url', 'logo.png']),
      1,
      /^Error: BAD_REQUEST \(400\): logoUrl \(--logo-url\) must be an absolute http\(s\) URL of at most 2000 characters, or "" to remove it\.$/m,
    );
  });
});
