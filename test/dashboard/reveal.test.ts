import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REVEAL_COOKIE, revealOnNextView, takeRevealed } from '@/app/dashboard/reveal';
import { getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import type { Services } from '@/server/context';
import { proxy } from '@/proxy';
import { createTestDatabase } from '../support/database';

/**
 * A secret shown once travels to its page in a sealed cookie that proxy.ts opens. Outside Next
 * there is no request scope for next/headers: the test supplies the page's request headers and
 * keeps the cookie an action sets.
 */
const requestScope = vi.hoisted(() => ({ headers: new Headers(), cookie: '' }));
vi.mock('next/headers', () => ({
  headers: async () => requestScope.headers,
  cookies: async () => ({ set: (cookie: { value: string }) => (requestScope.cookie = cookie.value) }),
}));

const HANDOFF_HEADER = 'x-middleware-request-x-hosted-page-handoff';
/** What proxy.ts keeps in this process for the pages it hands on to. */
const keptForPages = () => (globalThis as { __hostedPageHandoffs?: Map<string, unknown> }).__hostedPageHandoffs?.size ?? 0;

const saved = { ...process.env };
let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let services: Services;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'dashboard-reveal-'));
  if (process.env.DATABASE_URL) database = await createTestDatabase();
  Object.assign(process.env, { DATA_DIR: dataDir, AUTH_SECRET: 'reveal-auth-secret', BACKGROUND_WORK: 'false' });
  if (database) process.env.DATABASE_URL = database.url;
  services = await getAppServices();
}, 120_000);

afterAll(async () => {
  await closeAppServices();
  process.env = saved;
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A signed-in visitor's GET of a dashboard page with the reveal cookie, through proxy.ts. */
function view(pagePath: string, revealed: string) {
  return proxy(new NextRequest(`http://localhost:3000${pagePath}`, { headers: { cookie: `authjs.session-token=session; ${REVEAL_COOKIE}=${revealed}` } }));
}

/** The request headers Next renders the page with after the proxy's response. */
function pageHeaders(proxied: Response): Headers {
  const headers = new Headers();
  for (const name of (proxied.headers.get('x-middleware-override-headers') ?? '').split(',').filter(Boolean)) headers.set(name, proxied.headers.get(`x-middleware-request-${name}`) ?? '');
  return headers;
}

const deletesCookie = (proxied: Response) => expect(proxied.headers.get('set-cookie')).toMatch(new RegExp(`^${REVEAL_COOKIE}=;.*Max-Age=0`, 'i'));

describe('the reveal cookie', () => {
  it('a forged one is dropped by proxy.ts: deleted, and nothing kept for the page', async () => {
    const before = keptForPages();
    for (const forged of [`api_key:v1.${'A'.repeat(16)}.${'B'.repeat(3000)}.${'C'.repeat(22)}`, 'api_key:not sealed', `webhook_secret:${'x'.repeat(3500)}`, 'nonsense']) {
      const proxied = await view('/dashboard/api-keys', forged);
      expect(proxied.headers.get(HANDOFF_HEADER)).toBeNull();
      deletesCookie(proxied);
    }
    expect(keptForPages()).toBe(before);
  });

  it('a genuine one is handed to its page once, for its person only; on another page or past its two minutes it is dropped too', async () => {
    await revealOnNextView(services, '/dashboard/api-keys', 'api_key', 'user_ann', 'sk_test_shownonce');
    const genuine = requestScope.cookie;
    expect(genuine).toMatch(/^api_key:v1\./);
    expect(genuine).not.toContain('sk_test_shownonce');

    const proxied = await view('/dashboard/api-keys', genuine);
    expect(proxied.headers.get(HANDOFF_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    deletesCookie(proxied);
    requestScope.headers = pageHeaders(proxied);
    expect(await takeRevealed('api_key', 'user_ann')).toBe('sk_test_shownonce');
    expect(await takeRevealed('api_key', 'user_ann')).toBeUndefined();
    // Another person's rendering with the same hand-off gets nothing.
    requestScope.headers = pageHeaders(await view('/dashboard/api-keys', genuine));
    expect(await takeRevealed('api_key', 'user_bob')).toBeUndefined();

    const before = keptForPages();
    expect((await view('/dashboard/orders', genuine)).headers.get(HANDOFF_HEADER)).toBeNull();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.advanceTimersByTime(121_000);
      expect((await view('/dashboard/api-keys', genuine)).headers.get(HANDOFF_HEADER)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
    expect(keptForPages()).toBeLessThanOrEqual(before);
  });
});
