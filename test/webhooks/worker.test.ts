import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { webhookDeliveries } from '@/db/schema';
import { startWebhookDeliveryJob } from '@/server/webhooks/jobs';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createEndpoint, startReceiver, writeEvent, type Receiver } from './support';

const api = useTestApi();
let receiver: Receiver;

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
});
