import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService as startProductionService, stopService, type Service } from '../support/production-server';

/**
 * End to end: the real `npm start` (a production build, made only when missing or
 * stale), on PGlite in a temporary DATA_DIR, or on a fresh database when DATABASE_URL is set.
 */
// The per-IP limit is lowered so that one test can show a client cannot pick its own address.
const PER_IP_LIMIT = 40;

let port = 0;
let env = {} as NodeJS.ProcessEnv;
let cleanupStorage: () => Promise<void> = async () => {};
let service: Service;
let keys: Record<'sk_test' | 'pk_test' | 'sk_live' | 'pk_live', string>;

const startService = () => startProductionService(env);

async function api(method: string, route: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`http://127.0.0.1:${port}${route}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  return { status: response.status, body: await response.json() };
}

/** `npm run admin` with only what `npm start` was given: its PORT and DATA_DIR. */
function runAdmin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', 'admin', '--', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A product create whose body is held back after its first half: `sent` once the service has the
 * headers, `finish` sends the rest, `answer` is the status.
 */
function startSlowProductCreate(key: string, name: string) {
  const body = JSON.stringify({ name, amount: 700 });
  const half = Math.floor(body.length / 2);
  const request = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/products',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<number>((resolve, reject) => {
    request.once('response', (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode!));
    });
    request.once('error', reject);
  });
  const sent = new Promise<void>((resolve) => request.write(body.slice(0, half), () => resolve()));
  return { sent, answer, finish: () => request.end(body.slice(half)) };
}

beforeAll(async () => {
  port = await freePort();
  const storage = await serviceStorage('npm-start', { fresh: true });
  cleanupStorage = storage.cleanup;
  env = serviceEnv({
    ...storage.env,
    PORT: String(port),
    RATE_LIMIT_PER_IP: String(PER_IP_LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: '600',
  });
  // The defaults of npm start's own settings are under test, whatever the developer's shell sets.
  delete env.NODE_HEAP_MB;
  delete env.MALLOC_MMAP_THRESHOLD_;
  service = await startService();
}, START_TIMEOUT_MS + 30_000);

afterAll(async () => {
  if (service) await stopService(service);
  await cleanupStorage();
}, 60_000);

describe('npm start', () => {
  it('prints the demo store’s four keys', () => {
    const printed = Object.fromEntries([...service.output().matchAll(/^ {2}(sk_test|pk_test|sk_live|pk_live) {2}(\S+)$/gm)].map((match) => [match[1], match[2]]));
    expect(printed).toEqual({
      sk_test: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
      pk_test: expect.stringMatching(/^pk_test_[0-9A-Za-z]{32}$/),
      sk_live: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
      pk_live: expect.stringMatching(/^pk_live_[0-9A-Za-z]{32}$/),
    });
    keys = printed as typeof keys;
    expect(service.output()).toContain('Created "Demo Store"');
  });

  it("the server runs with the heap ceiling NODE_HEAP_MB defaults to (256 MB), not Node's quarter of the machine, and hands the compilers' freed memory back", () => {
    const processes = execFileSync('ps', ['-o', 'pid=,args=', '-g', String(service.child.pid)])
      .toString()
      .trim()
      .split('\n')
      .map((line) => {
        const [pid, ...args] = line.trim().split(' ');
        return { pid: pid!, args: args.join(' ') };
      });
    const server = processes.filter(({ args }) => args.startsWith('node ') && args.includes('scripts/start.mjs'));
    expect(server.map(({ args }) => args)).toEqual(['node --max-old-space-size=256 scripts/start.mjs']);
    expect(readFileSync(`/proc/${server[0]!.pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_MMAP_THRESHOLD_=32768');
  });

  it('serves the landing page and the API: create and list a product with the printed sk_test', async () => {
    const home = await fetch(`http://127.0.0.1:${port}/`);
    expect(home.status).toBe(200);
    // Where a newcomer goes next, each with a line on what is there.
    const landing = await home.text();
    for (const href of ['/demo', '/dashboard', '/docs', '/api/v1/openapi.json']) expect(landing).toContain(`href="${href}"`);
    expect(landing).toContain('buy with a test card');

    const created = await api('POST', '/api/v1/products', { key: keys.sk_test, body: { name: 'E2E ebook', amount: 1500 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'product', name: 'E2E ebook', amount: 1500, livemode: false });
    const listed = await api('GET', '/api/v1/products', { key: keys.sk_test });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((product: { name: string }) => product.name)).toEqual(['E2E ebook', 'Demo monthly membership', 'Demo video course', 'Demo ebook']);
  });

  it('npm run admin -- store:create works against it with zero configuration', async () => {
    const result = await runAdmin(['store:create', '--name', 'X']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const store = JSON.parse(result.stdout);
    expect(store).toMatchObject({ id: expect.stringMatching(/^acct_/), name: 'X', flags: { suspended: false, live_api: true } });
    const ownProducts = await api('GET', '/api/v1/products', { key: store.keys.sk_live });
    expect(ownProducts).toEqual({ status: 200, body: expect.objectContaining({ object: 'list', data: [], has_more: false }) });
  });

  it(
    'SIGTERM to the npm process answers the requests in flight, then npm exits 0 and leaves no process; a restart keeps the data and prints no keys',
    async () => {
      // Requests the service is reading when the signal comes: their bodies arrive only after it.
      const inFlight = Array.from({ length: 3 }, (_, index) => startSlowProductCreate(keys.sk_test, `In flight ${index}`));
      await Promise.all(inFlight.map((request) => request.sent));
      // Time for the service to accept the connections and read the headers.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const stoppedAt = Date.now();
      const stopped = stopService(service);
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const request of inFlight) request.finish();
      expect(await Promise.all(inFlight.map((request) => request.answer))).toEqual([201, 201, 201]);
      expect(await stopped).toBe(0);
      console.log(`stopped after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);
      expect(service.output()).toContain('SIGTERM: finishing requests in flight, then stopping.');
      expect(service.output()).toContain('Stopped.');

      // Files written from the sources (the committed OpenAPI document, the generated declarations
      // a test run rewrites) never call for a new build.
      const now = new Date();
      for (const written of ['openapi/openapi.json', 'packages/webhooks/events.d.ts']) await utimes(path.join(ROOT, written), now, now);
      service = await startService();
      expect(service.output()).not.toContain('Building (');
      expect(service.output()).not.toMatch(/(sk|pk)_(test|live)_[0-9A-Za-z]{32}/);
      const listed = await api('GET', '/api/v1/products', { key: keys.sk_test });
      expect(listed.status).toBe(200);
      const names = listed.body.data.map((product: { name: string }) => product.name);
      // The three in flight were answered in no set order.
      expect(names.slice(0, 3).sort()).toEqual(['In flight 0', 'In flight 1', 'In flight 2']);
      expect(names.slice(3)).toEqual(['E2E ebook', 'Demo monthly membership', 'Demo video course', 'Demo ebook']);
    },
    START_TIMEOUT_MS,
  );

  it(
    'logs one JSON object per line through a pipe and short lines for people at a terminal; Next’s telemetry stays off',
    async () => {
      const piped = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      expect(piped.map((line) => JSON.parse(line))).toContainEqual(expect.objectContaining({ level: 'info', msg: expect.any(String), time: expect.any(String) }));
      const storage = await serviceStorage('npm-start-terminal');
      const terminalPort = await freePort();
      const atTerminal = await startProductionService(serviceEnv({ ...storage.env, PORT: String(terminalPort) }), { terminal: true });
      try {
        await fetch(`http://127.0.0.1:${terminalPort}/api/v1/products`);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const output = atTerminal.output();
        expect(output).toMatch(/^\d\d:\d\d:\d\d INFO {2}\S/m);
        expect(output).toMatch(/^\d\d:\d\d:\d\d INFO {2}request request_id=\S+ method=GET route=\/api\/v1\/products status=401 duration_ms=\d+/m);
        expect(output).not.toMatch(/^\{"/m);
        for (const text of [output, service.output()]) expect(text).not.toMatch(/telemetry/i);
      } finally {
        process.kill(-atTerminal.child.pid!, 'SIGTERM');
        await atTerminal.exited;
        await storage.cleanup();
      }
    },
    START_TIMEOUT_MS,
  );

  it('a client-sent X-Forwarded-For does not escape the per-IP limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PER_IP_LIMIT + 5; i++) {
      const response = await api('GET', '/api/v1/products?limit=1', { key: keys.sk_test, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
  });
});
