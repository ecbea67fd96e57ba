import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { webhookDeliveries } from '@/db/schema';
import { startWebhookDeliveryJob } from '@/server/webhooks/jobs';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createEndpoint, startReceiver, writeEvent, type Receiver } from './support';

const api = useTestApi();
let receiver: Receiver;
const advanceClock = async (key: string, seconds: number) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } })).status).toBe(200);

beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.acknowledged.length = 0;
});

describe('the delivery worker as a background task', () => {
  it('it delivers on its own schedule, and stop waits for the pass in progress', async () => {
    const store = await createStore(api.services);
    await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
    const task = startWebhookDeliveryJob({ ...api.services, config: { ...api.services.config, webhookDeliveryIntervalMs: 50 } });
    try {
      const event = await writeEvent(api, store, {});
      await vi.waitFor(() => expect(receiver.acknowledged.map((webhook) => webhook.headers['webhook-id'])).toEqual([event.id]), { timeout: 10_000 });
      await task.stop();
      const [delivery] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseStatus: 200 });
    } finally {
      await task.stop();
    }
  });

  it('advance_clock wakes the worker without waiting for the receiver', async () => {
    const store = await createStore(api.services);
    await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
    // An interval no test outlives: only the wake-up after advance_clock can send.
    const task = startWebhookDeliveryJob({ ...api.services, config: { ...api.services.config, webhookDeliveryIntervalMs: 3_600_000 } });
    let release!: () => void;
    receiver.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const event = await writeEvent(api, store, {});
      const advanced = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: store.keys.sk_test, body: { seconds: 60 } });
      expect(advanced.status).toBe(200);
      expect(receiver.acknowledged).toEqual([]);
      await vi.waitFor(() => expect(receiver.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([event.id]), { timeout: 10_000 });
      release();
      await vi.waitFor(() => expect(receiver.acknowledged).toHaveLength(1), { timeout: 10_000 });
    } finally {
      release();
      receiver.gate = undefined;
      await task.stop();
      await receiver.close();
    }
  });

  describe('wakes the worker, whose own interval no test outlives', () => {
    let hooks: Receiver;
    let task: ReturnType<typeof startWebhookDeliveryJob>;
    let store: Awaited<ReturnType<typeof createStore>>;
    let endpoint: { id: string };
    const deliveries = async () =>
      (await api.request('GET', `/api/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: store.keys.sk_test })).body.data as { status: string; attempt_log: unknown[] }[];
    const received = () => hooks.received.map((webhook) => webhook.headers['webhook-id']);

    beforeEach(async () => {
      hooks = await startReceiver();
      store = await createStore(api.services);
      endpoint = await createEndpoint(api, store.keys.sk_test, { url: hooks.url });
      task = startWebhookDeliveryJob({ ...api.services, config: { ...api.services.config, webhookDeliveryIntervalMs: 3_600_000 } });
    });
    afterEach(async () => {
      await task.stop();
      await hooks.close();
    });

    it('advance_clock past a failed attempt’s delay: the retry follows at once', async () => {
      hooks.answers = [500];
      const event = await writeEvent(api, store, {});
      await advanceClock(store.keys.sk_test, 1);
      await vi.waitFor(async () => expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempt_log: [expect.objectContaining({ response_status: 500 })] }), { timeout: 10_000 });
      await advanceClock(store.keys.sk_test, 5);
      await vi.waitFor(() => expect(hooks.acknowledged.map((webhook) => webhook.headers['webhook-id'])).toEqual([event.id]), { timeout: 10_000 });
      expect(received()).toEqual([event.id, event.id]);
    });

    it('enabling a disabled endpoint sends its backlog at once', async () => {
      await api.request('PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, { key: store.keys.sk_test, body: { disabled: true } });
      const event = await writeEvent(api, store, {});
      await advanceClock(store.keys.sk_test, 1);
      expect(await deliveries()).toMatchObject([{ status: 'pending', attempt_log: [] }]);
      await api.request('PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, { key: store.keys.sk_test, body: { disabled: false } });
      await vi.waitFor(() => expect(received()).toEqual([event.id]), { timeout: 10_000 });
    });

    it('a resend is sent at once', async () => {
      const event = await writeEvent(api, store, {});
      const response = await api.request('POST', `/api/v1/events/${event.id}/resend`, { key: store.keys.sk_test, body: { endpoint_id: endpoint.id } });
      expect(response.status).toBe(201);
      await vi.waitFor(() => expect(received()).toEqual([event.id, event.id]), { timeout: 10_000 });
    });
  });
});
