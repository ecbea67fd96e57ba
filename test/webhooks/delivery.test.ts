import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';
import { epochSeconds } from '@/server/clock';
import { DELIVERY_TIMEOUT_MS, deliverDueWebhooks, MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, type DeliveryDeps } from '@/server/webhooks/delivery';
import { newId } from '@/server/ids';
import { metricsText } from '@/server/observability/metrics';
import { createStore } from '../support/factories';
import { createTestClock, useTestApi, type TestClock } from '../support/server';
import { createEndpoint, startReceiver, subscriptionLike, writeEvent, type ReceivedWebhook, type Receiver } from './support';

const api = useTestApi();
let store: Awaited<ReturnType<typeof createStore>>;
let receiver: Receiver;
let endpoint: { id: string; secret: string };
/** The worker's wall clock, starting at the real time so `standardwebhooks` accepts the timestamps. */
let wall: TestClock;
let deps: DeliveryDeps;

const deliver = () => deliverDueWebhooks(deps);
/** An event written now by the worker's wall clock (the store's clock is the API's test clock). */
const write = (input: Parameters<typeof writeEvent>[2] = {}) => writeEvent(api, store, { wallNow: wall.now(), ...input });
/** webhook_deliveries_total{outcome} as GET /metrics shows it. */
const deliveriesCounted = async (outcome: string) => Number(new RegExp(`^webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(await metricsText())?.[1] ?? 0);
const eventIds = (webhooks: ReceivedWebhook[]) => webhooks.map((webhook) => webhook.headers['webhook-id']);
const log = async (id = endpoint.id, query = '') => (await api.request('GET', `/api/v1/webhook_endpoints/${id}/deliveries${query}`, { key: store.keys.sk_test })).body;

beforeAll(async () => {
  store = await createStore(api.services);
});
beforeEach(async () => {
  wall = createTestClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  // The production timeout: a loaded machine must not turn a held or slow answer into a failure (tests of the timeout set their own).
  deps = { db: api.services.db, clock: wall, config: api.services.config, timeoutMs: DELIVERY_TIMEOUT_MS };
  receiver = await startReceiver();
  store = await createStore(api.services);
  endpoint = await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
});
afterEach(async () => {
  await receiver.close();
  // The worker serves every store: what a test leaves pending must not be due in the next one.
  await api.services.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'pending'));
});

describe('delivery to a real receiver', () => {
  it('signs with Standard Webhooks: standardwebhooks verifies the body and headers a receiver got', async () => {
    const event = await write({ type: 'subscription.created' });
    expect(await deliver()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [webhook] = receiver.received;
    expect(new Webhook(endpoint.secret).verify(webhook!.body, webhook!.headers)).toEqual(event);
    expect(webhook!.headers).toMatchObject({
      'webhook-id': event.id,
      'webhook-timestamp': String(epochSeconds(wall.now())),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      'content-type': 'application/json',
      'user-agent': expect.stringContaining('webhooks'),
    });
  });

  it('a wrong secret or a tampered body fails verification', async () => {
    await write();
    await deliver();
    const [webhook] = receiver.received;
    const other = await createEndpoint(api, store.keys.sk_test, { url: 'http://127.0.0.1:9/unused' });
    expect(() => new Webhook(other.secret).verify(webhook!.body, webhook!.headers)).toThrow();
    expect(() => new Webhook(endpoint.secret).verify(webhook!.body.replace('"active"', '"canceled"'), webhook!.headers)).toThrow();
  });

  it('envelope { id, object: "event", type, created (store clock), livemode, sequence, data.object } with the subscription’s metadata echoed verbatim', async () => {
    const storeNow = new Date('2027-05-04T03:02:01.000Z');
    const subscription = subscriptionLike({ metadata: { zeta: 'last', alpha: 'first', note: 'ünïcode ✓' } });
    await write({ type: 'subscription.payment_succeeded', object: subscription, now: storeNow });
    await deliver();
    const body = receiver.received[0]!.body;
    const envelope = JSON.parse(body);
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_test_[0-9A-Za-z]{24}$/),
      object: 'event',
      type: 'subscription.payment_succeeded',
      created: epochSeconds(storeNow),
      livemode: false,
      sequence: 1,
      data: { object: subscription },
    });
    expect(Object.keys(envelope.data.object.metadata)).toEqual(['zeta', 'alpha', 'note']);
    expect(body.indexOf('"id"')).toBeLessThan(body.indexOf('"object":"event"'));
  });

  it('the events of one object are numbered 1, 2, 3 in what is delivered; an event sent to two endpoints is one delivery each, with its own id', async () => {
    const second = await startReceiver();
    try {
      const secondEndpoint = await createEndpoint(api, store.keys.sk_test, { url: second.url });
      const subscription = subscriptionLike();
      const written = [];
      for (const type of ['subscription.created', 'subscription.updated', 'subscription.canceled'] as const) written.push(await write({ type, object: subscription }));
      expect(written.map((event) => event.sequence)).toEqual([1, 2, 3]);
      await deliver();
      for (const got of [receiver, second]) {
        const bodies = got.received.map((webhook) => JSON.parse(webhook.body)).sort((a, b) => a.sequence - b.sequence);
        expect(bodies).toEqual(written);
      }
      const [first, other] = [(await log()).data, (await log(secondEndpoint.id)).data];
      expect(first).toHaveLength(3);
      expect(other).toHaveLength(3);
      const ids = [...first, ...other].map((delivery: { id: string }) => delivery.id);
      expect(new Set(ids).size).toBe(6);
      for (const id of ids) expect(id).toMatch(/^whd_[0-9A-Za-z]{24}$/);
    } finally {
      await second.close();
    }
  });

  it('only endpoints of the event’s store and environment that want its type receive it', async () => {
    const other = await createStore(api.services);
    const foreign = await startReceiver();
    const picky = await startReceiver();
    try {
      await createEndpoint(api, other.keys.sk_test, { url: foreign.url });
      await createEndpoint(api, store.keys.sk_test, { url: picky.url, events: ['subscription.canceled'] });
      const updated = await write({ type: 'subscription.updated' });
      const canceled = await write({ type: 'subscription.canceled' });
      await write({ type: 'subscription.updated', livemode: true });
      await deliver();
      expect(eventIds(receiver.received).sort()).toEqual([updated.id, canceled.id].sort());
      expect(eventIds(picky.received)).toEqual([canceled.id]);
      expect(foreign.received).toEqual([]);
    } finally {
      await foreign.close();
      await picky.close();
    }
  });

  it('the delivery log: status, attempts, last response status and each attempt', async () => {
    const event = await write({ type: 'subscription.created' });
    await deliver();
    expect(await log()).toEqual({
      object: 'list',
      data: [
        {
          id: expect.stringMatching(/^whd_/),
          object: 'webhook_delivery',
          event_id: event.id,
          event_type: 'subscription.created',
          status: 'succeeded',
          attempts: 1,
          last_response_status: 200,
          last_error: null,
          next_attempt_at: null,
          created: epochSeconds(wall.now()),
          attempt_log: [{ attempt: 1, attempted_at: epochSeconds(wall.now()), response_status: 200, error: null, duration_ms: expect.any(Number) }],
        },
      ],
      has_more: false,
      url: `/api/v1/webhook_endpoints/${endpoint.id}/deliveries`,
      livemode: false,
    });
  });

  it('the delivery log pages newest event first with limit and starting_after', async () => {
    const events = [];
    for (let n = 0; n < 3; n += 1) events.push(await write());
    const first = await log(endpoint.id, '?limit=2');
    expect(first.data.map((delivery: { event_id: string }) => delivery.event_id)).toEqual([events[2]!.id, events[1]!.id]);
    expect(first.has_more).toBe(true);
    expect(first.data[0].status).toBe('pending');
    expect(first.data[0].next_attempt_at).toBe(epochSeconds(wall.now()));
    const second = await log(endpoint.id, `?limit=2&starting_after=${first.data[1].id}`);
    expect(second.data.map((delivery: { event_id: string }) => delivery.event_id)).toEqual([events[0]!.id]);
    expect(second.has_more).toBe(false);
  });
});

describe('retries (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)', () => {
  it('a failing receiver is retried on the schedule, with the same webhook-id and a fresh timestamp each time, then given up', async () => {
    receiver.respond = () => 500;
    const event = await write();
    const webhook = new Webhook(endpoint.secret);
    expect(await deliver()).toBe(1);
    for (const [index, delay] of RETRY_DELAYS_SECONDS.entries()) {
      const delivery = (await log()).data[0];
      expect(delivery).toMatchObject({ status: 'pending', attempts: index + 1, last_response_status: 500, next_attempt_at: epochSeconds(wall.now()) + delay });
      wall.advance(delay - 1);
      expect(await deliver()).toBe(0);
      wall.advance(1);
      expect(await deliver()).toBe(1);
    }
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
    const timestamps = new Set<string>();
    for (const attempt of receiver.received) {
      expect(attempt.headers['webhook-id']).toBe(event.id);
      const timestamp = attempt.headers['webhook-timestamp']!;
      timestamps.add(timestamp);
      expect(attempt.headers['webhook-signature']).toBe(webhook.sign(event.id, new Date(Number(timestamp) * 1000), attempt.body));
      expect(attempt.body).toBe(receiver.received[0]!.body);
    }
    expect(timestamps.size).toBe(MAX_ATTEMPTS);
    const delivery = (await log()).data[0];
    expect(delivery).toMatchObject({ status: 'failed', attempts: 8, next_attempt_at: null, last_response_status: 500 });
    expect(delivery.attempt_log.map((attempt: { attempt: number }) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    wall.advance(365 * 24 * 3600);
    expect(await deliver()).toBe(0);
  });

  it('a receiver that fails and then recovers acknowledges every event exactly once; the log shows each attempt, and the metrics count each', async () => {
    const [succeededBefore, retryingBefore] = [await deliveriesCounted('succeeded'), await deliveriesCounted('retrying')];
    receiver.answers = [500, 503, 500, 500];
    const events = [await write(), await write()];
    await deliver();
    wall.advance(5);
    await deliver();
    expect(receiver.acknowledged).toEqual([]);
    wall.advance(300);
    await deliver();
    expect(receiver.received).toHaveLength(6);
    wall.advance(7 * 24 * 3600);
    expect(await deliver()).toBe(0);
    expect(eventIds(receiver.acknowledged).sort()).toEqual(events.map((event) => event.id).sort());
    const deliveries = (await log()).data;
    const attempts = deliveries.flatMap((delivery: { attempt_log: { response_status: number }[] }) => delivery.attempt_log.map((attempt) => attempt.response_status));
    expect(attempts.sort()).toEqual([200, 200, 500, 500, 500, 503]);
    expect(deliveries.every((delivery: { status: string }) => delivery.status === 'succeeded')).toBe(true);
    expect([(await deliveriesCounted('succeeded')) - succeededBefore, (await deliveriesCounted('retrying')) - retryingBefore]).toEqual([2, 4]);
  });

  it('any status outside 2xx fails, a redirect is not followed; no answer within the timeout fails with an error', async () => {
    receiver.answers = [302, 404];
    await write();
    await deliver();
    expect((await log()).data[0]).toMatchObject({ status: 'pending', last_response_status: 302, last_error: expect.stringContaining('302') });
    wall.advance(5);
    await deliver();
    // A receiver that takes far longer than the timeout, and a timeout long enough for the request
    // itself to arrive on a loaded machine (the receiver shares this process's event loop).
    receiver.delayMs = 60_000;
    deps = { ...deps, timeoutMs: 3_000 };
    wall.advance(300);
    await deliver();
    const delivery = (await log()).data[0];
    expect(delivery).toMatchObject({ status: 'pending', attempts: 3, last_response_status: null, last_error: 'No response within 3000 ms.' });
    expect(delivery.attempt_log.map((attempt: { response_status: number | null }) => attempt.response_status)).toEqual([302, 404, null]);
    expect(receiver.received).toHaveLength(3);
  });

  it('an attempt whose worker died is sent again once its lease ends, under the same webhook-id', async () => {
    const event = await write();
    // What a claim leaves behind when its worker dies before sending: the attempt counted, the row leased.
    await api.services.db
      .update(webhookDeliveries)
      .set({ attempts: 1, nextAttemptAt: new Date(wall.now().getTime() + 60_000) })
      .where(eq(webhookDeliveries.eventId, event.id));
    expect(await deliver()).toBe(0);
    wall.advance(60);
    expect(await deliver()).toBe(1);
    expect(eventIds(receiver.received)).toEqual([event.id]);
    expect((await log()).data[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('a receiver still working holds its own deliveries only: another endpoint gets its events in order meanwhile', async () => {
    const fast = await startReceiver();
    let release!: () => void;
    receiver.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await createEndpoint(api, store.keys.sk_test, { url: fast.url });
      const subscription = subscriptionLike();
      const events = [await write({ object: subscription }), await write({ object: subscription })];
      const pass = deliver();
      await vi.waitFor(() => expect(eventIds(fast.acknowledged)).toEqual(events.map((event) => event.id)), { timeout: 10_000 });
      expect(eventIds(receiver.received)).toEqual([events[0]!.id]);
      expect(receiver.acknowledged).toEqual([]);
      release();
      expect(await pass).toBe(4);
      expect(eventIds(receiver.acknowledged)).toEqual(events.map((event) => event.id));
    } finally {
      release();
      await fast.close();
    }
  });

  it("an attempt that finishes while the pass is claiming: its object's next event is claimed at once, not after a slow receiver answers", async () => {
    const fast = await startReceiver();
    let release!: () => void;
    receiver.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The pass's second claim (its second transaction) is held until the fast endpoint's first
    // attempt has been recorded: that claim cannot see the delivery it unblocked.
    let transactions = 0;
    let firstRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => {
      firstRecorded = resolve;
    });
    const db = api.services.db;
    const slowSecondClaim = new Proxy(db, {
      get(target, property, receiverObject) {
        if (property !== 'transaction') return Reflect.get(target, property, receiverObject);
        return async (...args: Parameters<typeof db.transaction>) => {
          const n = (transactions += 1);
          const result = await target.transaction(...args);
          if (n === 2) {
            await recorded;
            // And until the pass has counted that attempt finished (a few promise hops later).
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          if (n === 3) firstRecorded();
          return result;
        };
      },
    });
    try {
      await createEndpoint(api, store.keys.sk_test, { url: fast.url });
      const subscription = subscriptionLike();
      const events = [await write({ object: subscription }), await write({ object: subscription })];
      const pass = deliverDueWebhooks({ ...deps, db: slowSecondClaim });
      await vi.waitFor(() => expect(eventIds(fast.acknowledged)).toEqual(events.map((event) => event.id)), { timeout: 10_000 });
      expect(receiver.acknowledged).toEqual([]);
      release();
      expect(await pass).toBe(4);
    } finally {
      release();
      await fast.close();
    }
  });

  it('two workers at once send each event once', async () => {
    const events = [];
    for (let n = 0; n < 12; n += 1) events.push(await write());
    const handled = await Promise.all([deliver(), deliver(), deliver()]);
    expect(handled.reduce((sum, count) => sum + count, 0)).toBe(12);
    expect(eventIds(receiver.received).sort()).toEqual(events.map((event) => event.id).sort());
  });
});

describe('order per object', () => {
  it('a failing first event holds back the later events of its object, not those of other objects', async () => {
    const subscription = subscriptionLike();
    const first = await write({ type: 'subscription.created', object: subscription });
    const second = await write({ type: 'subscription.updated', object: subscription });
    const third = await write({ type: 'subscription.canceled', object: subscription });
    const unrelated = await write({ type: 'subscription.created' });
    let failFirst = true;
    receiver.respond = (webhook) => (webhook.headers['webhook-id'] === first.id && failFirst ? 500 : 200);
    await deliver();
    expect(eventIds(receiver.received).sort()).toEqual([first.id, unrelated.id].sort());
    wall.advance(4);
    expect(await deliver()).toBe(0);
    failFirst = false;
    wall.advance(1);
    // One pass: once the first is delivered the next one is due, then the one after it.
    expect(await deliver()).toBe(3);
    const ofSubscription = receiver.received.filter((webhook) => JSON.parse(webhook.body).data.object.id === subscription.id);
    expect(eventIds(ofSubscription)).toEqual([first.id, first.id, second.id, third.id]);
  });

  it('an event given up after the last retry lets the next event of its object go', async () => {
    const subscription = subscriptionLike();
    const doomed = await write({ object: subscription });
    const next = await write({ object: subscription });
    receiver.respond = (webhook) => (webhook.headers['webhook-id'] === doomed.id ? 500 : 200);
    await deliver();
    for (const delay of RETRY_DELAYS_SECONDS) {
      expect(eventIds(receiver.acknowledged)).toEqual([]);
      wall.advance(delay);
      await deliver();
    }
    expect(eventIds(receiver.received)).toEqual([...Array(MAX_ATTEMPTS).fill(doomed.id), next.id]);
    expect(eventIds(receiver.acknowledged)).toEqual([next.id]);
  });

  it('order is per endpoint: a failing endpoint does not hold back another endpoint', async () => {
    const healthy = await startReceiver();
    try {
      await createEndpoint(api, store.keys.sk_test, { url: healthy.url });
      receiver.respond = () => 500;
      const subscription = subscriptionLike();
      const events = [await write({ object: subscription }), await write({ object: subscription })];
      await deliver();
      expect(eventIds(healthy.received)).toEqual(events.map((event) => event.id));
      expect(eventIds(receiver.received)).toEqual([events[0]!.id]);
    } finally {
      await healthy.close();
    }
  });
});

describe('deleted endpoints and unsafe destinations', () => {
  it('deleting an endpoint stops its pending deliveries', async () => {
    receiver.respond = () => 500;
    const event = await write();
    await deliver();
    const response = await api.request('DELETE', `/api/v1/webhook_endpoints/${endpoint.id}`, { key: store.keys.sk_test });
    expect(response.status).toBe(200);
    wall.advance(24 * 3600);
    expect(await deliver()).toBe(0);
    expect(eventIds(receiver.received)).toEqual([event.id]);
    const [row] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
    expect(row).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null, lastError: 'The endpoint was deleted.' });
    await write();
    expect(await deliver()).toBe(0);
  });

  it('SSRF at delivery: a live endpoint whose host now resolves to loopback is refused, logged, and never reached', async () => {
    // As if the name pointed at a public address when the endpoint was created (DNS rebinding).
    const id = newId('we', true);
    const port = new URL(receiver.url).port;
    await api.services.db.insert(webhookEndpoints).values({ id, storeId: store.id, livemode: true, url: `https://localhost:${port}/webhooks`, createdAt: wall.now() });
    await api.services.db
      .update(webhookEndpoints)
      .set({ deletedAt: wall.now() })
      .where(and(eq(webhookEndpoints.id, endpoint.id)));
    await write({ livemode: true });
    expect(await deliver()).toBe(1);
    expect(receiver.received).toEqual([]);
    const [row] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
    // The log names the host, never where it resolved: it must not map the operator's network.
    const error = 'Not sent: localhost resolves to an address that is not public.';
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastResponseStatus: null, lastError: error });
    const log = await api.request('GET', `/api/v1/webhook_endpoints/${id}/deliveries`, { key: store.keys.sk_live });
    expect(log.body.data[0].attempt_log[0]).toMatchObject({ response_status: null, error });
  });
});
