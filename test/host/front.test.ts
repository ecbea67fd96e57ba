import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFront, createInFlightBound, type Front, type FrontOptions } from '@/server/host/front';

/**
 * The front of `npm start` (server/host/front.ts) on a loopback port, serving a stand-in for Next
 * and the API: `/hold/…` answers when the test releases it, `/api/…` names its route like the API
 * handler, anything else answers at once.
 */
const METRICS_TOKEN = 'metrics-token-for-front-tests';
const held = new Set<() => void>();
let running: { front: Front; port: number } | undefined;

async function startFront(options: Partial<FrontOptions> = {}): Promise<{ front: Front; port: number; origin: string }> {
  const server = createServer();
  const front = createFront(server, (path) => (path.startsWith('/page/') ? '/page/{id}' : '/{unmatched}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  front.open({
    async serve(req: IncomingMessage, res: ServerResponse) {
      if (req.url!.startsWith('/hold/')) await new Promise<void>((release) => held.add(release));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(req.url === '/echo-id' ? String(req.headers['request-id']) : `served ${req.url}`);
      return req.url!.startsWith('/api/') ? '/api/v1/things/{id}' : undefined;
    },
    checkDatabase: async () => {},
    metricsToken: METRICS_TOKEN,
    maxInFlight: 2,
    queueTimeoutMs: 300,
    ...options,
  });
  running = { front, port };
  return { front, port, origin: `http://127.0.0.1:${port}` };
}

function releaseHeld(): void {
  for (const release of held) release();
  held.clear();
}

afterEach(async () => {
  releaseHeld();
  await running?.front.close(100);
  running = undefined;
});

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** A raw HTTP/1.1 connection, to see exactly what one connection gets and when it closes. */
function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    send: (method: string, path: string) => socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`),
    connected: new Promise<void>((resolve) => socket.once('connect', () => resolve())),
    received: () => received,
    ended,
  };
}

describe('operator endpoints and request ids', () => {
  it('/healthz is 200 ok without a database call; /readyz is 200 ready with the database ok, else 503 naming the failing check', async () => {
    let databaseUp = true;
    let checks = 0;
    const { origin } = await startFront({
      checkDatabase: async () => {
        checks += 1;
        if (!databaseUp) throw new Error('connection refused');
      },
    });
    const health = await fetch(`${origin}/healthz`);
    expect([health.status, await health.json(), checks]).toEqual([200, { status: 'ok' }, 0]);
    expect(health.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{16}$/);

    const ready = await fetch(`${origin}/readyz`);
    expect([ready.status, await ready.json(), checks]).toEqual([200, { status: 'ready', checks: { database: 'ok' } }, 1]);
    databaseUp = false;
    const notReady = await fetch(`${origin}/readyz`);
    expect([notReady.status, await notReady.json()]).toEqual([503, { status: 'not_ready', checks: { database: 'failing' } }]);
  });

  it('every answer carries its own Request-Id (a page, an API answer, a refusal), which the handler behind reads in the request', async () => {
    const { origin } = await startFront();
    const ids = await Promise.all(['/page/one', '/api/v1/things/t_1', '/metrics'].map(async (path) => (await fetch(`${origin}${path}`)).headers.get('request-id')));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{16}$/);
    expect(new Set(ids).size).toBe(3);

    // The handler behind gets the same id in the request, never one the client chose.
    const chosen = 'req_AAAAAAAAAAAAAAAA';
    const echoed = await fetch(`${origin}/echo-id`, { headers: { 'request-id': chosen } });
    const id = echoed.headers.get('request-id');
    expect(id).toMatch(/^req_[0-9A-Za-z]{16}$/);
    expect(id).not.toBe(chosen);
    expect(await echoed.text()).toBe(id);
  });
});

describe('GET /metrics', () => {
  it('is 404 when METRICS_TOKEN is unset, even with a bearer token', async () => {
    const { origin } = await startFront({ metricsToken: undefined });
    const answer = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(answer.status).toBe(404);
    expect((await answer.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
  });

  it('is 401 without the token or with another; with it, Prometheus text counting route templates, never ids', async () => {
    const { origin } = await startFront();
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: METRICS_TOKEN }] as Record<string, string>[]) {
      const refused = await fetch(`${origin}/metrics`, { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect((await refused.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    }
    await fetch(`${origin}/page/pg_secretid42`);
    await fetch(`${origin}/api/v1/things/thing_id77`, { method: 'POST' });

    const answer = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();
    // The request lines are counted once their answers are out: this one's own line is not yet.
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/page\/\{id\}",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/api\/v1\/things\/\{id\}",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/metrics",status="401"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/page\/\{id\}"\} \d+$/m);
    expect(text).not.toMatch(/pg_secretid42|thing_id77/);
    for (const family of ['payments_total counter', 'webhook_deliveries_total counter', 'process_resident_memory_bytes gauge', 'nodejs_eventloop_lag_seconds gauge']) {
      expect(text).toContain(`# TYPE ${family}`);
    }
  });
});

describe('overload: a bounded wait, then 503 service_busy', () => {
  it('beyond MAX_IN_FLIGHT a request waits for a slot; one that cannot start in time is refused with Retry-After; the operator endpoints never are', async () => {
    const { origin } = await startFront({ queueTimeoutMs: 300 });
    const first = [fetch(`${origin}/hold/1`), fetch(`${origin}/hold/2`)];
    await until(() => held.size === 2);

    // A third waits its turn and is served when a slot frees.
    const waiting = fetch(`${origin}/page/3`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [releaseFirst] = held;
    held.delete(releaseFirst!);
    releaseFirst!();
    const served = await waiting;
    expect([served.status, await served.text()]).toEqual([200, 'served /page/3']);

    // Both slots held again: the next one is refused once its wait is over.
    first.push(fetch(`${origin}/hold/5`));
    await until(() => held.size === 2);
    const refused = await fetch(`${origin}/page/4`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await refused.json()).error).toMatchObject({ type: 'api_error', code: 'service_busy' });

    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${origin}${path}`)).status, path).toBe(200);
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    releaseHeld();
    for (const answer of await Promise.all(first)) expect(answer.status).toBe(200);
  });
});

describe('the bound: shedding by expected wait', () => {
  /** A bound on a clock the test moves; its queue deadlines run on fake timers. */
  function boundAt(maxInFlight: number, queueTimeoutMs: number) {
    let clock = 0;
    const bound = createInFlightBound(maxInFlight, queueTimeoutMs, () => clock);
    return { bound, advance: (ms: number) => (clock += ms) };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('beyond MAX_IN_FLIGHT a request is queued while the requests ahead times the recent interval between answers fit the budget, and refused at once beyond it', async () => {
    vi.useFakeTimers();
    const { bound, advance } = boundAt(2, 300);
    expect([bound.enter(), bound.enter()]).toEqual([true, true]);
    // One answer a second after the instance became busy: the mean interval is now 100 ms (smoothed from 0).
    advance(1000);
    bound.leave();
    expect(bound.enter()).toBe(true);

    // Two ahead, then three: 200 and 300 ms expected, within the budget; queued.
    const second = bound.enter();
    const third = bound.enter();
    expect(second).toBeInstanceOf(Promise);
    expect(third).toBeInstanceOf(Promise);
    // Four ahead: 400 ms expected. Refused there and then, not after waiting.
    expect(bound.enter()).toBe(false);

    // An answer passes its slot to the longest waiting; the other still cannot start by its deadline.
    bound.leave();
    expect(await second).toBe(true);
    await vi.advanceTimersByTimeAsync(300);
    expect(await third).toBe(false);
  });

  it('below MAX_IN_FLIGHT nothing is refused, however slow the recent answers were', () => {
    const { bound, advance } = boundAt(16, 1);
    bound.enter();
    advance(60_000);
    bound.leave();
    for (let round = 0; round < 3; round++) {
      expect(Array.from({ length: 16 }, () => bound.enter())).toEqual(Array(16).fill(true));
      for (let n = 0; n < 16; n++) bound.leave();
    }
  });

  it('over HTTP: the slots taken, a request that cannot expect its turn in time is 503 service_busy with Retry-After; the operator endpoints still answer; the held ones are served', async () => {
    const { origin } = await startFront({ maxInFlight: 16, queueTimeoutMs: 1 });
    // One slow answer: the next newcomer beyond the slots cannot expect its turn within 1 ms.
    const slow = fetch(`${origin}/hold/slow`);
    await until(() => held.size === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    releaseHeld();
    expect((await slow).status).toBe(200);

    const holding = Array.from({ length: 16 }, (_, n) => fetch(`${origin}/hold/${n}`));
    await until(() => held.size === 16);
    const refused = await fetch(`${origin}/api/v1/things/t_1`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).toBe('close');
    expect((await refused.json()).error).toMatchObject({ type: 'api_error', code: 'service_busy' });
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${origin}${path}`)).status, path).toBe(200);
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);

    releaseHeld();
    expect((await Promise.all(holding)).map((answer) => answer.status)).toEqual(Array(16).fill(200));
  });
});

describe('close: no new connection, every request already on one is answered', () => {
  it('answers the request in flight and one arriving on an open connection (each then closing it), ends idle keep-alive connections, refuses new ones', async () => {
    const { front, port } = await startFront();
    const idle = rawConnection(port);
    idle.send('GET', '/healthz');
    await until(() => idle.received().includes('{"status":"ok"}'));
    const busy = rawConnection(port);
    busy.send('POST', '/hold/in-flight');
    await until(() => held.size === 1);
    const quiet = rawConnection(port);
    await quiet.connected;

    let closed = false;
    const closing = front.close(5_000).then(() => (closed = true));
    // The idle keep-alive connection is ended; the one without a request yet stays open for it.
    await idle.ended;
    quiet.send('GET', '/readyz');
    await quiet.ended;
    expect(quiet.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(quiet.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(quiet.received()).toContain('{"status":"not_ready","checks":{"shutdown":"in_progress"}}');

    const refused = await fetch(`http://127.0.0.1:${port}/healthz`).catch((error: Error) => (error.cause as NodeJS.ErrnoException).code);
    expect(refused).toBe('ECONNREFUSED');
    expect(closed).toBe(false);

    releaseHeld();
    await busy.ended;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(busy.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(busy.received()).toContain('served /hold/in-flight');
    await closing;
    running = undefined;
  });
});
