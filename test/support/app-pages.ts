import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NextRequest } from 'next/server';
import { afterAll, beforeAll, expect } from 'vitest';
import { getApiHandler, getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import type { Services } from '@/server/context';
import { createTestDatabase } from './database';
import { createStore } from './factories';

/**
 * The app singleton that proxy.ts and the pages share, for a file that renders hosted pages as Next
 * serves them: its own data directory, and on PostgreSQL a database of its own; one store that
 * sells subscriptions. The file mocks `next/headers` itself (the mock is hoisted per file).
 */
export function useAppPages(name: string) {
  const saved = { ...process.env };
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const app = {} as { services: Services; store: { id: string; keys: { sk_test: string } } };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), `${name}-`));
    if (process.env.DATABASE_URL) database = await createTestDatabase();
    Object.assign(process.env, { DATA_DIR: dataDir, AUTH_SECRET: 'test-auth-secret', BACKGROUND_WORK: 'false', SUBSCRIPTIONS_ENABLED: 'true' });
    if (database) process.env.DATABASE_URL = database.url;
    app.services = await getAppServices();
    app.store = await createStore(app.services, { subscriptions: true });
  }, 120_000);

  afterAll(async () => {
    await closeAppServices();
    process.env = saved;
    await database?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** A create through the API with the store's test key: the created object. */
  async function post(route: string, body: unknown) {
    const response = await (await getApiHandler())(
      new Request(`http://localhost/api/v1${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.store.keys.sk_test}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    const created = await response.json();
    expect(response.status, JSON.stringify(created)).toBe(201);
    return created;
  }

  return Object.assign(app, { post });
}

/** The request headers Next renders the page with after the proxy's response. */
export function pageRequestHeaders(request: NextRequest, proxied: Response): Headers {
  const overridden = proxied.headers.get('x-middleware-override-headers');
  if (overridden === null) return new Headers(request.headers);
  const headers = new Headers();
  for (const name of overridden.split(',')) headers.set(name, proxied.headers.get(`x-middleware-request-${name}`) ?? '');
  return headers;
}
