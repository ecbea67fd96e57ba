import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as adminRoute } from '@/app/api/admin/trpc/[trpc]/route';
import { getApiHandler, getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import { freePort, serviceStorage } from '../support/production-server';

/**
 * The process-wide app (server/app.ts) as the route handlers get it, configured from the
 * environment: a start that fails (the database unreachable for a moment) must not stay cached.
 */
const saved = { ...process.env };
let storage: Awaited<ReturnType<typeof serviceStorage>>;

beforeAll(async () => {
  // A temporary data dir (PGlite), and on PostgreSQL an empty database that the retried start migrates.
  storage = await serviceStorage('start-retry', { fresh: true });
  Object.assign(process.env, { DATA_DIR: storage.env.DATA_DIR, AUTH_SECRET: 'test-auth-secret', ADMIN_TOKEN: 'adm_test_token', BACKGROUND_WORK: 'false' });
});

afterAll(async () => {
  await closeAppServices();
  process.env = saved;
  await storage.cleanup();
});

function useDatabase(url: string | undefined) {
  if (url) process.env.DATABASE_URL = url;
  else delete process.env.DATABASE_URL;
}

const unauthenticatedAdminCall = () =>
  new Request('http://localhost/api/admin/trpc/store.create', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '2' }, body: '{}' });

describe('a failed first start is retried', () => {
  it('a start that fails (database unreachable) is forgotten: the next request starts again and succeeds', async () => {
    useDatabase(`postgres://postgres@127.0.0.1:${await freePort()}/unreachable`);
    // Callers during one start share it, and its failure.
    const [first, second] = [getAppServices(), getAppServices()];
    await expect(first).rejects.toThrow();
    await expect(second).rejects.toThrow();
    await expect(getApiHandler()).rejects.toThrow();
    await expect(adminRoute(unauthenticatedAdminCall())).rejects.toThrow();

    useDatabase(storage.env.DATABASE_URL);
    const services = await getAppServices();
    expect(services.config.databaseUrl).toBe(storage.env.DATABASE_URL);
    await expect(getAppServices()).resolves.toBe(services);
    const api = await getApiHandler();
    const response = await api(new Request('http://localhost/api/v1/products'));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
    const admin = await adminRoute(unauthenticatedAdminCall());
    expect(admin.status).toBe(401);
    // Opens and migrates a database in the test itself: as long as a hook may take.
  }, 120_000);
});
