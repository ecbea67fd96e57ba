import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CARDS, PLAN } from '../subscriptions/support';
import {
  adminClient,
  callService,
  freePort,
  groupAlive,
  payOnHostedPage,
  serviceEnv,
  serviceStorage,
  START_TIMEOUT_MS,
  startService,
  startWorker,
  stopService,
  stopWorker,
  type Service,
  type WorkerProcess,
} from '../support/production-server';
import { startReceiver, type Receiver } from '../webhooks/support';

/**
 * `npm run worker` as an operator starts it: a process of its own (npm, then node), stopped by a
 * SIGTERM to the npm process. With DATABASE_URL (PostgreSQL) two workers do the background work
 * of a web instance that runs with BACKGROUND_WORK=false.
 */
const AUTH_SECRET = 'worker-e2e-auth-secret-0123456789abcdef';
const ADMIN_TOKEN = 'worker-e2e-admin-token';

const running: WorkerProcess[] = [];
afterAll(() => {
  for (const worker of running) if (groupAlive(worker.child.pid!)) process.kill(-worker.child.pid!, 'SIGKILL');
});

describe('npm run worker with a database it cannot reach', () => {
  it('says so, keeps trying, and still stops on SIGTERM with exit code 0, leaving no process', async () => {
    const worker = startWorker({ DATABASE_URL: 'postgres://postgres@127.0.0.1:2/unreachable', AUTH_SECRET });
    running.push(worker);
    await vi.waitFor(() => expect(worker.output().match(/The database is unreachable \(.*ECONNREFUSED.*\); trying again in \d+ s\./g)?.length).toBeGreaterThanOrEqual(2), {
      timeout: 60_000,
      interval: 100,
    });
    expect(worker.child.exitCode).toBeNull();
    expect(await stopWorker(worker)).toBe(0);
    expect(worker.output()).toContain('SIGTERM: finishing the runs in progress, then stopping.');
    expect(worker.output()).toContain('Stopped.');
  }, 120_000);

  it('Ctrl-C (SIGINT to the whole process group, which npm also forwards) is one stop: exit 0, not an immediate exit', async () => {
    const worker = startWorker({ DATABASE_URL: 'postgres://postgres@127.0.0.1:2/unreachable', AUTH_SECRET });
    running.push(worker);
    await vi.waitFor(() => expect(worker.output()).toContain('The database is unreachable'), { timeout: 60_000, interval: 100 });
    process.kill(-worker.child.pid!, 'SIGINT');
    expect(await worker.exited).toBe(0);
    expect(worker.output().match(/SIGINT: finishing the runs in progress/g)).toHaveLength(1);
    expect(worker.output()).not.toContain('again: exiting now');
    await vi.waitFor(() => expect(groupAlive(worker.child.pid!)).toBe(false), { timeout: 30_000, interval: 50 });
  }, 120_000);
});

if (!process.env.DATABASE_URL) {
  describe('npm run worker without DATABASE_URL', () => {
    it('exits 1 and says why: the embedded database belongs to npm start', async () => {
      const worker = startWorker({ AUTH_SECRET });
      running.push(worker);
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toContain('npm run worker needs DATABASE_URL');
    }, 120_000);
  });
} else {
  describe('two workers beside a web instance with BACKGROUND_WORK=false (PostgreSQL)', () => {
    let port = 0;
    let web: Service | undefined;
    let cleanupStorage: () => Promise<void> = async () => {};
    let receiver: Receiver;
    let workers: WorkerProcess[] = [];
    let key: string;

    const request = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, key, method, route, body);

    beforeAll(async () => {
      port = await freePort();
      const storage = await serviceStorage('worker-e2e');
      cleanupStorage = storage.cleanup;
      const shared = { ...storage.env, AUTH_SECRET, SUBSCRIPTIONS_ENABLED: 'true', WEBHOOK_DELIVERY_INTERVAL_MS: '200' };
      web = await startService(serviceEnv({ ...shared, PORT: String(port), ADMIN_TOKEN, BACKGROUND_WORK: 'false' }));
      workers = [startWorker(shared), startWorker(shared)];
      running.push(...workers);
      receiver = await startReceiver();
      key = (await adminClient(`http://127.0.0.1:${port}`, ADMIN_TOKEN).store.create.mutate({ name: 'Worker end to end', subscriptions: true })).keys.sk_test;
    }, 3 * START_TIMEOUT_MS);

    afterAll(async () => {
      await receiver?.close();
      if (web) await stopService(web);
      await cleanupStorage();
    }, 60_000);

    it('the workers are still running after 10 s', async () => {
      await vi.waitFor(() => expect(workers.every((worker) => worker.output().includes('worker started: '))).toBe(true), { timeout: 60_000, interval: 100 });
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      for (const worker of workers) expect(worker.child.exitCode, worker.output()).toBeNull();
    }, 90_000);

    it('they deliver what the web instance writes, each event once, and bill the renewal once', async () => {
      const endpoint = await request('POST', '/api/v1/webhook_endpoints', { url: receiver.url });
      expect(endpoint.status).toBe(201);
      const checkout = await request('POST', '/api/v1/subscriptions', PLAN);
      expect(checkout.status).toBe(201);
      expect(await payOnHostedPage(checkout.body.url, `http://127.0.0.1:${port}`, CARDS.approved)).toBe(303);

      const types = () => receiver.acknowledged.map((webhook) => (JSON.parse(webhook.body) as { type: string }).type);
      await vi.waitFor(() => expect(types()).toContain('subscription.created'), { timeout: 30_000, interval: 100 });
      const advanced = await request('POST', '/api/v1/test_helpers/advance_clock', { seconds: 32 * 24 * 3600 });
      expect(advanced.status).toBe(200);
      await vi.waitFor(() => expect(types()).toContain('subscription.payment_succeeded'), { timeout: 30_000, interval: 100 });
      // Several delivery and billing passes of both workers later, nothing came twice.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const verifier = new Webhook(endpoint.body.secret);
      const ids = receiver.received.map((webhook) => (verifier.verify(webhook.body, webhook.headers) as { id: string }).id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(types().filter((type) => type === 'subscription.created')).toHaveLength(1);
      expect(types().filter((type) => type === 'subscription.payment_succeeded')).toHaveLength(1);
      // Billed once: the subscription stands where the one renewal's event left it.
      const renewal = receiver.acknowledged
        .map((webhook) => JSON.parse(webhook.body) as { type: string; data: { object: { id: string } } })
        .find((event) => event.type === 'subscription.payment_succeeded')!;
      const subscription = await request('GET', `/api/v1/subscriptions/${renewal.data.object.id}`);
      expect(subscription.body).toEqual(renewal.data.object);
      expect(subscription.body.status).toBe('active');
    }, 120_000);

    it('SIGTERM to each npm process: the worker finishes its runs, npm exits 0, no process is left', async () => {
      expect(await Promise.all(workers.map(stopWorker))).toEqual([0, 0]);
      for (const worker of workers) expect(worker.output()).toContain('Stopped.');
    }, 60_000);
  });
}
