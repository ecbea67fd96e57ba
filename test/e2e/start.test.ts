import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '@/server/ids';

/**
 * CONTRACT 1 end to end: the real `npm start` (a production build, made only when missing or
 * stale), on PGlite in a temporary DATA_DIR, or on a fresh database when DATABASE_URL is set.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const READY = /Payments service ready on http:\/\/localhost:(\d+)/;
// A `next build` takes one to two minutes here; a start without one a few seconds.
const START_TIMEOUT_MS = 540_000;
// The per-IP limit is lowered so that one test can show a client cannot pick its own address.
const PER_IP_LIMIT = 40;

interface Service {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

let port = 0;
let dataDir = '';
let env = {} as NodeJS.ProcessEnv;
let dropDatabase: () => Promise<void> = async () => {};
let service: Service;
let keys: Record<'sk_test' | 'pk_test' | 'sk_live' | 'pk_live', string>;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
}

/** A clean environment: nothing of vitest's or of the developer's own service settings. */
function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const drop = /^(VITEST|ADMIN_TOKEN$|AUTH_SECRET$|SERVICE_URL$|PGLITE_DIR$|DATABASE_URL$|PUBLIC_BASE_URL$|RATE_LIMIT_|TRUST_PROXY$|NODE_ENV$)/;
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !drop.test(name))), ...extra } as NodeJS.ProcessEnv;
}

async function startService(): Promise<Service> {
  const started = Date.now();
  // Its own process group, so that a signal reaches npm and the node process it runs.
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (READY.test(output)) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null || Date.now() - started > START_TIMEOUT_MS) {
        clearInterval(timer);
        reject(new Error(`npm start did not become ready:\n${output}`));
      }
    }, 100);
  });
  const built = output.includes('Building (');
  console.log(`npm start ready after ${((Date.now() - started) / 1000).toFixed(1)} s (${built ? 'with' : 'without'} a next build)`);
  return { child, output: () => output, exited };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to npm and the node process it runs (as Ctrl-C would), then waits until all are gone. */
async function stopService(target: Service): Promise<void> {
  const pid = target.child.pid!;
  if (groupAlive(pid)) process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`npm start did not stop within 30 s:\n${target.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await target.exited;
}

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
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  port = await freePort();
  dataDir = await mkdtemp(path.join(tmpdir(), 'npm-start-'));
  const extra: Record<string, string> = {
    PORT: String(port),
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_IP: String(PER_IP_LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: '600',
  };
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    // An empty database, so that `npm start` itself applies the migrations.
    const name = `e2e_${randomBase62(12).toLowerCase()}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    extra.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    };
  }
  env = serviceEnv(extra);
  service = await startService();
}, START_TIMEOUT_MS + 30_000);

afterAll(async () => {
  if (service) await stopService(service);
  await dropDatabase();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('npm start (CONTRACT 1)', () => {
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

  it('serves the landing page and the API: create and list a product with the printed sk_test', async () => {
    const home = await fetch(`http://127.0.0.1:${port}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('href="/docs"');

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

  it('a client-sent X-Forwarded-For does not escape the per-IP limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PER_IP_LIMIT + 5; i++) {
      const response = await api('GET', '/api/v1/products?limit=1', { key: keys.sk_test, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
  });

  it('stops cleanly on SIGTERM; a restart keeps the data and prints no keys', async () => {
    const stoppedAt = Date.now();
    await stopService(service);
    console.log(`stopped after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);
    expect(service.output()).toContain('Stopped.');

    // Default limits again: on PostgreSQL the spent per-IP window above outlives the restart.
    env = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('RATE_LIMIT_'))) as NodeJS.ProcessEnv;
    service = await startService();
    expect(service.output()).not.toMatch(/(sk|pk)_(test|live)_[0-9A-Za-z]{32}/);
    const listed = await api('GET', '/api/v1/products', { key: keys.sk_test });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((product: { name: string }) => product.name)).toEqual(['E2E ebook', 'Demo monthly membership', 'Demo video course', 'Demo ebook']);
  }, START_TIMEOUT_MS);
});
