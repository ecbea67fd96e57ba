import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import postgres from 'postgres';
import { ADMIN_ENDPOINT } from '@/server/admin/constants';
import type { AdminRouter } from '@/server/admin/router';
import { randomBase62 } from '@/server/ids';

/**
 * The real `npm start` (a production build, made only when missing or stale) for end-to-end and
 * browser tests: PGlite in a temporary DATA_DIR, or a fresh database when DATABASE_URL is set.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');
const READY = /Payments service ready on http:\/\/localhost:(\d+)/;
// A `next build` takes one to two minutes here; a start without one a few seconds.
export const START_TIMEOUT_MS = 540_000;

export interface Service {
  child: ChildProcess;
  output: () => string;
  /** The exit code of the npm process (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * A port that is free now and that nothing else here will take meanwhile: the service listens on
 * it only after waiting its turn to start (startLock), and any `listen(0)` in the meantime (the
 * other test worker's servers) draws from the kernel's ephemeral range, so the port is picked
 * below it (Linux: 32768 and up), at random.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
}

/** A clean environment: nothing of vitest's or of the developer's own service settings. */
export function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const drop =
    /^(VITEST|ADMIN_TOKEN$|AUTH_SECRET$|SERVICE_URL$|PGLITE_DIR$|DATABASE_URL$|PUBLIC_BASE_URL$|RATE_LIMIT_|TRUST_PROXY$|NODE_ENV$|METRICS_TOKEN$|LOG_LEVEL$|LOG_FORMAT$|MAX_IN_FLIGHT$|QUEUE_TIMEOUT_MS$|WEBHOOKS_ALLOW_PRIVATE$)/;
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !drop.test(name))), ...extra } as NodeJS.ProcessEnv;
}

/**
 * Test files run in parallel workers, and each `npm start` builds when the build is stale: two
 * builds in one .next would break each other. So starts take turns (a lock directory, shared by
 * the workers, held until the server is ready); the second then finds the build fresh.
 */
async function startLock(): Promise<() => Promise<void>> {
  const lock = path.join(tmpdir(), `payments-npm-start-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  for (;;) {
    try {
      await mkdir(lock);
      return () => rm(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock left by a killed run is older than any start can take.
      const since = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > START_TIMEOUT_MS) await rm(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** `terminal`: on a pseudo-terminal (through `script`), as a person starts it, rather than a pipe. */
export async function startService(env: NodeJS.ProcessEnv, options: { terminal?: boolean } = {}): Promise<Service> {
  const release = await startLock();
  try {
    return await startServiceNow(env, options.terminal === true);
  } finally {
    await release();
  }
}

async function startServiceNow(env: NodeJS.ProcessEnv, terminal: boolean): Promise<Service> {
  const started = Date.now();
  const [command, args] = terminal ? ['script', ['-qfec', 'npm start', '/dev/null']] : ['npm', ['start']];
  // Its own process group, so that a signal reaches npm and the node process it runs.
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
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

export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to the npm process alone, as a process supervisor or container runtime sends it; npm
 * passes it on. Waits until every process of the group is gone and resolves to npm's exit code.
 */
export async function stopService(target: Service): Promise<number | null> {
  const pid = target.child.pid!;
  if (target.child.exitCode === null && target.child.signalCode === null) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`npm start did not stop within 30 s:\n${target.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return target.exited;
}

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm run worker` as an operator starts it (a clean environment plus `env`), in a process group of its own. */
export function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn('npm', ['run', 'worker'], { cwd: ROOT, env: serviceEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** SIGTERM to the npm process only, as a supervisor sends it; resolves to npm's exit code once no process of the group is left. */
export async function stopWorker(worker: WorkerProcess): Promise<number | null> {
  const pid = worker.child.pid!;
  if (worker.child.exitCode === null && worker.child.signalCode === null) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`a process of the worker is left:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return worker.exited;
}

/** A JSON call to a started service's API with a secret key (without a body: no content-type). */
export async function callService(origin: string, key: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${origin}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/**
 * Where the service keeps its data for one test file: a temporary DATA_DIR, and with
 * DATABASE_URL a database of its own. Both start as a copy of the run's migrated, empty database
 * (test/support/global-setup.ts: on PGlite in the data directory, on PostgreSQL copied from its
 * template), unless `fresh`: a test of the first start starts without one and `npm start` migrates it.
 */
export async function serviceStorage(prefix: string, options: { fresh?: boolean } = {}): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (!options.fresh && !process.env.DATABASE_URL) {
    // Imported here: the bench imports this file outside vitest.
    const { inject } = await import('vitest');
    const migrated = inject('migratedPgliteDir');
    if (migrated) await cp(migrated, path.join(dataDir, 'pglite'), { recursive: true });
  }
  let dropDatabase = async () => {};
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const name = `e2e_${randomBase62(12).toLowerCase()}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const { templateClause } = await import('./database');
    await admin.unsafe(`create database "${name}"${options.fresh ? '' : templateClause()}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    };
  }
  return {
    env,
    cleanup: async () => {
      await dropDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** How to open the database a service started with `env` (serviceStorage's) uses: its PostgreSQL database, or PGlite in its data directory. */
export function serviceDatabase(env: Record<string, string>): { url: string } | { pgliteDir: string } {
  return env.DATABASE_URL ? { url: env.DATABASE_URL } : { pgliteDir: path.join(env.DATA_DIR!, 'pglite') };
}

/** The admin API of a started service, with the ADMIN_TOKEN it was given. */
export function adminClient(origin: string, adminToken: string) {
  return createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${origin}${ADMIN_ENDPOINT}`, headers: { authorization: `Bearer ${adminToken}` } })] });
}

/**
 * A customer buying a subscription on its hosted page with a test card (expiry 12/34, CVC 123):
 * the form's POST as the browser sends it. Resolves to the answer's status (303 when paid).
 */
export async function payOnHostedPage(checkoutUrl: string, origin: string, cardNumber: string): Promise<number> {
  const link = new URL(checkoutUrl);
  const paid = await fetch(`${origin}${link.pathname}/pay${link.search}`, {
    method: 'POST',
    body: new URLSearchParams({ card_number: cardNumber, expiry: '12/34', cvc: '123' }),
    redirect: 'manual',
  });
  return paid.status;
}

/** `npm run admin -- …` against a started service: its one JSON object, or the CLI's error. */
export function runAdminCli(serviceUrl: string, adminToken: string, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [createRequire(import.meta.url).resolve('tsx/cli'), 'scripts/admin.ts', ...args],
      { cwd: ROOT, env: { ...process.env, SERVICE_URL: serviceUrl, ADMIN_TOKEN: adminToken } },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}
