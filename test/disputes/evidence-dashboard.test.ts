import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as liveEvidence } from '@/app/dashboard/disputes/[id]/evidence.pdf/route';
import { GET as testEvidence } from '@/app/dashboard/test/disputes/[id]/evidence.pdf/route';
import { signIn } from '@/app/dashboard/auth';
import type { MemberRole } from '@/db/schema';
import { createApiHandler, getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import type { Services } from '@/server/context';
import { createStore } from '@/server/stores/service';
import { createResetLink, inviteUser, setPasswordWithLink, signInProof, signInWithPassword } from '@/server/users/service';
import { pdfPages } from '../invoices/support';
import { createTestDatabase } from '../support/database';
import { serveFetchHandler } from '../support/server';
import { DISPUTE_CARDS, serveCustomerSide } from './support';

/**
 * The dashboard's evidence pack routes as a signed-in member requests them: owners, admins and
 * support get the PDF, other roles 403; a dispute of the other mode or another store is 404.
 * Outside Next there is no request scope for next/headers: the test supplies the request's
 * headers (the session cookie next-auth set at sign-in) and keeps the cookies an action sets.
 */
const requestScope = vi.hoisted(() => ({ headers: new Headers(), set: [] as { name: string; value: string }[] }));
vi.mock('next/headers', () => ({
  headers: async () => requestScope.headers,
  cookies: async () => ({
    get: () => undefined,
    getAll: () => [],
    has: () => false,
    set: (name: string, value: string) => requestScope.set.push({ name, value }),
  }),
}));

const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'evidence password 2026';
const saved = { ...process.env };
let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let services: Services;
let api: { baseUrl: string; close(): Promise<void> };
let customer: Awaited<ReturnType<typeof serveCustomerSide>>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'dispute-evidence-'));
  if (process.env.DATABASE_URL) database = await createTestDatabase();
  Object.assign(process.env, { DATA_DIR: dataDir, AUTH_SECRET: 'evidence-auth-secret', BACKGROUND_WORK: 'false', PUBLIC_BASE_URL: ORIGIN });
  if (database) process.env.DATABASE_URL = database.url;
  services = await getAppServices();
  api = await serveFetchHandler(createApiHandler(services));
  customer = await serveCustomerSide(services);
}, 120_000);

afterAll(async () => {
  await Promise.all([api.close(), customer.close()]);
  await closeAppServices();
  process.env = saved;
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function call(key: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${api.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A store whose test payment was disputed (paid on the hosted page with a dispute card): its id and the dispute's. */
async function disputedStore(name: string) {
  const store = await createStore(services.db, { name });
  const key = store.keys.sk_test;
  const product = await call(key, 'POST', '/api/v1/products', { name: 'Atlas', amount: 1000 });
  const session = await call(key, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'reader@example.com' });
  expect((await customer.pay(session.body.url, DISPUTE_CARDS.fraudulent)).status).toBe(303);
  const order = await call(key, 'GET', `/api/v1/orders/${session.body.order_id}`);
  return { storeId: store.id, disputeId: order.body.dispute_id as string };
}

/** A person of `role` in the store, signed in: the cookie header their browser sends. */
async function signedIn(storeId: string, role: MemberRole): Promise<string> {
  const email = `${role}-${storeId.slice(-6).toLowerCase()}@example.com`;
  await inviteUser(services, { storeId, email, role, accepted: true });
  await setPasswordWithLink(services, (await createResetLink(services, email)).token, PASSWORD);
  const checked = await signInWithPassword(services, { email, password: PASSWORD, ip: '203.0.113.9' });
  if (!checked.ok) throw new Error(checked.reason);
  requestScope.headers = new Headers({ host: 'localhost:3000', 'x-forwarded-for': '203.0.113.9' });
  requestScope.set = [];
  await signIn('credentials', { proof: signInProof(services, checked.user), code: '', redirect: false });
  return requestScope.set.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}

/** The route's answer to the person with `cookie`. */
async function requestAs(cookie: string, route: typeof testEvidence, disputeId: string) {
  requestScope.headers = new Headers({ host: 'localhost:3000', cookie });
  return route(new Request(`${ORIGIN}/dashboard`), { params: Promise.resolve({ id: disputeId }) });
}

describe('/dashboard/test/disputes/<id>/evidence.pdf', () => {
  it('owners, admins and support get the pack; developers and viewers 403; the live route, and another store’s member, 404', async () => {
    const { storeId, disputeId } = await disputedStore('Harbour Atlases');
    const owner = await signedIn(storeId, 'owner');
    const cookies = { owner, admin: await signedIn(storeId, 'admin'), support: await signedIn(storeId, 'support') };
    for (const role of ['owner', 'admin', 'support'] as const) {
      const response = await requestAs(cookies[role], testEvidence, disputeId);
      expect(response.status, role).toBe(200);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'content-type': 'application/pdf',
        'content-disposition': `inline; filename="evidence-${disputeId}.pdf"`,
        'cache-control': 'no-store',
      });
      const [page] = await pdfPages(Buffer.from(await response.arrayBuffer()));
      expect(page).toContain(`Dispute evidence Dispute ${disputeId}`);
    }
    for (const role of ['developer', 'viewer'] as const) {
      const response = await requestAs(await signedIn(storeId, role), testEvidence, disputeId);
      expect(response.status, role).toBe(403);
      expect(await response.text()).toBe('Your role may not answer disputes.\n');
    }
    const live = await requestAs(owner, liveEvidence, disputeId);
    expect(live.status).toBe(404);
    expect(await live.text()).toBe('No such dispute.\n');
    const other = await disputedStore('Other Atlases');
    const stranger = await requestAs(await signedIn(other.storeId, 'owner'), testEvidence, disputeId);
    expect(stranger.status).toBe(404);
    expect((await requestAs(await signedIn(other.storeId, 'support'), testEvidence, other.disputeId)).status).toBe(200);
  }, 120_000);
});
