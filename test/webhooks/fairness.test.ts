import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { webhookDeliveries } from '@/db/schema';
import { MAX_IN_FLIGHT_BEYOND_SHARES, SCOPE_SHARE } from '@/server/webhooks/delivery';
import { startWebhookDeliveryJob } from '@/server/webhooks/jobs';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createEndpoint, startReceiver, writeEvent, type ReceivedWebhook } from './support';

const api = useTestApi();
const eventIds = (webhooks: ReceivedWebhook[]) => webhooks.map((webhook) => webhook.headers['webhook-id']);

afterEach(async () => {
  await api.services.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'pending'));
});

describe('one store cannot stall the others’ webhooks', () => {
  it('a store whose receivers accept and never answer holds its own share of the worker; another store’s deliveries keep their normal latency', async () => {
    // Accepts every request and never answers: each attempt would hold its slot until the timeout.
    const blackHole = await startReceiver();
    blackHole.gate = new Promise<void>(() => {});
    const fast = await startReceiver();
    const stalling = await createStore(api.services);
    const other = await createStore(api.services);
    for (let n = 0; n < 5; n += 1) await createEndpoint(api, stalling.keys.sk_test, { url: blackHole.url });
    // 60 deliveries of distinct objects, all due before the other store's: more than the stalling store may hold.
    for (let n = 0; n < 12; n += 1) await writeEvent(api, stalling, {});
    await createEndpoint(api, other.keys.sk_test, { url: fast.url });
    const waiting = await writeEvent(api, other, { type: 'order.paid', object: { id: 'ord_test_fair1', object: 'order' } });
    // A timeout no test outlives: without a fair share the other store waits for it.
    const task = startWebhookDeliveryJob({ ...api.services, config: { ...api.services.config, webhookDeliveryIntervalMs: 100 } }, { timeoutMs: 120_000 });
    try {
      // Behind a backlog of older deliveries of another store, its turn comes in the first claim.
      await vi.waitFor(() => expect(eventIds(fast.acknowledged)).toEqual([waiting.id]), { timeout: 5_000 });
      // The stalling store takes what is free beyond the others' shares, and no more.
      await vi.waitFor(() => expect(blackHole.received).toHaveLength(MAX_IN_FLIGHT_BEYOND_SHARES), { timeout: 10_000 });

      // While the stalling store's attempts hang, a new live-like event of the other store goes promptly.
      const started = Date.now();
      const paid = await writeEvent(api, other, { type: 'order.paid', object: { id: 'ord_test_fair2', object: 'order' } });
      await vi.waitFor(() => expect(eventIds(fast.acknowledged)).toEqual([waiting.id, paid.id]), { timeout: 5_000 });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(blackHole.received).toHaveLength(MAX_IN_FLIGHT_BEYOND_SHARES);
      // Recorded once the answer is read, a moment after the receiver acknowledged.
      await vi.waitFor(async () => {
        const [delivery] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, paid.id));
        expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseStatus: 200 });
      });
    } finally {
      // Closing the black hole ends its attempts (and the pass) at once.
      await blackHole.close();
      await task.stop();
      await fast.close();
    }
  });

  it('two stores that hang each keep at least their share, and a third store’s delivery still goes at once', async () => {
    const blackHoles = [await startReceiver(), await startReceiver()];
    for (const blackHole of blackHoles) blackHole.gate = new Promise<void>(() => {});
    const fast = await startReceiver();
    const stalling = [await createStore(api.services), await createStore(api.services)];
    for (const [n, store] of stalling.entries()) {
      for (let e = 0; e < 4; e += 1) await createEndpoint(api, store.keys.sk_test, { url: blackHoles[n]!.url });
      for (let e = 0; e < 10; e += 1) await writeEvent(api, store, {});
    }
    const other = await createStore(api.services);
    await createEndpoint(api, other.keys.sk_test, { url: fast.url });
    const task = startWebhookDeliveryJob({ ...api.services, config: { ...api.services.config, webhookDeliveryIntervalMs: 100 } }, { timeoutMs: 120_000 });
    try {
      await vi.waitFor(() => expect(blackHoles[0]!.received.length + blackHoles[1]!.received.length).toBe(MAX_IN_FLIGHT_BEYOND_SHARES), { timeout: 10_000 });
      for (const blackHole of blackHoles) expect(blackHole.received.length).toBeGreaterThanOrEqual(SCOPE_SHARE);
      const started = Date.now();
      const paid = await writeEvent(api, other, { type: 'order.paid', object: { id: 'ord_test_fair3', object: 'order' } });
      await vi.waitFor(() => expect(eventIds(fast.acknowledged)).toEqual([paid.id]), { timeout: 5_000 });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const blackHole of blackHoles) await blackHole.close();
      await task.stop();
      await fast.close();
    }
  });
});
