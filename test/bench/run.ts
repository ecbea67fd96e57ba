/**
 * `npm run bench`: the production build of the service, started the way `npm start`
 * starts it, on a fresh PostgreSQL database (and then on embedded PGlite), driven with
 * autocannon from this process at 1, 16 and 64 connections on
 *
 * - POST /api/v1/checkout/sessions (price mode) with a fresh `Idempotency-Key` on each request,
 *   as merchants' server libraries send it,
 * - the same without a key, and
 * - GET /api/v1/products?limit=10 (a full page of ten products),
 * - on PostgreSQL, when named in BENCH_ENDPOINTS: `subscription` (POST /api/v1/subscriptions,
 *   price mode, a fresh key each time), `portal` (POST /api/v1/portal/sessions for an order, a
 *   fresh key each time), `replay` (POST /api/v1/subscriptions with one key and body over and
 *   over) and `get` (GET /api/v1/subscriptions/checkout/{id} of that replayed checkout),
 *
 * beside the reference floor (test/bench/floor.ts: node:http + postgres doing the same SQL work)
 * on the same database, and on PGlite beside the same floor on PGlite. Each cell is warmed up,
 * then measured in several rounds; the table shows the medians. On PostgreSQL the service and the
 * floor run side by side and their rounds alternate; on PGlite, whose data directory one process
 * owns at a time, the floor follows the service. Every response is counted:
 * anything but 2xx is an error, except on PGlite at 64 connections, where the service must
 * refuse what it cannot serve in time (503 `service_busy` with `Retry-After`): those are counted
 * apart. Prints one markdown table with req/s, p50, p99 and the service's ratios to the floor
 * (of the medians, and of its worst round against the floor's round of the same number), the CPU
 * time each side's processes spent a request over the measured rounds (all threads, from /proc:
 * steadier from run to run than req/s, and what bounds a ratio when every process shares the
 * cores), the machine's load average, and the idle and peak RSS of each `npm start`.
 *
 * Environment: BENCH_DATABASE_URL (or DATABASE_URL) names the PostgreSQL server, default
 * postgres://postgres@127.0.0.1:5432/postgres; a database bench_<random> is created on it and
 * dropped afterwards. BENCH_DURATION (seconds per round, default 5), BENCH_ROUNDS (default 3),
 * BENCH_WARMUP (default 2), BENCH_CONNECTIONS (default 1,16,64), BENCH_ENDPOINTS (default
 * keyed,unkeyed,list), BENCH_TARGETS (default postgres,floor,pglite,pglite-floor,billing,webhooks,dashboard:
 * a subset makes a quicker loop while profiling). BENCH_CPU_PROF=<dir> profiles the service's
 * process (test/bench/cpu-profile.mjs) into that directory. Not part of `npm test` or CI.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon, { type Result as LoadResult } from 'autocannon';
import postgres from 'postgres';
import { randomBase62 } from '@/server/ids';
import { printBillingThroughput } from './billing';
import { printClientLibrarySize } from './client-size';
import { printDashboardOrdersLoad } from './dashboard';
import { printWebhookDelivery } from './webhooks';
import { freePort, ROOT, serviceEnv, startService as startNpmStart, stopService, type Service } from '../support/production-server';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,16,64').split(',').map(Number);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FLOOR_START_TIMEOUT_MS = 60_000;
const TARGETS = new Set((process.env.BENCH_TARGETS ?? 'postgres,floor,pglite,pglite-floor,billing,webhooks,dashboard').split(','));
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
const LIST_PAGE = 10;
const IDLE_SETTLE_MS = 3_000;
const BIG = '1000000000';
/** On PGlite at this many connections and more, refusals (503 `service_busy`) are expected, not errors. */
const PGLITE_SHEDDING_CONNECTIONS = 64;

type Target = 'floor (PostgreSQL)' | 'service (PostgreSQL)' | 'floor (PGlite)' | 'service (PGlite)';
const ENDPOINTS = {
  keyed: 'POST /checkout/sessions, fresh Idempotency-Key',
  unkeyed: 'POST /checkout/sessions, no key',
  list: 'GET /products?limit=10',
  subscription: 'POST /subscriptions, fresh Idempotency-Key',
  portal: 'POST /portal/sessions, fresh Idempotency-Key',
  replay: 'POST /subscriptions, one key and body replayed',
  get: 'GET /subscriptions/checkout/{id}, the replayed one',
} as const;
/** Endpoints benchmarked on PostgreSQL only (their fixtures need the store's subscriptions switched on). */
const POSTGRES_ONLY = new Set<string>(['subscription', 'portal', 'replay', 'get']);
type EndpointName = keyof typeof ENDPOINTS;
const ENDPOINT_NAMES = (process.env.BENCH_ENDPOINTS ?? 'keyed,unkeyed,list').split(',') as EndpointName[];

interface Cell {
  target: Target;
  endpoint: EndpointName;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** 503 `service_busy` answers, where shedding is expected (PGlite at 64 connections). */
  refused: number;
  /** Each round's req/s and p99, in order: the service's rounds are compared with the floor's of the same number. */
  rounds: { rps: number; p99: number }[];
  /** The CPU time its processes spent over the measured rounds (all threads, user and system), per request sent, in µs. */
  cpuPerRequest: number;
}

const log = (message: string) => console.error(`[bench] ${message}`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const formatLoad = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(', ');

/**
 * The production service as `npm start` runs it (test/support/production-server.ts: starts take
 * turns with the e2e and browser tests, so a stale build is rebuilt once), limits raised so that
 * the benchmark measures the work, not the 429s.
 */
async function startService(port: number, extra: Record<string, string>): Promise<Service> {
  const started = Date.now();
  const service = await startNpmStart(
    serviceEnv({
      PORT: String(port),
      RATE_LIMIT_PER_IP: BIG,
      RATE_LIMIT_PER_KEY: BIG,
      RATE_LIMIT_PRODUCT_WRITES_PER_KEY: BIG,
      ...(CPU_PROFILE_DIR ? { NODE_OPTIONS: `--import=${path.join(ROOT, 'test/bench/cpu-profile.mjs')}`, BENCH_CPU_PROF_DIR: path.resolve(CPU_PROFILE_DIR) } : {}),
      ...extra,
    }),
  );
  log(`npm start ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return service;
}

/** The floor in its own process (and process group, like the service), ready once it says so. */
async function startFloor(port: number, env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/floor.ts'], {
    cwd: ROOT,
    env: serviceEnv({ ...env, PORT: String(port), NODE_ENV: 'production' }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/**
 * The processes of a process group (the service and the floor each run in one of their own), with
 * the fields of /proc/<pid>/stat after the command name, which may hold spaces: state, ppid, pgrp, …
 */
async function groupProcesses(pgid: number): Promise<{ pid: string; stat: string[] }[]> {
  const processes: { pid: string; stat: string[] }[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const stat = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (Number(stat[2]) === pgid) processes.push({ pid, stat });
  }
  return processes;
}

/**
 * Resident memory of a process group, in MB: the kernel's high-water mark so far (`VmHWM`) or what
 * it holds now (`VmRSS`), of its largest process (the server; npm's own wrapper beside it is small).
 */
async function rssMb(service: Service, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  let largest = 0;
  for (const { pid } of await groupProcesses(service.child.pid!)) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
    largest = Math.max(largest, kb);
  }
  return Math.round(largest / 1024);
}

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString());

/** The CPU time, in seconds, that the processes of a process group have spent so far: every thread, user and system time. */
async function groupCpuSeconds(pgid: number): Promise<number> {
  let ticks = 0;
  for (const { stat } of await groupProcesses(pgid)) ticks += Number(stat[11]) + Number(stat[12]);
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** What a started service holds once the requests of its start-up (the catalog's) are answered and it has been idle a moment. */
async function idleRssMb(service: Service): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  return rssMb(service, 'VmRSS');
}

/** The demo store's test secret key, from the banner a first start prints on an empty database. */
function demoSecretKey(output: string): string {
  const match = /^ {2}sk_test {2}(\S+)$/m.exec(output);
  if (!match) throw new Error(`no demo store keys in the start-up output:\n${output}`);
  return match[1]!;
}

async function call(baseUrl: string, key: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** What the requests name: a one-time price; on PostgreSQL a recurring price, an order and a replayed checkout's key and id. */
interface Fixture {
  priceId: string;
  recurringPriceId?: string;
  orderId?: string;
  replayKey?: string;
  replayedId?: string;
}

const SUBSCRIPTION_BODY = (recurringPriceId: string) => ({ price_id: recurringPriceId, total_payments: 12, customer_email: 'bench@example.com' });

/**
 * The fixtures of the PostgreSQL-only endpoints: the demo store's subscriptions switched on (the
 * service runs with SUBSCRIPTIONS_ENABLED), a recurring price, an order (of a checkout session)
 * for portal sessions, and the checkout that `replay` repeats and `get` reads.
 */
async function preparePostgresFixtures(baseUrl: string, key: string, databaseUrl: string, priceId: string): Promise<Fixture> {
  const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await db`update stores set subscriptions = true`;
  await db.end({ timeout: 5 });
  const recurring = await call(baseUrl, key, 'POST', '/api/v1/products', { name: 'Bench plan', amount: 990, mode: 'recurring', interval: 'month' });
  if (recurring.status !== 201) throw new Error(`creating a recurring product answered ${recurring.status}: ${JSON.stringify(recurring.body)}`);
  const session = await call(baseUrl, key, 'POST', '/api/v1/checkout/sessions', { price_id: priceId });
  const replayKey = randomUUID();
  const replayed = await call(baseUrl, key, 'POST', '/api/v1/subscriptions', SUBSCRIPTION_BODY(recurring.body.price_id), { 'idempotency-key': replayKey });
  if (replayed.status !== 201) throw new Error(`creating a subscription checkout answered ${replayed.status}: ${JSON.stringify(replayed.body)}`);
  return { priceId, recurringPriceId: recurring.body.price_id, orderId: session.body.order_id, replayKey, replayedId: replayed.body.id };
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
async function checkAnswers(baseUrl: string, key: string, fixture: Fixture): Promise<void> {
  const idempotencyKey = randomUUID();
  const session = await call(baseUrl, key, 'POST', '/api/v1/checkout/sessions', { price_id: fixture.priceId }, { 'idempotency-key': idempotencyKey });
  if (session.status !== 201 || session.body.object !== 'checkout.session' || typeof session.body.client_secret !== 'string') {
    throw new Error(`${baseUrl}: checkout answered ${session.status} ${JSON.stringify(session.body)}`);
  }
  const list = await call(baseUrl, key, 'GET', `/api/v1/products?limit=${LIST_PAGE}`);
  if (list.status !== 200 || list.body.object !== 'list' || list.body.data.length !== LIST_PAGE) {
    throw new Error(`${baseUrl}: list answered ${list.status} with ${list.body.data?.length} items`);
  }
  if (fixture.replayedId === undefined) return;
  const subscription = await call(baseUrl, key, 'POST', '/api/v1/subscriptions', SUBSCRIPTION_BODY(fixture.recurringPriceId!), { 'idempotency-key': randomUUID() });
  if (subscription.status !== 201 || subscription.body.object !== 'subscription.checkout' || typeof subscription.body.url !== 'string') {
    throw new Error(`${baseUrl}: subscription checkout answered ${subscription.status} ${JSON.stringify(subscription.body)}`);
  }
  const portal = await call(baseUrl, key, 'POST', '/api/v1/portal/sessions', { order_id: fixture.orderId }, { 'idempotency-key': randomUUID() });
  if (portal.status !== 201 || portal.body.object !== 'portal.session' || typeof portal.body.url !== 'string') {
    throw new Error(`${baseUrl}: portal session answered ${portal.status} ${JSON.stringify(portal.body)}`);
  }
  const replay = await call(baseUrl, key, 'POST', '/api/v1/subscriptions', SUBSCRIPTION_BODY(fixture.recurringPriceId!), { 'idempotency-key': fixture.replayKey! });
  const read = await call(baseUrl, key, 'GET', `/api/v1/subscriptions/checkout/${fixture.replayedId}`);
  if (replay.status !== 200 || read.status !== 200 || replay.body.id !== fixture.replayedId || JSON.stringify(replay.body) !== JSON.stringify(read.body)) {
    throw new Error(`${baseUrl}: the replay answered ${replay.status} ${JSON.stringify(replay.body)}, its read ${read.status} ${JSON.stringify(read.body)}`);
  }
}

/** The request an endpoint sends: method, path, body, and whether each one gets a fresh `Idempotency-Key` or the fixed one. */
function requestOf(endpoint: EndpointName, fixture: Fixture): { method: 'GET' | 'POST'; path: string; body?: unknown; key?: 'fresh' | string } {
  switch (endpoint) {
    case 'keyed':
      return { method: 'POST', path: '/api/v1/checkout/sessions', body: { price_id: fixture.priceId }, key: 'fresh' };
    case 'unkeyed':
      return { method: 'POST', path: '/api/v1/checkout/sessions', body: { price_id: fixture.priceId } };
    case 'list':
      return { method: 'GET', path: `/api/v1/products?limit=${LIST_PAGE}` };
    case 'subscription':
      return { method: 'POST', path: '/api/v1/subscriptions', body: SUBSCRIPTION_BODY(fixture.recurringPriceId!), key: 'fresh' };
    case 'portal':
      return { method: 'POST', path: '/api/v1/portal/sessions', body: { order_id: fixture.orderId }, key: 'fresh' };
    case 'replay':
      return { method: 'POST', path: '/api/v1/subscriptions', body: SUBSCRIPTION_BODY(fixture.recurringPriceId!), key: fixture.replayKey! };
    case 'get':
      return { method: 'GET', path: `/api/v1/subscriptions/checkout/${fixture.replayedId}` };
  }
}

async function load(baseUrl: string, key: string, fixture: Fixture, endpoint: EndpointName, connections: number, duration: number) {
  const request = requestOf(endpoint, fixture);
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(request.key === undefined || request.key === 'fresh' ? {} : { 'idempotency-key': request.key }),
  };
  return autocannon({
    url: `${baseUrl}${request.path}`,
    connections,
    duration,
    timeout: 30,
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    ...(request.key === 'fresh' ? { requests: [{ setupRequest: (sent) => ({ ...sent, headers: { ...headers, 'idempotency-key': randomUUID() } }) }] } : {}),
  });
}

/** A target under load: the service or the floor, at its URL, and the process group it runs in. */
interface Side {
  target: Target;
  baseUrl: string;
  group: number;
}

/**
 * Each endpoint at each connection count on every side: warmed up, then measured in rounds that
 * alternate between the sides (the order swapped each round), so that a drift of the machine or
 * of the database during the run weighs on the service and the floor alike.
 */
async function measure(sides: Side[], key: string, fixture: Fixture): Promise<Cell[]> {
  for (const side of sides) await checkAnswers(side.baseUrl, key, fixture);
  const cells: Cell[] = [];
  for (const endpoint of ENDPOINT_NAMES) {
    if (POSTGRES_ONLY.has(endpoint) && fixture.replayedId === undefined) {
      log(`${sides.map((side) => side.target).join(', ')}: ${endpoint} is benchmarked on PostgreSQL only`);
      continue;
    }
    for (const connections of CONNECTIONS) {
      if (WARMUP > 0) for (const side of sides) await load(side.baseUrl, key, fixture, endpoint, connections, WARMUP);
      const rounds = new Map(sides.map((side) => [side, [] as LoadResult[]]));
      const cpuSeconds = new Map(sides.map((side) => [side, 0]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          const cpuBefore = await groupCpuSeconds(side.group);
          rounds.get(side)!.push(await load(side.baseUrl, key, fixture, endpoint, connections, DURATION));
          cpuSeconds.set(side, cpuSeconds.get(side)! + (await groupCpuSeconds(side.group)) - cpuBefore);
        }
      }
      for (const [side, results] of rounds) {
        const { target } = side;
        const shedding = target === 'service (PGlite)' && connections >= PGLITE_SHEDDING_CONNECTIONS;
        const refused = shedding ? results.reduce((sum, result) => sum + (result.statusCodeStats['503']?.count ?? 0), 0) : 0;
        const requests = results.reduce((sum, result) => sum + result.requests.total, 0);
        const cell: Cell = {
          target,
          endpoint,
          connections,
          rps: median(results.map((result) => result['2xx'] / result.duration)),
          p50: median(results.map((result) => result.latency.p50)),
          p99: median(results.map((result) => result.latency.p99)),
          requests,
          errors: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0) - refused,
          refused,
          rounds: results.map((result) => ({ rps: result['2xx'] / result.duration, p99: result.latency.p99 })),
          cpuPerRequest: (cpuSeconds.get(side)! * 1e6) / requests,
        };
        log(
          `${target} ${ENDPOINTS[endpoint]} c=${connections}: ${cell.rps.toFixed(0)} req/s, p50 ${cell.p50} ms, p99 ${cell.p99} ms, ` +
            `${cell.errors} errors${shedding ? `, ${refused} refused` : ''}, ${cell.cpuPerRequest.toFixed(0)} µs CPU a request (load ${formatLoad()})`,
        );
        cells.push(cell);
      }
    }
  }
  return cells;
}

function formatTable(cells: Cell[]): string {
  const floorOf = (cell: Cell) => {
    const floor = cell.target === 'service (PGlite)' ? 'floor (PGlite)' : 'floor (PostgreSQL)';
    return cells.find((c) => c.target === floor && c.endpoint === cell.endpoint && c.connections === cell.connections);
  };
  const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : '–');
  /** The round furthest from the floor's round of the same number: the lowest req/s ratio and the highest p99 ratio (none for a floor). */
  const worstRound = (cell: Cell, floor: Cell | undefined) => {
    if (!floor || floor.rounds.length !== cell.rounds.length) return '– | –';
    const pairs = cell.rounds.map((round, index) => ({ rps: round.rps / floor.rounds[index]!.rps, p99: round.p99 / floor.rounds[index]!.p99 }));
    return `${Math.min(...pairs.map((pair) => pair.rps)).toFixed(2)}× | ${Math.max(...pairs.map((pair) => pair.p99)).toFixed(2)}×`;
  };
  const rows = [
    '| endpoint | conns | target | req/s | p50 ms | p99 ms | errors | refused 503 | req/s vs floor | p99 vs floor | worst round: req/s | p99 | CPU µs a request | CPU vs floor |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const endpoint of ENDPOINT_NAMES) {
    for (const connections of CONNECTIONS) {
      for (const target of ['floor (PostgreSQL)', 'service (PostgreSQL)', 'floor (PGlite)', 'service (PGlite)'] as const) {
        const cell = cells.find((c) => c.target === target && c.endpoint === endpoint && c.connections === connections);
        if (!cell) continue;
        const floor = target.startsWith('floor') ? undefined : floorOf(cell);
        rows.push(
          `| ${ENDPOINTS[endpoint]} | ${connections} | ${target} | ${cell.rps.toFixed(0)} | ${cell.p50} | ${cell.p99} | ${cell.errors}/${cell.requests} | ` +
            `${cell.refused} | ${ratio(cell.rps, floor?.rps)} | ${ratio(cell.p99, floor?.p99)} | ${worstRound(cell, floor)} | ` +
            `${cell.cpuPerRequest.toFixed(0)} | ${ratio(cell.cpuPerRequest, floor?.cpuPerRequest)} |`,
        );
      }
    }
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = formatLoad();
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
  const memory: string[] = [];
  const idle: string[] = [];
  try {
    if (TARGETS.has('postgres') || TARGETS.has('floor')) {
      // 1. The service on PostgreSQL: its first start migrates and creates the demo store, whose
      // key and catalog the floor then uses too.
      const servicePort = await freePort();
      const service = await startService(servicePort, { DATABASE_URL: databaseUrl.toString(), DATA_DIR: dataDirs[0]!, SUBSCRIPTIONS_ENABLED: 'true' });
      running.add(service);
      const key = demoSecretKey(service.output());
      const serviceUrl = `http://127.0.0.1:${servicePort}`;
      const priceId = await prepareCatalog(serviceUrl, key);
      idle.push(`PostgreSQL ${await idleRssMb(service)} MB`);
      const fixture = ENDPOINT_NAMES.some((endpoint) => POSTGRES_ONLY.has(endpoint)) ? await preparePostgresFixtures(serviceUrl, key, databaseUrl.toString(), priceId) : { priceId };
      const sides: Side[] = TARGETS.has('postgres') ? [{ target: 'service (PostgreSQL)', baseUrl: serviceUrl, group: service.child.pid! }] : [];

      // 2. The floor beside it, on the same database, store and catalog, its rounds alternating with the service's.
      if (TARGETS.has('floor')) {
        const floorPort = await freePort();
        const floor = await startFloor(floorPort, { DATABASE_URL: databaseUrl.toString() });
        running.add(floor);
        sides.push({ target: 'floor (PostgreSQL)', baseUrl: `http://127.0.0.1:${floorPort}`, group: floor.child.pid! });
      }
      cells.push(...(await measure(sides, key, fixture)));
      if (TARGETS.has('postgres')) memory.push(`PostgreSQL ${await rssMb(service, 'VmHWM')} MB`);
      for (const target of [...running]) await stop(target);
    }

    // 3. The service on embedded PGlite (no DATABASE_URL), in a fresh data directory; then the
    // floor on that same PGlite directory, store and catalog (one process may own it at a time).
    if (TARGETS.has('pglite') || TARGETS.has('pglite-floor')) {
      const pglitePort = await freePort();
      const embedded = await startService(pglitePort, { DATA_DIR: dataDirs[1]! });
      running.add(embedded);
      const pgliteKey = demoSecretKey(embedded.output());
      const pgliteUrl = `http://127.0.0.1:${pglitePort}`;
      const pglitePrice = await prepareCatalog(pgliteUrl, pgliteKey);
      idle.push(`PGlite ${await idleRssMb(embedded)} MB`);
      if (TARGETS.has('pglite')) {
        cells.push(...(await measure([{ target: 'service (PGlite)', baseUrl: pgliteUrl, group: embedded.child.pid! }], pgliteKey, { priceId: pglitePrice })));
        memory.push(`PGlite ${await rssMb(embedded, 'VmHWM')} MB`);
      }
      await stop(embedded);
      if (TARGETS.has('pglite-floor')) {
        const floorPort = await freePort();
        const floor = await startFloor(floorPort, { PGLITE_DIR: path.join(dataDirs[1]!, 'pglite') });
        running.add(floor);
        cells.push(...(await measure([{ target: 'floor (PGlite)', baseUrl: `http://127.0.0.1:${floorPort}`, group: floor.child.pid! }], pgliteKey, { priceId: pglitePrice })));
        await stop(floor);
      }
    }
  } finally {
    for (const target of running) await stopService(target).catch(() => {});
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch((error: unknown) => log(`could not drop ${name}: ${String(error)}`));
    await admin.end({ timeout: 5 });
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `\nnpm run bench: medians of ${ROUNDS} rounds of ${DURATION} s per cell after ${WARMUP} s of warm-up, autocannon in the bench's own process, ` +
      `${cpus().length} cores, ${new Date().toISOString().slice(0, 16)}Z, ${((Date.now() - started) / 1000).toFixed(0)} s in all. ` +
      `Load average (1, 5, 15 min) ${loadAtStart} at the start, ${formatLoad()} at the end.\n` +
      'Errors count every answer that is not 2xx, plus timeouts and socket errors; on PGlite at 64 connections the 503 `service_busy` ' +
      'refusals of the bounded queue are counted apart. Ratios: service ÷ floor on the same database in this run; the worst round ' +
      "is the service's round furthest from the floor's round of the same number (on PostgreSQL the two alternate). " +
      'CPU a request: the CPU time of the process group (all threads, user and system) over the measured rounds, per request sent; ' +
      "on PGlite it includes the database's work, which runs in the same process.\n",
  );
  console.log(formatTable(cells));
  if (idle.length > 0) console.log(`\nIdle RSS of \`npm start\` after start-up and its first requests: ${idle.join(', ')}.`);
  if (memory.length > 0) console.log(`Peak RSS of \`npm start\` during its bench: ${memory.join(', ')}.`);
  await printClientLibrarySize();
  if (TARGETS.has('billing')) await printBillingThroughput(SERVER_URL);
  const webhooksClean = TARGETS.has('webhooks') ? await printWebhookDelivery(SERVER_URL) : true;
  const dashboardClean = TARGETS.has('dashboard') ? await printDashboardOrdersLoad(SERVER_URL) : true;
  if (cells.some((cell) => cell.errors > 0) || !dashboardClean || !webhooksClean) process.exitCode = 1;
}

await main();
