import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  callService,
  freePort,
  groupAlive,
  payOnHostedPage,
  ROOT,
  serviceEnv,
  serviceStorage,
  START_TIMEOUT_MS,
  startService,
  stopService,
  type Service,
} from '../support/production-server';

/**
 * What an operator relies on, against the real `npm start`: the operator endpoints, JSON log
 * lines under each answer's Request-Id, no secret in a whole run's output, and a stop by
 * SIGTERM or Ctrl-C under load in which every request gets its answer.
 */
const ADMIN_TOKEN = 'admin-token-operations-e2e-7f3a9c';
const METRICS_TOKEN = 'metrics-token-operations-e2e-52d1be';
const PASSWORD = 'Correct-Horse-Battery-e2e-8841';
const COOKIE_VALUE = 'cookie-value-operations-e2e-a1b2c3';
const CARD_NUMBERS = ['4242424242424242', '4000000000000002'];

let port = 0;
let origin = '';
let env = {} as NodeJS.ProcessEnv;
let cleanupStorage: () => Promise<void> = async () => {};
let service: Service;
/** Every line the service printed, over every start of this file. */
let earlierOutput = '';
let key = '';

const allOutput = () => earlierOutput + service.output();

beforeAll(async () => {
  port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const storage = await serviceStorage('operations-e2e');
  cleanupStorage = storage.cleanup;
  env = serviceEnv({ ...storage.env, PORT: String(port), ADMIN_TOKEN, METRICS_TOKEN, RATE_LIMIT_PER_IP: '100000', RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_PRODUCT_WRITES_PER_KEY: '100000' });
  service = await startService(env);
  key = (await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Operations end to end' })).keys.sk_test;
}, START_TIMEOUT_MS + 30_000);

afterAll(async () => {
  if (service) await stopService(service);
  await cleanupStorage();
}, 60_000);

/** The JSON log lines printed so far (the demo store's banner and the build's output are not). */
function logLines(): Record<string, unknown>[] {
  return allOutput()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `count` product creates at once; each resolves to its status and error code, or to the connection's error. */
function createsAtOnce(count: number): Promise<{ status?: number; code?: string; failure?: string }>[] {
  return Array.from({ length: count }, (_, index) =>
    fetch(`${origin}/api/v1/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Load ${index}`, amount: 500 }),
    }).then(
      async (answer) => ({ status: answer.status, code: answer.status === 201 ? undefined : (await answer.json()).error?.code }),
      (error: Error) => ({ failure: String((error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message) }),
    ),
  );
}

/** Every create answered completely: created, or refused as busy (none reset, none cut off). */
function expectAllAnswered(results: { status?: number; code?: string; failure?: string }[]): void {
  for (const result of results)
    expect([
      { status: 201, code: undefined },
      { status: 503, code: 'service_busy' },
    ]).toContainEqual(result);
  expect(results.filter((result) => result.status === 201).length).toBeGreaterThan(0);
}

/** `npm start` as a user runs it, expected to refuse: its exit code, its own lines (npm's aside) and all it printed. */
async function refusedStart(startEnv: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: string[]; output: string }> {
  const child = spawn('npm', ['start'], { cwd: ROOT, env: startEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  // npm's own lines (the script it runs, and its note that the script failed) aside.
  const lines = output.split('\n').filter((line) => line.trim() !== '' && !/^(> |npm )/.test(line));
  return { code, lines, output };
}

describe('operating npm start', () => {
  it('/healthz, /readyz and /metrics (with METRICS_TOKEN only), counting by route template and payments by outcome', async () => {
    const health = await fetch(`${origin}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${origin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: { database: 'ok' } }]);
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);

    const product = await callService(origin, key, 'POST', '/api/v1/products', { name: 'Metered', amount: 1200 });
    expect(product.status).toBe(201);
    expect((await callService(origin, key, 'GET', `/api/v1/products/${product.body.id}`)).status).toBe(200);
    const session = await callService(origin, key, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'ada@example.com' });
    expect(await payOnHostedPage(session.body.url, origin, CARD_NUMBERS[0]!)).toBe(303);

    const metrics = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/api\/v1\/products",status="201"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/api\/v1\/products\/\{id\}",status="200"\} 1$/m);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/checkout\/\{id\}\/pay",status="303"\} 1$/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/products"\} [1-9]\d*$/m);
    expect(text).toMatch(/^payments_total\{outcome="succeeded"\} 1$/m);
    expect(text).toContain('# TYPE webhook_deliveries_total counter');
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]\d*$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).not.toContain(product.body.id);
    expect(text).not.toContain(session.body.id);
  });

  it('every answer carries a Request-Id, and its request’s JSON log line carries it with method, route, status and duration', async () => {
    const answers = await Promise.all([
      fetch(`${origin}/api/v1/products?limit=1`, { headers: { authorization: `Bearer ${key}` } }),
      fetch(`${origin}/api/v1/products/prod_missing`, { headers: { authorization: `Bearer ${key}` } }),
      fetch(`${origin}/`),
      fetch(`${origin}/no/such/page`),
    ]);
    const ids = answers.map((answer) => answer.headers.get('request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{16}$/);
    expect(await answers[1]!.json()).toMatchObject({ error: { code: 'resource_missing' } });
    // A line is written once its answer is out.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const expected = [
      { method: 'GET', route: '/api/v1/products', status: 200 },
      { method: 'GET', route: '/api/v1/products/{id}', status: 404 },
      { method: 'GET', route: '/', status: 200 },
      { method: 'GET', route: '/{unmatched}', status: 404 },
    ];
    const lines = logLines();
    ids.forEach((id, index) => {
      const line = lines.find((entry) => entry.request_id === id);
      expect(line).toMatchObject({ level: 'info', msg: 'request', ...expected[index] });
      expect(new Date(line!.time as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(line!.duration_ms).toEqual(expect.any(Number));
    });
  });

  it('SIGTERM to the npm process under 150 concurrent creates: every one is answered, no connection reset; exit 0 within 30 s', async () => {
    const results = createsAtOnce(150);
    // Once the service is creating them, most are still in flight (a busy instance may refuse the first few at once).
    await Promise.any(results.map((result) => result.then((answer) => (answer.status === 201 ? answer : Promise.reject(new Error(JSON.stringify(answer)))))));
    const stopped = stopService(service);
    const settled = await Promise.all(results);
    expectAllAnswered(settled);
    expect(await stopped).toBe(0);
    expect(service.output().match(/SIGTERM: finishing requests in flight, then stopping\./g)).toHaveLength(1);
    expect(service.output()).toContain('Stopped.');
  }, 60_000);

  it(
    'a second npm start on the same data directory exits 1 with one line naming the running one’s pid and port',
    async () => {
      earlierOutput += service.output();
      service = await startService(env);
      const { code, lines } = await refusedStart(env);
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`pid \\d+, port ${port}\\b`));
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    },
    START_TIMEOUT_MS,
  );

  it(
    'npm start on a port another program holds exits 1 with one line naming the port, before any build or migration',
    async () => {
      const holder = createServer();
      const takenPort = await freePort();
      await new Promise<void>((resolve) => holder.listen(takenPort, '127.0.0.1', resolve));
      const storage = await serviceStorage('operations-port-taken');
      try {
        const { code, lines, output } = await refusedStart({ ...env, ...storage.env, PORT: String(takenPort) });
        expect(code).toBe(1);
        expect(lines).toEqual([`Port ${takenPort} is already in use by another program. Set PORT to use another.`]);
        expect(output).not.toMatch(/Building|migrat/i);
      } finally {
        holder.close();
        await storage.cleanup();
      }
    },
    START_TIMEOUT_MS,
  );

  it('Ctrl-C (SIGINT to the whole process group) under 150 concurrent creates: one stop, every create answered, exit 0', async () => {
    const pid = service.child.pid!;
    const results = createsAtOnce(150);
    await Promise.race(results);
    process.kill(-pid, 'SIGINT');
    expectAllAnswered(await Promise.all(results));
    expect(await service.exited).toBe(0);
    const deadline = Date.now() + 30_000;
    while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(groupAlive(pid)).toBe(false);
    expect(service.output().match(/SIGINT: finishing requests in flight/g)).toHaveLength(1);
    expect(service.output()).not.toContain('again: exiting now');
  }, 60_000);

  it(
    'no key, token, client secret, password, card number or cookie in the output of the whole run',
    async () => {
      earlierOutput += service.output();
      service = await startService(env);
      const admin = adminClient(origin, ADMIN_TOKEN);
      const store = await admin.store.create.mutate({ name: 'Secrets end to end' });
      const secrets: string[] = [ADMIN_TOKEN, METRICS_TOKEN, PASSWORD, COOKIE_VALUE, ...CARD_NUMBERS, ...Object.values(store.keys)];
      const sk = store.keys.sk_test;

      const product = await callService(origin, sk, 'POST', '/api/v1/products', { name: 'Secret-free', amount: 900 });
      const session = await callService(origin, sk, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'ada@example.com' });
      expect(session.status).toBe(201);
      secrets.push(session.body.client_secret, new URL(session.body.url).searchParams.toString());
      // A paying card and, on another session, a declined one, typed into the hosted form.
      expect(await payOnHostedPage(session.body.url, origin, CARD_NUMBERS[0]!)).toBe(303);
      const declinedSession = await callService(origin, sk, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'bo@example.com' });
      secrets.push(declinedSession.body.client_secret);
      expect(await payOnHostedPage(declinedSession.body.url, origin, CARD_NUMBERS[1]!)).toBeLessThan(500);
      // The publishable key and client secret of the embedded flow, with a card in the body and a
      // cookie, as a browser sends them.
      const confirmed = await fetch(`${origin}/api/v1/checkout/sessions/${declinedSession.body.id}/confirm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${store.keys.pk_test}`, 'content-type': 'application/json', cookie: `authjs.session-token=${COOKIE_VALUE}` },
        body: JSON.stringify({ client_secret: declinedSession.body.client_secret, card_number: CARD_NUMBERS[0], cvc: '123' }),
      });
      expect(confirmed.status).toBeGreaterThanOrEqual(400);
      expect(confirmed.headers.get('request-id')).toMatch(/^req_/);

      // A portal link (its token is the credential), opened.
      const portal = await callService(origin, sk, 'POST', '/api/v1/portal/sessions', { customer_email: 'ada@example.com' });
      expect(portal.status).toBe(201);
      secrets.push(new URL(portal.body.url).pathname.split('/').pop()!);
      expect((await fetch(portal.body.url.replace(/^https?:\/\/[^/]+/, origin))).status).toBe(200);

      // A webhook endpoint's signing secret, and an invitation link's token.
      const endpoint = await callService(origin, sk, 'POST', '/api/v1/webhook_endpoints', { url: 'https://example.com/hooks' });
      expect(endpoint.status).toBe(201);
      secrets.push(endpoint.body.secret);
      const invited = await admin.user.invite.mutate({ store: store.id, email: 'sam@example.com', role: 'support' });
      secrets.push(new URL(invited.url).pathname.split('/').pop()!);
      expect((await fetch(invited.url.replace(/^https?:\/\/[^/]+/, origin))).status).toBe(200);

      // A dashboard sign-in with a password, posted as the page's form posts it (no script).
      const signInPage = await (await fetch(`${origin}/dashboard/sign-in`)).text();
      const actionField = /name="(\$ACTION_ID_[0-9a-f]+)"/.exec(signInPage)?.[1];
      expect(actionField).toBeDefined();
      const form = new FormData();
      form.set(actionField!, '');
      form.set('email', 'nobody@example.com');
      form.set('password', PASSWORD);
      const signIn = await fetch(`${origin}/dashboard/sign-in`, { method: 'POST', body: form, headers: { origin }, redirect: 'manual' });
      expect(signIn.status).toBeLessThan(500);

      await new Promise((resolve) => setTimeout(resolve, 200));
      const output = allOutput();
      for (const secret of secrets) {
        expect(secret.length).toBeGreaterThan(8);
        expect(output.includes(secret), `the output holds ${secret}`).toBe(false);
      }
      // The card numbers as typed, grouped in fours, too.
      for (const number of CARD_NUMBERS) expect(output).not.toContain(number.replace(/(\d{4})(?=\d)/g, '$1 '));
    },
    START_TIMEOUT_MS,
  );
});
