/**
 * `npm run bench`: the production build of the service, started the way `npm start`
 * starts it, on a fresh PostgreSQL database (and then on embedded PGlite), driven with
 * autocannon from this process at 1, 16 and 64 connections on
 *
 * - POST /api/v1/checkout/sessions (price mode), and
 * - GET /api/v1/products?limit=10 (a full page of ten products),
 *
 * beside the reference floor (test/bench/floor.ts: node:http + postgres doing the same SQL work)
 * on the same database. Every response is counted: anything but 2xx is an error. Prints one
 * markdown table with req/s, p50, p99 and the service's ratios to the floor.
 *
 * Environment: BENCH_DATABASE_URL (or DATABASE_URL) names the PostgreSQL server, default
 * postgres://postgres@127.0.0.1:5432/postgres; a database bench_<random> is created on it and
 * dropped afterwards. BENCH_DURATION (seconds per cell, default 5), BENCH_WARMUP (default 2),
 * BENCH_CONNECTIONS (default 1,16,64), BENCH_TARGETS (default postgres,floor,pglite,billing,dashboard: a subset
 * makes a quicker loop while profiling). Not part of `npm test` or CI.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { randomBase62 } from '@/server/ids';
import { printBillingThroughput } from './billing';
import { printClientLibrarySize } from './client-size';
import { printDashboardOrdersLoad } from './dashboard';
import { freePort, ROOT, serviceEnv, startService as startNpmStart, stopService, type Service } from '../support/production-server';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,16,64').split(',').map(Number);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FLOOR_START_TIMEOUT_MS = 60_000;
const TARGETS = new Set((process.env.BENCH_TARGETS ?? 'postgres,floor,pglite,billing,dashboard').split(','));
const LIST_PAGE = 10;
const BIG = '1000000000';

type Target = 'floor' | 'service (PostgreSQL)' | 'service (PGlite)';
type Endpoint = 'POST /checkout/sessions' | 'GET /products?limit=10';

interface Cell {
  target: Target;
  endpoint: Endpoint;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

const log = (message: string) => console.error(`[bench] ${message}`);

/**
 * The production service as `npm start` runs it (test/support/production-server.ts: starts take
 * turns with the e2e and browser tests, so a stale build is rebuilt once), limits raised so that
 * the benchmark measures the work, not the 429s.
 */
async function startService(port: number, extra: Record<string, string>): Promise<Service> {
  const started = Date.now();
  const service = await startNpmStart(
    serviceEnv({ PORT: String(port), RATE_LIMIT_PER_IP: BIG, RATE_LIMIT_PER_KEY: BIG, RATE_LIMIT_PRODUCT_WRITES_PER_KEY: BIG, ...extra }),
  );
  log(`npm start ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return service;
}

/** The floor in its own process (and process group, like the service), ready once it says so. */
async function startFloor(port: number, databaseUrl: string): Promise<Service> {
  const env = serviceEnv({ DATABASE_URL: databaseUrl, PORT: String(port), NODE_ENV: 'production' });
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/floor.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const started = Date.now();
  while (!output.includes('floor ready')) {
    if (child.exitCode !== null || Date.now() - started > FLOOR_START_TIMEOUT_MS) throw new Error(`the floor did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output, exited };
}

/** The demo store's test secret key, from the banner a first start prints on an empty database. */
function demoSecretKey(output: string): string {
  const match = /^ {2}sk_test {2}(\S+)$/m.exec(output);
  if (!match) throw new Error(`no demo store keys in the start-up output:\n${output}`);
  return match[1]!;
}

async function call(baseUrl: string, key: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Ten one-time products more, so the list answers a full page; returns a price to sell. */
async function prepareCatalog(baseUrl: string, key: string): Promise<string> {
  let priceId = '';
  for (let i = 0; i < LIST_PAGE; i++) {
    const created = await call(baseUrl, key, 'POST', '/api/v1/products', {
      name: `Bench product ${i + 1}`,
      amount: 1000 + i * 100,
      description: 'A product of the benchmark catalog, with a description of ordinary length for a list page.',
      images: ['https://cdn.example.com/bench/cover.png'],
      tax_rate: 19,
    });
    if (created.status !== 201) throw new Error(`creating a product answered ${created.status}: ${JSON.stringify(created.body)}`);
    priceId = created.body.price_id;
  }
  return priceId;
}

/** One request of each kind, checked by content, before any load: a wrong answer fails fast. */
async function checkAnswers(baseUrl: string, key: string, priceId: string): Promise<void> {
  const session = await call(baseUrl, key, 'POST', '/api/v1/checkout/sessions', { price_id: priceId });
  if (session.status !== 201 || session.body.object !== 'checkout.session' || typeof session.body.client_secret !== 'string') {
    throw new Error(`${baseUrl}: checkout answered ${session.status} ${JSON.stringify(session.body)}`);
  }
  const list = await call(baseUrl, key, 'GET', `/api/v1/products?limit=${LIST_PAGE}`);
  if (list.status !== 200 || list.body.object !== 'list' || list.body.data.length !== LIST_PAGE) {
    throw new Error(`${baseUrl}: list answered ${list.status} with ${list.body.data?.length} items`);
  }
}

async function load(baseUrl: string, key: string, priceId: string, endpoint: Endpoint, connections: number, duration: number) {
  const checkout = endpoint === 'POST /checkout/sessions';
  return autocannon({
    url: `${baseUrl}${checkout ? '/api/v1/checkout/sessions' : `/api/v1/products?limit=${LIST_PAGE}`}`,
    connections,
    duration,
    timeout: 30,
    method: checkout ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${key}`, ...(checkout ? { 'content-type': 'application/json' } : {}) },
    ...(checkout ? { body: JSON.stringify({ price_id: priceId }) } : {}),
  });
}

async function measure(target: Target, baseUrl: string, key: string, priceId: string): Promise<Cell[]> {
  await checkAnswers(baseUrl, key, priceId);
  const cells: Cell[] = [];
  for (const endpoint of ['POST /checkout/sessions', 'GET /products?limit=10'] as const) {
    for (const connections of CONNECTIONS) {
      if (WARMUP > 0) await load(baseUrl, key, priceId, endpoint, connections, WARMUP);
      const result = await load(baseUrl, key, priceId, endpoint, connections, DURATION);
      const cell: Cell = {
        target,
        endpoint,
        connections,
        rps: result['2xx'] / result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        requests: result.requests.total,
        errors: result.non2xx + result.errors + result.timeouts,
      };
      log(`${target} ${endpoint} c=${connections}: ${cell.rps.toFixed(0)} req/s, p50 ${cell.p50} ms, p99 ${cell.p99} ms, ${cell.errors} errors`);
      cells.push(cell);
    }
  }
  return cells;
}

function formatTable(cells: Cell[]): string {
  const floorOf = (cell: Cell) => cells.find((c) => c.target === 'floor' && c.endpoint === cell.endpoint && c.connections === cell.connections);
  const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : '–');
  const rows = [
    '| endpoint | conns | target | req/s | p50 ms | p99 ms | errors | req/s vs floor | p99 vs floor |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const endpoint of ['POST /checkout/sessions', 'GET /products?limit=10'] as const) {
    for (const connections of CONNECTIONS) {
      for (const target of ['floor', 'service (PostgreSQL)', 'service (PGlite)'] as const) {
        const cell = cells.find((c) => c.target === target && c.endpoint === endpoint && c.connections === connections);
        if (!cell) continue;
        const floor = target === 'floor' ? undefined : floorOf(cell);
        rows.push(
          `| ${endpoint} | ${connections} | ${target} | ${cell.rps.toFixed(0)} | ${cell.p50} | ${cell.p99} | ${cell.errors}/${cell.requests} | ${ratio(cell.rps, floor?.rps)} | ${ratio(cell.p99, floor?.p99)} |`,
        );
      }
    }
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const name = `bench_${randomBase62(12).toLowerCase()}`;
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const databaseUrl = new URL(SERVER_URL);
  databaseUrl.pathname = `/${name}`;
  const dataDirs = [await mkdtemp(path.join(tmpdir(), 'bench-pg-')), await mkdtemp(path.join(tmpdir(), 'bench-pglite-'))];
  const running = new Set<Service>();
  const stop = async (target: Service) => {
    running.delete(target);
    await stopService(target);
  };
  const cells: Cell[] = [];
  try {
    // 1. The service on PostgreSQL: its first start migrates and creates the demo store, whose
    // key and catalog the floor then uses too.
    const servicePort = await freePort();
    const service = await startService(servicePort, { DATABASE_URL: databaseUrl.toString(), DATA_DIR: dataDirs[0]! });
    running.add(service);
    const key = demoSecretKey(service.output());
    const serviceUrl = `http://127.0.0.1:${servicePort}`;
    const priceId = await prepareCatalog(serviceUrl, key);
    if (TARGETS.has('postgres')) cells.push(...(await measure('service (PostgreSQL)', serviceUrl, key, priceId)));
    await stop(service);

    // 2. The floor, alone on the machine, on the same database, store and catalog.
    if (TARGETS.has('floor')) {
      const floorPort = await freePort();
      const floor = await startFloor(floorPort, databaseUrl.toString());
      running.add(floor);
      cells.push(...(await measure('floor', `http://127.0.0.1:${floorPort}`, key, priceId)));
      await stop(floor);
    }

    // 3. The service on embedded PGlite (no DATABASE_URL), in a fresh data directory.
    if (TARGETS.has('pglite')) {
      const pglitePort = await freePort();
      const embedded = await startService(pglitePort, { DATA_DIR: dataDirs[1]! });
      running.add(embedded);
      const pgliteKey = demoSecretKey(embedded.output());
      const pgliteUrl = `http://127.0.0.1:${pglitePort}`;
      const pglitePrice = await prepareCatalog(pgliteUrl, pgliteKey);
      cells.push(...(await measure('service (PGlite)', pgliteUrl, pgliteKey, pglitePrice)));
      await stop(embedded);
    }
  } finally {
    for (const target of running) await stopService(target).catch(() => {});
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch((error: unknown) => log(`could not drop ${name}: ${String(error)}`));
    await admin.end({ timeout: 5 });
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `\nnpm run bench: ${DURATION} s per cell after ${WARMUP} s of warm-up, autocannon in a separate process, ` +
      `${(await import('node:os')).cpus().length} cores, ${new Date().toISOString().slice(0, 16)}Z, ${((Date.now() - started) / 1000).toFixed(0)} s in all.\n` +
      'Errors count every answer that is not 2xx, plus timeouts and socket errors. Ratios: service ÷ floor in this run.\n',
  );
  console.log(formatTable(cells));
  await printClientLibrarySize();
  if (TARGETS.has('billing')) await printBillingThroughput(SERVER_URL);
  const dashboardClean = TARGETS.has('dashboard') ? await printDashboardOrdersLoad(SERVER_URL) : true;
  if (cells.some((cell) => cell.errors > 0) || !dashboardClean) process.exitCode = 1;
}

await main();
