import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { asc, eq } from 'drizzle-orm';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { auditEvents, products } from '@/db/schema';
import { ADMIN_ENDPOINT } from '@/server/admin/constants';
import { createAdminHandler } from '@/server/admin/handler';
import type { AdminRouter } from '@/server/admin/router';
import { randomBase62 } from '@/server/ids';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { uniqueSku } from '../support/factories';
import { serveFetchHandler, useTestApi } from '../support/server';

const api = useTestApi();
const TOKEN = `adm_${randomBase62(40)}`;
let adminUrl = '';
let closeAdmin: () => Promise<void> = async () => {};

beforeAll(async () => {
  const server = await serveFetchHandler(createAdminHandler(api.services, TOKEN));
  adminUrl = `${server.baseUrl}${ADMIN_ENDPOINT}`;
  closeAdmin = server.close;
});
afterAll(() => closeAdmin());

let ipCounter = 0;
/** A fresh client address per call, so a test finds its own audit rows. */
const freshIp = () => `198.51.100.${++ipCounter}`;

function adminClient({ token = TOKEN as string | null, ip = freshIp() } = {}) {
  return createTRPCClient<AdminRouter>({
    links: [
      httpLink({
        url: adminUrl,
        headers: () => ({ 'x-forwarded-for': ip, ...(token === null ? {} : { authorization: `Bearer ${token}` }) }),
      }),
    ],
  });
}

async function rejection(promise: Promise<unknown>): Promise<TRPCClientError<AdminRouter>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AdminRouter>;
}

const defaultFlags = { suspended: false, live_api: true, amount_mode: false, tax_calculation: false, subscriptions: false };
const KEY = /^(sk|pk)_(test|live)_[0-9A-Za-z]{32}$/;

async function createProduct(key: string, body: Record<string, unknown> = {}) {
  const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'Ebook', amount: 1999, sku: uniqueSku(), ...body } });
  expect(created.status).toBe(201);
  return created.body;
}

describe('admin token', () => {
  it('no Authorization header → UNAUTHORIZED, audited as admin_token_missing', async () => {
    const ip = freshIp();
    const error = await rejection(adminClient({ token: null, ip }).store.create.mutate({ name: 'Nope' }));
    expect(error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    const rows = await api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip));
    expect(rows).toEqual([expect.objectContaining({ action: 'admin.auth_failed', code: 'admin_token_missing', method: 'POST', path: `${ADMIN_ENDPOINT}/store.create`, storeId: null, keyHint: null })]);
  });

  it('wrong token, or the right one under another scheme → UNAUTHORIZED, audited, token never stored', async () => {
    const wrong = `adm_${randomBase62(40)}`;
    for (const [authorization, code] of [
      [`Bearer ${wrong}`, 'admin_token_invalid'],
      [`Bearer ${TOKEN.slice(0, -1)}`, 'admin_token_invalid'],
      [`Basic ${TOKEN}`, 'admin_token_missing'],
      [TOKEN, 'admin_token_missing'],
    ] as const) {
      const ip = freshIp();
      const response = await fetch(`${adminUrl}/store.create`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ name: 'Nope' }),
      });
      expect(response.status).toBe(401);
      const body = await response.json();
      expect(body.error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
      const rows = await api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ action: 'admin.auth_failed', code });
    }
    const trail = JSON.stringify(await api.services.db.select().from(auditEvents));
    expect(trail).not.toContain(TOKEN.slice(4));
    expect(trail).not.toContain(wrong.slice(4));
  });

  it('a handler without a configured token refuses every call', async () => {
    const server = await serveFetchHandler(createAdminHandler(api.services, undefined));
    try {
      const client = createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${server.baseUrl}${ADMIN_ENDPOINT}`, headers: { authorization: 'Bearer undefined' } })] });
      const error = await rejection(client.store.create.mutate({ name: 'Nope' }));
      expect(error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    } finally {
      await server.close();
    }
  });

  it('a body over 16 KiB → PAYLOAD_TOO_LARGE before anything runs', async () => {
    const response = await fetch(`${adminUrl}/store.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(20_000) }),
    });
    expect(response.status).toBe(413);
    expect((await response.json()).error.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
  });

  it('the admin router is not part of the public API nor of its document', async () => {
    const document = JSON.stringify(buildOpenApiDocument('http://localhost:3000'));
    expect(document).toContain('/products');
    expect(document).not.toMatch(/admin|attachLicense|attachFile|store\.create/i);
    const viaPublic = await api.request('POST', '/api/v1/store.create', { key: 'sk_test_000000000000000000000000', body: { name: 'x' } });
    expect(viaPublic.status).toBe(404);
  });
});

describe('store.create', () => {
  it('returns id, name, the four keys and default flags; the keys work on the public API', async () => {
    const store = await adminClient().store.create.mutate({ name: 'Acme Books' });
    expect(store).toEqual({
      id: expect.stringMatching(/^acct_[0-9A-Za-z]{24}$/),
      name: 'Acme Books',
      keys: {
        sk_test: expect.stringMatching(/^sk_test_/),
        pk_test: expect.stringMatching(/^pk_test_/),
        sk_live: expect.stringMatching(/^sk_live_/),
        pk_live: expect.stringMatching(/^pk_live_/),
      },
      flags: defaultFlags,
      tax_mode: 'product_rate',
      created: expect.any(Number),
    });
    for (const key of Object.values(store.keys)) expect(key).toMatch(KEY);
    expect(Math.abs(store.created - Date.now() / 1000)).toBeLessThan(60);

    const testProduct = await createProduct(store.keys.sk_test);
    expect(testProduct.livemode).toBe(false);
    const liveProduct = await createProduct(store.keys.sk_live);
    expect(liveProduct.livemode).toBe(true);
    const wrongType = await api.request('GET', `/api/v1/products/${testProduct.id}`, { key: store.keys.pk_test });
    expect(wrongType.status).toBe(401);
    expect(wrongType.body.error.code).toBe('wrong_key_type');

    // The store's first entry: its creation (the refused key above comes after it).
    const [audit] = await api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, store.id)).orderBy(asc(auditEvents.id)).limit(1);
    expect(audit).toMatchObject({ action: 'admin.store.create', details: { flags: defaultFlags, tax_mode: 'product_rate' } });
    expect(JSON.stringify(audit)).not.toContain(store.keys.sk_test);
  });

  it('sets amount_mode, tax_calculation and subscriptions when asked', async () => {
    const store = await adminClient().store.create.mutate({ name: 'Flags', amountMode: true, taxCalculation: true, subscriptions: true });
    expect(store.flags).toEqual({ ...defaultFlags, amount_mode: true, tax_calculation: true, subscriptions: true });
  });

  it('an empty name or an unknown field → BAD_REQUEST', async () => {
    expect((await rejection(adminClient().store.create.mutate({ name: '  ' }))).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    const unknown = adminClient().store.create.mutate({ name: 'X', suspended: true } as never);
    expect((await rejection(unknown)).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });
});

describe('store.update', () => {
  it('suspended → live secret key 403 account_suspended, test key keeps working; and back', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Suspend me' });
    const updated = await admin.store.update.mutate({ id: store.id, suspended: true });
    expect(updated).toEqual({
      id: store.id,
      name: 'Suspend me',
      flags: { ...defaultFlags, suspended: true },
      tax_mode: 'product_rate',
      logo_url: null,
      terms_url: null,
      privacy_url: null,
      language: 'en',
      fees: { percent: 5, fixed: 50 },
      created: store.created,
    });

    const live = await api.request('GET', '/api/v1/products/prod_live_000000000000000000000000', { key: store.keys.sk_live });
    expect(live.status).toBe(403);
    expect(live.body.error).toMatchObject({ type: 'invalid_request_error', code: 'account_suspended' });
    await createProduct(store.keys.sk_test);

    const restored = await admin.store.update.mutate({ id: store.id, suspended: false });
    expect(restored.flags).toEqual(defaultFlags);
    await createProduct(store.keys.sk_live);

    const audits = await api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, store.id)).orderBy(asc(auditEvents.id));
    expect(audits.filter((row) => row.action === 'admin.store.update').map((row) => row.details)).toEqual([{ changes: { suspended: true } }, { changes: { suspended: false } }]);
  });

  it('live_api false → 403 capability_disabled on live keys only', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'No live' });
    const updated = await admin.store.update.mutate({ id: store.id, liveApi: false });
    expect(updated.flags).toEqual({ ...defaultFlags, live_api: false });
    const live = await api.request('POST', '/api/v1/products', { key: store.keys.sk_live, body: { name: 'X', amount: 100 } });
    expect(live.status).toBe(403);
    expect(live.body.error).toMatchObject({ type: 'invalid_request_error', code: 'capability_disabled' });
    await createProduct(store.keys.sk_test);
  });

  it('switches several flags at once and leaves the others alone', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Many', subscriptions: true });
    const updated = await admin.store.update.mutate({ id: store.id, amountMode: true, taxCalculation: true, liveApi: false });
    expect(updated.flags).toEqual({ suspended: false, live_api: false, amount_mode: true, tax_calculation: true, subscriptions: true });
    const again = await admin.store.update.mutate({ id: store.id, subscriptions: false });
    expect(again.flags).toEqual({ suspended: false, live_api: false, amount_mode: true, tax_calculation: true, subscriptions: false });
  });

  it('tax mode: buyer_country on create or update, back to product_rate, shown beside the flags and in store.list; audited', async () => {
    const admin = adminClient();
    const created = await admin.store.create.mutate({ name: 'Buyer country', taxMode: 'buyer_country' });
    expect(Object.keys(created)).toEqual(['id', 'name', 'keys', 'flags', 'tax_mode', 'created']);
    expect(created.tax_mode).toBe('buyer_country');
    const [creation] = await api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, created.id)).orderBy(asc(auditEvents.id)).limit(1);
    expect(creation).toMatchObject({ action: 'admin.store.create', details: { flags: defaultFlags, tax_mode: 'buyer_country' } });

    const store = await admin.store.create.mutate({ name: 'Switching' });
    const switched = await admin.store.update.mutate({ id: store.id, taxMode: 'buyer_country' });
    expect(Object.keys(switched)).toEqual(['id', 'name', 'flags', 'tax_mode', 'logo_url', 'terms_url', 'privacy_url', 'language', 'fees', 'created']);
    expect(switched).toMatchObject({ flags: defaultFlags, tax_mode: 'buyer_country' });
    expect((await admin.store.list.query()).data.find((listed) => listed.id === store.id)).toEqual(switched);
    const back = await admin.store.update.mutate({ id: store.id, taxMode: 'product_rate', subscriptions: true });
    expect(back).toMatchObject({ flags: { ...defaultFlags, subscriptions: true }, tax_mode: 'product_rate' });
    const audits = await api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, store.id)).orderBy(asc(auditEvents.id));
    expect(audits.filter((row) => row.action === 'admin.store.update').map((row) => row.details)).toEqual([
      { changes: { taxMode: 'buyer_country' } },
      { changes: { subscriptions: true, taxMode: 'product_rate' } },
    ]);
  });

  it('a tax mode it does not know → BAD_REQUEST naming taxMode, and nothing changes', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Unknown mode' });
    for (const taxMode of ['vat', 'BUYER_COUNTRY', '', null]) {
      const refused = await rejection(admin.store.update.mutate({ id: store.id, taxMode } as never));
      expect(refused.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
      expect(refused.message).toContain('taxMode');
    }
    expect((await rejection(admin.store.create.mutate({ name: 'Never', taxMode: 'vat' } as never))).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect((await admin.store.list.query()).data.find((listed) => listed.id === store.id)?.tax_mode).toBe('product_rate');
    expect((await admin.store.list.query()).data.map((listed) => listed.name)).not.toContain('Never');
  });

  it('name, logo, terms and privacy: set, shown on the store (and in store.list), "" removes one, the others stay; audited', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Plain' });
    const branded = await admin.store.update.mutate({
      id: store.id,
      name: '  Moth & Co  ',
      logoUrl: 'https://cdn.example/moth.png',
      termsUrl: 'https://moth.example/terms',
      privacyUrl: 'http://127.0.0.1:8080/privacy',
    });
    expect(branded).toEqual({
      id: store.id,
      name: 'Moth & Co',
      flags: defaultFlags,
      tax_mode: 'product_rate',
      logo_url: 'https://cdn.example/moth.png',
      terms_url: 'https://moth.example/terms',
      privacy_url: 'http://127.0.0.1:8080/privacy',
      language: 'en',
      fees: { percent: 5, fixed: 50 },
      created: store.created,
    });
    const removed = await admin.store.update.mutate({ id: store.id, logoUrl: '' });
    expect(removed).toEqual({ ...branded, logo_url: null });
    expect((await admin.store.list.query()).data.find((listed) => listed.id === store.id)).toEqual(removed);

    const audits = await api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, store.id)).orderBy(asc(auditEvents.id));
    expect(audits.filter((row) => row.action === 'admin.store.update').map((row) => row.details)).toEqual([
      { changes: { name: 'Moth & Co', logoUrl: 'https://cdn.example/moth.png', termsUrl: 'https://moth.example/terms', privacyUrl: 'http://127.0.0.1:8080/privacy' } },
      { changes: { logoUrl: null } },
    ]);
  });

  it('a link that is not an absolute http(s) URL → BAD_REQUEST naming the field and its flag, and nothing changes', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Careful' });
    for (const [field, value] of [
      ['logoUrl', 'moth.png'],
      ['termsUrl', 'javascript:alert(1)'],
      ['privacyUrl', 'ftp://moth.example/privacy'],
      ['logoUrl', `https://cdn.example/${'a'.repeat(2000)}`],
    ] as const) {
      const refused = await rejection(admin.store.update.mutate({ id: store.id, name: 'Changed', [field]: value }));
      expect(refused.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
      const flag = { logoUrl: '--logo-url', termsUrl: '--terms-url', privacyUrl: '--privacy-url' }[field];
      expect(refused.message).toBe(`${field} (${flag}) must be an absolute http(s) URL of at most 2000 characters, or "" to remove it.`);
    }
    expect((await admin.store.list.query()).data.find((listed) => listed.id === store.id)).toMatchObject({ name: 'Careful', logo_url: null, terms_url: null, privacy_url: null });
  });

  it('a service served over https takes https links only (its pages cannot show http content)', async () => {
    const secure = await serveFetchHandler(createAdminHandler({ ...api.services, config: { ...api.services.config, publicBaseUrl: 'https://pay.example' } }, TOKEN));
    try {
      const admin = createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${secure.baseUrl}${ADMIN_ENDPOINT}`, headers: { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': freshIp() } })] });
      const store = await admin.store.create.mutate({ name: 'Secure' });
      const refused = await rejection(admin.store.update.mutate({ id: store.id, termsUrl: 'http://moth.example/terms' }));
      expect(refused.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
      expect(refused.message).toBe('termsUrl (--terms-url) must be an https URL: the hosted pages are served over https, or "" to remove it.');
      expect((await admin.store.update.mutate({ id: store.id, termsUrl: 'https://moth.example/terms' })).terms_url).toBe('https://moth.example/terms');
    } finally {
      await secure.close();
    }
  });

  it('unknown store → NOT_FOUND; no flag to change → BAD_REQUEST', async () => {
    const missing = await rejection(adminClient().store.update.mutate({ id: 'acct_000000000000000000000000', suspended: true }));
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
    expect(missing.message).toBe("No store with id 'acct_000000000000000000000000'.");
    const store = await adminClient().store.create.mutate({ name: 'Nothing' });
    expect((await rejection(adminClient().store.update.mutate({ id: store.id }))).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });
});

describe('product.attachLicense and product.attachFile (operator scope)', () => {
  it('attachLicense on any store’s product → has_license true, visible on the public API', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Licenses' });
    const product = await createProduct(store.keys.sk_live);
    const attached = await admin.product.attachLicense.mutate({ id: product.id });
    expect(attached).toEqual({ ...product, has_license: true, updated: expect.any(Number) });
    const read = await api.request('GET', `/api/v1/products/${product.id}`, { key: store.keys.sk_live });
    expect(read.body).toEqual(attached);
  });

  it('in test mode both stamp `updated` on the store’s test clock, never before `created`', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Clock' });
    const advance = (seconds: number) => api.request('POST', '/api/v1/test_helpers/advance_clock', { key: store.keys.sk_test, body: { seconds } });
    expect((await advance(3 * 3600)).status).toBe(200);
    const product = await createProduct(store.keys.sk_test);
    expect((await advance(3600)).status).toBe(200);
    const licensed = await admin.product.attachLicense.mutate({ id: product.id });
    expect(licensed.updated - product.created).toBeGreaterThanOrEqual(3600);
    const filed = await admin.product.attachFile.mutate({ id: product.id, url: 'https://files.example.com/clock.pdf' });
    expect(filed.updated).toBeGreaterThanOrEqual(licensed.updated);
  });

  it('attachFile → has_file true; the url is returned by no read and kept for delivery', async () => {
    const admin = adminClient();
    const store = await admin.store.create.mutate({ name: 'Files' });
    const product = await createProduct(store.keys.sk_test);
    const url = `https://files.example.com/${randomBase62(12)}/book.pdf`;
    const attached = await admin.product.attachFile.mutate({ id: product.id, url });
    expect(attached).toEqual({ ...product, has_file: true, updated: expect.any(Number) });
    expect(JSON.stringify(attached)).not.toContain('files.example.com');
    const read = await api.request('GET', `/api/v1/products/${product.id}`, { key: store.keys.sk_test });
    expect(read.body).toEqual(attached);
    const [row] = await api.services.db.select({ fileUrl: products.fileUrl }).from(products).where(eq(products.id, product.id));
    expect(row?.fileUrl).toBe(url);
    const trail = JSON.stringify(await api.services.db.select().from(auditEvents));
    expect(trail).toContain(product.id);
    expect(trail).not.toContain('files.example.com');
  });

  it('attachFile refuses a url that is not absolute http(s) → BAD_REQUEST', async () => {
    const store = await adminClient().store.create.mutate({ name: 'Bad urls' });
    const product = await createProduct(store.keys.sk_test);
    for (const url of ['ftp://files.example.com/a.pdf', '/relative/a.pdf', 'not a url', `https://example.com/${'a'.repeat(2100)}`]) {
      const error = await rejection(adminClient().product.attachFile.mutate({ id: product.id, url }));
      expect(error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    }
    const read = await api.request('GET', `/api/v1/products/${product.id}`, { key: store.keys.sk_test });
    expect(read.body.has_file).toBe(false);
  });

  it('unknown product → NOT_FOUND naming the id', async () => {
    const id = 'prod_test_000000000000000000000000';
    const calls = [() => adminClient().product.attachLicense.mutate({ id }), () => adminClient().product.attachFile.mutate({ id, url: 'https://example.com/a.pdf' })];
    for (const call of calls) {
      const error = await rejection(call());
      expect(error.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
      expect(error.message).toBe(`No product with id '${id}' in any store.`);
    }
  });
});
