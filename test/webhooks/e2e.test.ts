import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SUBSCRIPTION_EVENT_TYPES } from '@/server/webhooks/events';
import { adminClient, callService, freePort, payOnHostedPage, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, stopService, type Service } from '../support/production-server';
import { CARDS, PLAN } from '../subscriptions/support';
import { startReceiver, type Receiver } from './support';

/**
 * Webhooks end to end: the real `npm start`, whose own background worker delivers what the
 * subscription flow writes to the outbox, to a real receiver that verifies like a merchant's.
 */
const ADMIN_TOKEN = 'webhooks-e2e-admin-token';
let port = 0;
let service: Service | undefined;
let cleanupStorage: () => Promise<void> = async () => {};
let receiver: Receiver;
let key: string;

const request = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, key, method, route, body);

beforeAll(async () => {
  port = await freePort();
  const storage = await serviceStorage('webhooks-e2e');
  cleanupStorage = storage.cleanup;
  service = await startService(serviceEnv({ ...storage.env, PORT: String(port), SUBSCRIPTIONS_ENABLED: 'true', ADMIN_TOKEN }));
  const store = await adminClient(`http://127.0.0.1:${port}`, ADMIN_TOKEN).store.create.mutate({ name: 'Webhooks end to end', subscriptions: true });
  key = store.keys.sk_test;
  receiver = await startReceiver();
  // Starts take turns with the other suites' (test/support/production-server.ts): the wait for a turn comes on top.
}, 3 * START_TIMEOUT_MS);

afterAll(async () => {
  await receiver?.close();
  if (service) await stopService(service);
  await cleanupStorage();
}, 60_000);

describe('npm start delivers webhooks', () => {
  it('a subscription’s events reach a receiver that fails once: signed, retried, each acknowledged exactly once, logged', async () => {
    receiver.answers = [500];
    const endpoint = await request('POST', '/api/v1/webhook_endpoints', { url: receiver.url, events: [...SUBSCRIPTION_EVENT_TYPES] });
    expect(endpoint.status).toBe(201);
    const checkout = await request('POST', '/api/v1/subscriptions', { ...PLAN, metadata: { order_ref: 'E2E-1' } });
    expect(checkout.status).toBe(201);
    expect(await payOnHostedPage(checkout.body.url, `http://127.0.0.1:${port}`, CARDS.approved)).toBe(303);

    // The first attempt answers 500; the worker retries 5 s later on its own.
    await vi.waitFor(() => expect(receiver.acknowledged).toHaveLength(1), { timeout: 45_000, interval: 200 });
    const verifier = new Webhook(endpoint.body.secret);
    const created = verifier.verify(receiver.acknowledged[0]!.body, receiver.acknowledged[0]!.headers) as { id: string; type: string; data: { object: { id: string; metadata: unknown } } };
    expect(created.type).toBe('subscription.created');
    expect(created.data.object.metadata).toEqual({ order_ref: 'E2E-1' });
    expect(receiver.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([created.id, created.id]);
    const subscription = await request('GET', `/api/v1/subscriptions/${created.data.object.id}`);
    expect(created.data.object).toEqual(subscription.body);

    const log = await request('GET', `/api/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
    expect(log.body.data[0]).toMatchObject({ event_id: created.id, status: 'succeeded', attempts: 2, last_response_status: 200 });
    expect(log.body.data[0].attempt_log.map((attempt: { response_status: number }) => attempt.response_status)).toEqual([500, 200]);

    // A month later on the test clock: the recurring charge's events go out after advance_clock.
    const advanced = await request('POST', '/api/v1/test_helpers/advance_clock', { seconds: 32 * 24 * 3600 });
    expect(advanced.status).toBe(200);
    await vi.waitFor(() => expect(receiver.acknowledged.map((webhook) => (JSON.parse(webhook.body) as { type: string }).type)).toContain('subscription.payment_succeeded'), {
      timeout: 30_000,
      interval: 200,
    });
    const ids = receiver.acknowledged.map((webhook) => (verifier.verify(webhook.body, webhook.headers) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
  }, 120_000);
});
