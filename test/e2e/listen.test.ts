import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '@/db/client';
import { recordEvent } from '@/server/webhooks/events';
import { adminClient, callService, freePort, groupAlive, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, stopService, type Service } from '../support/production-server';
import { startReceiver, type Receiver } from '../webhooks/support';

/**
 * `npm run listen` as a merchant runs it on a laptop, against the real `npm start`: each a process
 * of its own (npm, then node), stopped by a SIGTERM to the npm process.
 */
const AUTH_SECRET = 'listen-e2e-auth-secret-0123456789abcdef';
const ADMIN_TOKEN = 'listen-e2e-admin-token';
const FORWARD_LINE = /^\d\d:\d\d:\d\d {2}(\S+) {2}(evt_test_\w+) {2}→ (.+)$/;

interface Listener {
  child: ChildProcess;
  output: () => string;
  lines: () => string[];
  exited: Promise<number | null>;
}

let port = 0;
let serviceEnvironment: NodeJS.ProcessEnv;
let storeId: string;
let service: Service | undefined;
let cleanupStorage: () => Promise<void> = async () => {};
let stateDir: string;
let receiver: Receiver;
let keys: { sk_test: string; pk_test: string };
const listeners: Listener[] = [];

const origin = () => `http://127.0.0.1:${port}`;
const createProduct = async (name: string) => {
  const created = await callService(origin(), keys.sk_test, 'POST', '/api/v1/products', { name, amount: 1200 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
};

function startListen(args: string[], env: Record<string, string> = {}): Listener {
  // Its own process group, so that the test can tell whether any process of it is left.
  const child = spawn('npm', ['run', '--silent', 'listen', '--', ...args], {
    cwd: ROOT,
    env: serviceEnv({ SERVICE_URL: origin(), LISTEN_STATE_DIR: stateDir, ...env }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const listener = { child, output: () => output, lines: () => output.split('\n').filter(Boolean), exited };
  listeners.push(listener);
  return listener;
}

/** Waits for the Ready line and returns the secret it prints. */
async function ready(listener: Listener): Promise<string> {
  await vi.waitFor(() => expect(listener.lines()[0], listener.output()).toMatch(/Ready/), { timeout: 30_000, interval: 100 });
  return /Ready.*(whsec_[A-Za-z0-9+/=]+)/.exec(listener.lines()[0]!)![1]!;
}

/** SIGTERM to the npm process only, as a terminal's supervisor sends it: exit code once no process of the group is left. */
async function stopListen(listener: Listener): Promise<number | null> {
  const pid = listener.child.pid!;
  const stopped = Date.now();
  if (listener.child.exitCode === null) process.kill(pid, 'SIGTERM');
  await vi.waitFor(() => expect(groupAlive(pid), `a process of listen is left:\n${listener.output()}`).toBe(false), { timeout: 10_000, interval: 50 });
  expect(Date.now() - stopped).toBeLessThan(5_000);
  return listener.exited;
}

const forwards = (listener: Listener) => listener.lines().flatMap((line) => (FORWARD_LINE.exec(line) ? [FORWARD_LINE.exec(line)!.slice(1)] : []));
const receivedEvents = () => receiver.received.map((webhook) => JSON.parse(webhook.body) as { id: string; type: string; data: { object: { id: string } } });

beforeAll(async () => {
  port = await freePort();
  const storage = await serviceStorage('listen-e2e');
  cleanupStorage = storage.cleanup;
  stateDir = await mkdtemp(path.join(tmpdir(), 'listen-state-'));
  serviceEnvironment = serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET, ADMIN_TOKEN });
  service = await startService(serviceEnvironment);
  receiver = await startReceiver();
  ({ id: storeId, keys } = await adminClient(origin(), ADMIN_TOKEN).store.create.mutate({ name: 'Listen end to end' }));
}, START_TIMEOUT_MS + 30_000);

afterAll(async () => {
  for (const listener of listeners) if (groupAlive(listener.child.pid!)) process.kill(-listener.child.pid!, 'SIGKILL');
  await receiver?.close();
  if (service) await stopService(service);
  await cleanupStorage();
  await rm(stateDir, { recursive: true, force: true });
}, 60_000);

describe('npm run listen', () => {
  it('a publishable or an unknown key: one line saying so, exit 1', async () => {
    const publishable = startListen(['--forward-to', receiver.url, '--api-key', keys.pk_test]);
    const unknown = startListen(['--forward-to', receiver.url], { SERVICE_API_KEY: 'sk_test_000000000000000000000000unknown' });
    expect(await publishable.exited).toBe(1);
    expect(publishable.lines()).toEqual([expect.stringMatching(/refused the API key \(wrong_key_type\): .*secret key/)]);
    expect(await unknown.exited).toBe(1);
    expect(unknown.lines()).toEqual([expect.stringMatching(/refused the API key \(invalid_api_key\)/)]);
  }, 60_000);

  it('forwards each event recorded after it started, once, in order, signed with the secret it prints', async () => {
    await createProduct('Before listen');
    const listener = startListen(['--forward-to', receiver.url, '--api-key', keys.sk_test]);
    const secret = await ready(listener);
    const products = [await createProduct('One'), await createProduct('Two'), await createProduct('Three')];
    await vi.waitFor(() => expect(forwards(listener)).toHaveLength(3), { timeout: 20_000, interval: 100 });

    const verifier = new Webhook(secret);
    for (const webhook of receiver.received) expect(verifier.verify(webhook.body, webhook.headers)).toEqual(JSON.parse(webhook.body));
    expect(receiver.received.map((webhook) => webhook.headers['content-type'])).toEqual(Array(3).fill('application/json'));
    const events = receivedEvents();
    expect(events.map((event) => [event.type, event.data.object.id])).toEqual(products.map((id) => ['product.created', id]));
    // The body is the event exactly as the API lists it.
    const listed = await callService(origin(), keys.sk_test, 'GET', `/api/v1/events/${events[0]!.id}`);
    expect(receiver.received[0]!.body).toBe(JSON.stringify(listed.body));
    expect(forwards(listener)).toEqual(events.map((event) => ['product.created', event.id, '200']));
    // Nothing else is printed, and nothing comes twice while it keeps following.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(listener.lines()).toHaveLength(4);
    expect(receiver.received).toHaveLength(3);

    expect(await stopListen(listener)).toBe(0);
  }, 60_000);

  it('restarted, it continues after the last event it forwarded, under the same secret', async () => {
    const firstSecret = await ready(listeners.at(-1)!);
    const whileStopped = await createProduct('While listen was stopped');
    const listener = startListen(['--forward-to', receiver.url, '--api-key', keys.sk_test]);
    expect(await ready(listener)).toBe(firstSecret);
    const after = await createProduct('After the restart');
    await vi.waitFor(() => expect(forwards(listener)).toHaveLength(2), { timeout: 20_000, interval: 100 });
    expect(
      receivedEvents()
        .slice(3)
        .map((event) => event.data.object.id),
    ).toEqual([whileStopped, after]);
    expect(new Set(receivedEvents().map((event) => event.id)).size).toBe(5);
  }, 60_000);

  it(
    'while the service restarts: one line when it cannot reach it, one when it is back, and it continues',
    async () => {
      const listener = listeners.at(-1)!;
      await stopService(service!);
      await vi.waitFor(() => expect(listener.output()).toContain('Cannot follow the service'), { timeout: 10_000, interval: 100 });
      service = await startService(serviceEnvironment);
      await vi.waitFor(() => expect(listener.output()).toContain('answers again'), { timeout: 10_000, interval: 100 });
      const product = await createProduct('After the service restart');
      await vi.waitFor(() => expect(forwards(listener)).toHaveLength(3), { timeout: 20_000, interval: 100 });
      expect(receivedEvents().at(-1)!.data.object.id).toBe(product);
      expect(listener.output().match(/Cannot follow the service at .*; trying again every 1 s\./g)).toHaveLength(1);
      expect(listener.output().match(/answers again/g)).toHaveLength(1);
      expect(new Set(receivedEvents().map((event) => event.id)).size).toBe(receivedEvents().length);
      expect(await stopListen(listener)).toBe(0);
    },
    START_TIMEOUT_MS + 60_000,
  );

  it('--events forwards only the types asked for; a store without events yet; a last event the service no longer knows', async () => {
    const store = await adminClient(origin(), ADMIN_TOKEN).store.create.mutate({ name: 'Listen, filtered' });
    const ownStateDir = path.join(stateDir, 'filtered');
    const listen = () => startListen(['--forward-to', receiver.url, '--api-key', store.keys.sk_test, '--events', 'product.updated,checkout.session.*'], { LISTEN_STATE_DIR: ownStateDir });
    const createAndRename = async (name: string) => {
      const created = await callService(origin(), store.keys.sk_test, 'POST', '/api/v1/products', { name, amount: 900 });
      expect(created.status).toBe(201);
      expect((await callService(origin(), store.keys.sk_test, 'PATCH', `/api/v1/products/${created.body.id}`, { name: `${name}, renamed` })).status).toBe(200);
      return created.body.id as string;
    };

    const listener = listen();
    await ready(listener);
    const product = await createAndRename('Filtered');
    await vi.waitFor(() => expect(forwards(listener)).toHaveLength(1), { timeout: 20_000, interval: 100 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(forwards(listener).map(([type]) => type)).toEqual(['product.updated']);
    expect(receivedEvents().at(-1)).toMatchObject({ type: 'product.updated', data: { object: { id: product, name: 'Filtered, renamed' }, previous_attributes: { name: 'Filtered' } } });
    expect(await stopListen(listener)).toBe(0);

    // As after a reset of the service's database: the event it followed from is gone.
    const [stateFile] = await readdir(ownStateDir);
    const state = JSON.parse(await readFile(path.join(ownStateDir, stateFile!), 'utf8'));
    await writeFile(path.join(ownStateDir, stateFile!), JSON.stringify({ ...state, cursor: 'evt_test_000000000000000000000000' }));
    const restarted = listen();
    await ready(restarted);
    await vi.waitFor(() => expect(restarted.output()).toContain('The service no longer knows the last event followed (evt_test_000000000000000000000000)'), { timeout: 20_000, interval: 100 });
    const next = await createAndRename('After the reset');
    await vi.waitFor(() => expect(forwards(restarted)).toHaveLength(1), { timeout: 20_000, interval: 100 });
    expect(receivedEvents().at(-1)).toMatchObject({ type: 'product.updated', data: { object: { id: next } } });
    expect(restarted.lines()).toHaveLength(3);
    expect(await stopListen(restarted)).toBe(0);
  }, 60_000);

  it('a service that is not running: one line, it keeps trying, and SIGINT stops it with exit 0', async () => {
    const listener = startListen(['--forward-to', receiver.url, '--api-key', keys.sk_test, '--service-url', `http://127.0.0.1:${await freePort()}`]);
    await vi.waitFor(() => expect(listener.output()).toContain('Cannot follow the service'), { timeout: 20_000, interval: 100 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(listener.lines()).toEqual([expect.stringMatching(/Cannot follow the service at .* \(ECONNREFUSED\); trying again every 1 s\./)]);
    process.kill(-listener.child.pid!, 'SIGINT');
    expect(await listener.exited).toBe(0);
  }, 60_000);

  // PostgreSQL only: PGlite is inside the npm start process, so no transaction of the test can hold it open.
  if (process.env.DATABASE_URL) {
    it('an event whose transaction commits after a later event’s is still forwarded, once', async () => {
      const handle = await openDatabase({ url: serviceEnvironment.DATABASE_URL, poolSize: 1 });
      try {
        const listener = startListen(['--forward-to', receiver.url, '--api-key', keys.sk_test], { LISTEN_STATE_DIR: path.join(stateDir, 'late') });
        await ready(listener);
        // A change of an existing product (its event must read as one), held open while another commits.
        const before = (await callService(origin(), keys.sk_test, 'GET', `/api/v1/products/${await createProduct('Recorded first, committed late')}`)).body;
        await vi.waitFor(() => expect(forwards(listener)).toHaveLength(1), { timeout: 20_000, interval: 100 });
        let commit!: () => void;
        let recorded!: () => void;
        const isRecorded = new Promise<void>((resolve) => (recorded = resolve));
        const late = handle.db.transaction(async (tx) => {
          const object = { ...before, name: 'Renamed late' };
          const event = await recordEvent(tx, { storeId, livemode: false, type: 'product.updated', object, previous: before, now: new Date(), wallNow: new Date() });
          recorded();
          await new Promise<void>((resolve) => (commit = resolve));
          return event;
        });
        await isRecorded;
        const product = await createProduct('Recorded after, committed before');
        await vi.waitFor(() => expect(forwards(listener)).toHaveLength(2), { timeout: 20_000, interval: 100 });
        commit();
        const lateEvent = await late;
        await vi.waitFor(() => expect(forwards(listener), listener.output()).toHaveLength(3), { timeout: 20_000, interval: 100 });
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        expect(
          forwards(listener)
            .slice(1)
            .map(([type, id]) => [type, id]),
        ).toEqual([
          ['product.created', receivedEvents().find((event) => event.data.object.id === product)!.id],
          ['product.updated', lateEvent.id],
        ]);
        expect(await stopListen(listener)).toBe(0);
      } finally {
        await handle.close();
      }
    }, 60_000);
  }
});
