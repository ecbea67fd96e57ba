import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '@/server/clock';
import { loadConfig, type Config } from '@/server/config';
import type { Services } from '@/server/context';
import { createGateways } from '@/server/gateway';
import { createApiHandler } from '@/server/app';
import { createRateLimits } from '@/server/rate-limit/service';
import { createTestDatabase } from './database';

export interface TestClock extends Clock {
  set(date: Date): void;
  advance(seconds: number): void;
}

export function createTestClock(start = new Date()): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = date.getTime();
    },
    advance: (seconds) => {
      current += seconds * 1000;
    },
  };
}

/** Serves a fetch-style handler over real HTTP on a loopback port, as `next start` would. */
export async function serveFetchHandler(handler: (request: Request) => Promise<Response>): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
      else if (value !== undefined) headers.set(name, value);
    }
    // Like scripts/serve.ts: the client address comes from the socket unless a test sets it.
    if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', req.socket.remoteAddress ?? 'unknown');
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(new URL(req.url ?? '/', origin), {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      duplex: 'half',
    } as RequestInit);
    const response = await handler(request);
    // Each cookie its own Set-Cookie header, as a browser must receive them.
    const cookies = response.headers.getSetCookie();
    res.writeHead(response.status, { ...Object.fromEntries(response.headers), ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

export interface TestApi {
  baseUrl: string;
  services: Services;
  clock: TestClock;
  /** `fetch` against the API with JSON in and out. */
  request(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
}

/**
 * For a test file: a fresh database, the real API handler over HTTP, and a test clock.
 * Rate limits are set high unless the test passes its own config.
 */
export function useTestApi(overrides: Partial<Config> = {}): TestApi {
  const api = {} as TestApi;
  let teardown: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const database = await createTestDatabase();
    const base = loadConfig({});
    const config: Config = {
      ...base,
      databaseUrl: database.url,
      authSecret: 'test-auth-secret',
      rateLimits: { perIp: 100_000, perKey: 100_000, productWritesPerKey: 100_000, windowSeconds: 1 },
      ...overrides,
    };
    const clock = createTestClock();
    const services: Services = {
      db: database.db,
      clock,
      config,
      rateLimits: createRateLimits(config.rateLimits, database.driver === 'postgres' ? { db: database.db } : undefined),
      gateways: createGateways({ db: database.db, clock, config }),
    };
    const server = await serveFetchHandler(createApiHandler(services));
    Object.assign(api, {
      baseUrl: server.baseUrl,
      services,
      clock,
      async request(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
        const headers: Record<string, string> = { ...options.headers };
        if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
        let body: string | undefined;
        if (options.body !== undefined) {
          body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
          headers['content-type'] ??= 'application/json';
        }
        const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body });
        const text = await response.text();
        let parsed: unknown = text;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          // Non-JSON bodies are returned as text so a test can assert on them.
        }
        return { status: response.status, body: parsed, headers: response.headers };
      },
    });
    teardown = async () => {
      await server.close();
      await database.close();
    };
  }, 60_000);
  afterAll(() => teardown(), 60_000);
  return api;
}
