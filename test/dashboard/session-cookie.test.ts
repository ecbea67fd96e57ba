import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { signIn } from '@/app/dashboard/auth';
import { getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import { createStore } from '@/server/stores/service';
import { createResetLink, inviteUser, setPasswordWithLink, signInProof, signInWithPassword } from '@/server/users/service';
import { createTestDatabase } from '../support/database';

/**
 * The dashboard's session cookie as next-auth sets it from the sign-in form's action. Outside Next
 * there is no request scope for next/headers: the test supplies the request's headers as Next
 * hands them to the action and keeps the cookies the action sets.
 */
interface SetCookie {
  name: string;
  value: string;
  options: { secure?: boolean; httpOnly?: boolean; sameSite?: string };
}
const requestScope = vi.hoisted(() => ({ headers: new Headers(), set: [] as SetCookie[] }));
vi.mock('next/headers', () => ({
  headers: async () => requestScope.headers,
  cookies: async () => ({
    get: () => undefined,
    getAll: () => [],
    has: () => false,
    set: (name: string, value: string, options: SetCookie['options']) => requestScope.set.push({ name, value, options }),
  }),
}));

const saved = { ...process.env };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await closeAppServices();
  process.env = { ...saved };
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  process.env = saved;
});

/** Signs a new person in through the app's next-auth with PUBLIC_BASE_URL set; the cookies it set. */
async function signInUnder(publicBaseUrl: string): Promise<SetCookie[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'session-cookie-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
  if (database) cleanups.push(() => database.close());
  Object.assign(process.env, { DATA_DIR: dataDir, AUTH_SECRET: 'session-cookie-auth-secret', BACKGROUND_WORK: 'false', PUBLIC_BASE_URL: publicBaseUrl });
  if (database) process.env.DATABASE_URL = database.url;
  const services = await getAppServices();
  const store = await createStore(services.db, { name: 'Cookies' });
  const email = 'cookie@example.com';
  await inviteUser(services, { storeId: store.id, email, role: 'viewer', accepted: true });
  await setPasswordWithLink(services, (await createResetLink(services, email)).token, 'cookie password 2026');
  const checked = await signInWithPassword(services, { email, password: 'cookie password 2026', ip: '203.0.113.9' });
  if (!checked.ok) throw new Error(checked.reason);
  // Behind a proxy that ends TLS and forwards no X-Forwarded-Proto, Next fills in the scheme of
  // its own connection: http.
  requestScope.headers = new Headers({ host: new URL(publicBaseUrl).host, 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http' });
  requestScope.set = [];
  await signIn('credentials', { proof: signInProof(services, checked.user), code: '', redirect: false });
  return requestScope.set;
}

describe('the dashboard session cookie', () => {
  it('with an https PUBLIC_BASE_URL and no X-Forwarded-Proto: Secure and __Secure- named', async () => {
    const session = (await signInUnder('https://pay.example.com')).find((cookie) => cookie.name.endsWith('authjs.session-token'));
    expect(session).toMatchObject({ name: '__Secure-authjs.session-token', options: { secure: true, httpOnly: true, sameSite: 'lax' } });
  }, 60_000);

  it('with http://localhost: neither', async () => {
    const session = (await signInUnder('http://localhost:3000')).find((cookie) => cookie.name.endsWith('authjs.session-token'));
    expect(session).toMatchObject({ name: 'authjs.session-token', options: { secure: false, httpOnly: true, sameSite: 'lax' } });
  }, 60_000);
});
