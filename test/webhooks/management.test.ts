import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';
import { epochSeconds } from '@/server/clock';
import { newId } from '@/server/ids';
import { DELIVERY_TIMEOUT_MS, deliverDueWebhooks, RETRY_DELAYS_SECONDS, type DeliveryDeps } from '@/server/webhooks/delivery';
import { expectError, expectIdenticalMissing, rawApiRequest } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createEndpoint, startReceiver, subscriptionLike, writeEvent, type ReceivedWebhook, type Receiver } from './support';

const api = useTestApi();
let store: Awaited<ReturnType<typeof createStore>>;
let receiver: Receiver;
let endpoint: { id: string; secret: string };
let deps: DeliveryDeps;

/** The API's clock is the worker's wall clock here, set to the real time so `standardwebhooks` accepts the timestamps. */
const wall = () => api.clock;
const deliver = () => deliverDueWebhooks(deps);
const write = (input: Parameters<typeof writeEvent>[2] = {}) => writeEvent(api, store, { wallNow: wall().now(), ...input });
const eventIds = (webhooks: ReceivedWebhook[]) => webhooks.map((webhook) => webhook.headers['webhook-id']);
const log = async (query = '', id = endpoint.id, key = store.keys.sk_test) => {
  const response = await api.request('GET', `/api/v1/webhook_endpoints/${id}/deliveries${query}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};
const patch = (body: unknown, id = endpoint.id) => api.request('PATCH', `/api/v1/webhook_endpoints/${id}`, { key: store.keys.sk_test, body });
const roll = (body: unknown) => api.request('POST', `/api/v1/webhook_endpoints/${endpoint.id}/roll_secret`, { key: store.keys.sk_test, body });
const resend = (eventId: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  api.request('POST', `/api/v1/events/${eventId}/resend`, { key: options.key ?? store.keys.sk_test, body, headers: options.headers });
const advanceClock = async (seconds: number, key = store.keys.sk_test) => {
  const response = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } });
  expect(response.status).toBe(200);
};
const signatures = (webhook: ReceivedWebhook) => webhook.headers['webhook-signature']!.split(' ');
const verifies = (secret: string, webhook: ReceivedWebhook) => {
  try {
    new Webhook(secret).verify(webhook.body, webhook.headers);
    return true;
  } catch {
    return false;
  }
};

beforeEach(async () => {
  wall().set(new Date(Math.floor(Date.now() / 1000) * 1000));
  deps = { db: api.services.db, clock: wall(), config: api.services.config, timeoutMs: DELIVERY_TIMEOUT_MS };
  receiver = await startReceiver();
  store = await createStore(api.services);
  endpoint = await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
});
afterEach(async () => {
  await receiver.close();
  // The worker serves every store: what a test leaves pending must not be due in the next one.
  await api.services.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'pending'));
});

describe('a disabled endpoint', () => {
  it('keeps what falls due pending with no attempts, new events included; enabled again, it gets the backlog in order per object', async () => {
    const subscription = subscriptionLike();
    const first = await write({ type: 'subscription.created', object: subscription });
    expect((await patch({ disabled: true })).body.disabled).toBe(true);
    const second = await write({ type: 'subscription.updated', object: subscription });
    const third = await write({ type: 'subscription.canceled', object: subscription });
    const unrelated = await write({ type: 'subscription.created' });
    expect(await deliver()).toBe(0);
    wall().advance(24 * 3600);
    expect(await deliver()).toBe(0);
    expect(receiver.received).toEqual([]);
    const held = (await log()).data;
    expect(held.map((delivery: { event_id: string }) => delivery.event_id)).toEqual([unrelated.id, third.id, second.id, first.id]);
    for (const delivery of held) expect(delivery).toMatchObject({ status: 'pending', attempts: 0, last_response_status: null, attempt_log: [] });

    expect((await patch({ disabled: false })).body.disabled).toBe(false);
    expect(await deliver()).toBe(4);
    const ofSubscription = receiver.received.filter((webhook) => JSON.parse(webhook.body).data.object.id === subscription.id);
    expect(eventIds(ofSubscription)).toEqual([first.id, second.id, third.id]);
    expect(eventIds(receiver.acknowledged).sort()).toEqual([first.id, second.id, third.id, unrelated.id].sort());
  });

  it('a retry that falls due while disabled waits too, without an attempt', async () => {
    receiver.answers = [500];
    await write();
    await deliver();
    await patch({ disabled: true });
    wall().advance(RETRY_DELAYS_SECONDS[0]);
    expect(await deliver()).toBe(0);
    expect((await log()).data[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await patch({ disabled: false });
    expect(await deliver()).toBe(1);
    expect((await log()).data[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });
});

describe('rolling the secret', () => {
  it('during the overlap each delivery is signed with both secrets, new first; afterwards with the new one only', async () => {
    const rolled = await roll({ expires_in: 60 });
    expect(rolled.status).toBe(200);
    const during = await write();
    await deliver();
    const [signed] = receiver.received;
    expect(signatures(signed!)).toEqual([
      new Webhook(rolled.body.secret).sign(during.id, new Date(epochSeconds(wall().now()) * 1000), signed!.body),
      new Webhook(endpoint.secret).sign(during.id, new Date(epochSeconds(wall().now()) * 1000), signed!.body),
    ]);
    expect(new Webhook(rolled.body.secret).verify(signed!.body, signed!.headers)).toEqual(during);
    expect(new Webhook(endpoint.secret).verify(signed!.body, signed!.headers)).toEqual(during);

    wall().advance(60);
    await write();
    await deliver();
    const after = receiver.received[1]!;
    expect(signatures(after)).toHaveLength(1);
    expect(verifies(rolled.body.secret, after)).toBe(true);
    expect(verifies(endpoint.secret, after)).toBe(false);
  });

  it('rolling again keeps the newest two: a receiver with the first secret fails after the second roll', async () => {
    const first = await roll({ expires_in: 3600 });
    const second = await roll({ expires_in: 3600 });
    await write();
    await deliver();
    const [webhook] = receiver.received;
    expect(signatures(webhook!)).toHaveLength(2);
    expect(verifies(second.body.secret, webhook!)).toBe(true);
    expect(verifies(first.body.secret, webhook!)).toBe(true);
    expect(verifies(endpoint.secret, webhook!)).toBe(false);
  });

  it('in test mode the overlap ends on the store’s clock: advance_clock past it signs with the new secret only', async () => {
    await advanceClock(86400);
    const rolled = await roll({ expires_in: 3600 });
    expect(rolled.body.previous_secret_expires_at).toBe(epochSeconds(wall().now()) + 86400 + 3600);
    await write();
    await deliver();
    expect(signatures(receiver.received[0]!)).toHaveLength(2);
    await advanceClock(3600);
    await write();
    await deliver();
    const after = receiver.received[1]!;
    expect(signatures(after)).toHaveLength(1);
    expect(verifies(rolled.body.secret, after)).toBe(true);
    expect(verifies(endpoint.secret, after)).toBe(false);
  });

  it('expires_in 0 ends the old secret at once', async () => {
    const rolled = await roll({ expires_in: 0 });
    await write();
    await deliver();
    const [webhook] = receiver.received;
    expect(signatures(webhook!)).toHaveLength(1);
    expect(verifies(rolled.body.secret, webhook!)).toBe(true);
    expect(verifies(endpoint.secret, webhook!)).toBe(false);
  });
});

describe('delivery log filters', () => {
  it('status and event_id narrow the log, alone or together', async () => {
    const failing = await write();
    const retrying = await write();
    const delivered = await write();
    receiver.respond = (webhook) => (webhook.headers['webhook-id'] === failing.id ? 500 : webhook.headers['webhook-id'] === retrying.id ? 503 : 200);
    await deliver();
    for (const delay of RETRY_DELAYS_SECONDS) {
      wall().advance(delay);
      await deliver();
    }
    // Both were given up; `retrying` is sent once more, as a resend that stays pending.
    receiver.respond = () => 503;
    const pending = await resend(retrying.id, { endpoint_id: endpoint.id });
    await deliver();
    const ids = (body: { data: { id: string; event_id: string; status: string }[] }) => body.data.map((delivery) => [delivery.event_id, delivery.status]);
    expect(ids(await log('?status=succeeded'))).toEqual([[delivered.id, 'succeeded']]);
    expect(ids(await log('?status=failed'))).toEqual([
      [retrying.id, 'failed'],
      [failing.id, 'failed'],
    ]);
    expect((await log('?status=pending')).data.map((delivery: { id: string }) => delivery.id)).toEqual([pending.body.id]);
    expect(ids(await log(`?event_id=${retrying.id}`))).toEqual([
      [retrying.id, 'pending'],
      [retrying.id, 'failed'],
    ]);
    expect(ids(await log(`?event_id=${retrying.id}&status=failed`))).toEqual([[retrying.id, 'failed']]);
    expect((await log(`?event_id=evt_test_000000000000000000000000`)).data).toEqual([]);
    const page = await log(`?event_id=${retrying.id}&limit=1`);
    expect(page.has_more).toBe(true);
    expect(ids(await log(`?event_id=${retrying.id}&limit=1&starting_after=${page.data[0].id}`))).toEqual([[retrying.id, 'failed']]);
  });

  it('a status or event_id that is not one → 400 parameter_invalid naming it', async () => {
    for (const query of ['?status=done', '?status=', '?status=PENDING']) {
      expectError(await api.request('GET', `/api/v1/webhook_endpoints/${endpoint.id}/deliveries${query}`, { key: store.keys.sk_test }), 400, 'parameter_invalid', 'status');
    }
    for (const query of ['?event_id=', '?event_id=we_test_000000000000000000000000', '?event_id=evt_test_bad!']) {
      expectError(await api.request('GET', `/api/v1/webhook_endpoints/${endpoint.id}/deliveries${query}`, { key: store.keys.sk_test }), 400, 'parameter_invalid', 'event_id');
    }
  });
});

describe('POST /api/v1/events/{id}/resend', () => {
  it('answers 201 with a new pending delivery, sent at once with the same webhook-id and body, and listed in the log', async () => {
    const event = await write({ type: 'subscription.created' });
    await deliver();
    wall().advance(60);
    const response = await resend(event.id, { endpoint_id: endpoint.id });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^whd_[0-9A-Za-z]{24}$/),
      object: 'webhook_delivery',
      event_id: event.id,
      event_type: 'subscription.created',
      status: 'pending',
      attempts: 0,
      last_response_status: null,
      last_error: null,
      next_attempt_at: epochSeconds(wall().now()),
      created: epochSeconds(wall().now()),
      attempt_log: [],
    });
    expect(await deliver()).toBe(1);
    expect(eventIds(receiver.received)).toEqual([event.id, event.id]);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(new Webhook(endpoint.secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers)).toEqual(event);
    const entries = (await log()).data;
    expect(entries.map((delivery: { id: string; event_id: string; status: string }) => [delivery.event_id, delivery.status])).toEqual([
      [event.id, 'succeeded'],
      [event.id, 'succeeded'],
    ]);
    expect(entries[0]).toMatchObject({ id: response.body.id, attempts: 1, created: epochSeconds(wall().now()), attempt_log: [expect.objectContaining({ attempt: 1, response_status: 200 })] });
  });

  it('may go to an endpoint that does not subscribe to the type, and to one created after the event', async () => {
    const event = await write({ type: 'subscription.updated' });
    const later = await startReceiver();
    try {
      const picky = await createEndpoint(api, store.keys.sk_test, { url: later.url, events: ['order.paid'] });
      expect((await resend(event.id, { endpoint_id: picky.id })).status).toBe(201);
      await deliver();
      expect(eventIds(later.received)).toEqual([event.id]);
    } finally {
      await later.close();
    }
  });

  it('is not held back by its object’s ordering, and holds nothing back: the originals keep their order', async () => {
    const subscription = subscriptionLike();
    const first = await write({ type: 'subscription.created', object: subscription });
    const second = await write({ type: 'subscription.updated', object: subscription });
    const third = await write({ type: 'subscription.canceled', object: subscription });
    // The original of `second` fails once, and the first resend of `first` fails every time.
    let secondFailures = 1;
    let resentFirst = false;
    receiver.respond = (webhook) => {
      const id = webhook.headers['webhook-id'];
      if (id === second.id && secondFailures > 0) {
        secondFailures -= 1;
        return 500;
      }
      if (id === first.id && resentFirst) return 500;
      return 200;
    };
    await deliver();
    expect(eventIds(receiver.received)).toEqual([first.id, second.id]);
    // `third` waits for `second`; its resend does not.
    expect((await resend(third.id, { endpoint_id: endpoint.id })).status).toBe(201);
    expect(await deliver()).toBe(1);
    expect(eventIds(receiver.received)).toEqual([first.id, second.id, third.id]);
    // A pending resend of an earlier event does not hold the later originals back.
    resentFirst = true;
    expect((await resend(first.id, { endpoint_id: endpoint.id })).status).toBe(201);
    expect(await deliver()).toBe(1);
    wall().advance(RETRY_DELAYS_SECONDS[0]);
    expect(await deliver()).toBe(3);
    const originals = (await log('?status=succeeded')).data.map((delivery: { event_id: string }) => delivery.event_id);
    expect(originals).toEqual([third.id, third.id, second.id, first.id]);
    expect(eventIds(receiver.received).slice(3).sort()).toEqual([first.id, first.id, second.id, third.id].sort());
    const afterResend = eventIds(receiver.received)
      .slice(3)
      .filter((id) => id !== first.id);
    expect(afterResend).toEqual([second.id, third.id]);
    expect((await log(`?event_id=${first.id}&status=pending`)).data).toHaveLength(1);
  });

  it('an unknown event, another store’s and the other environment’s → identical 404 on id', async () => {
    const other = await createStore(api.services);
    const foreign = await writeEvent(api, other, { wallNow: wall().now() });
    const live = await write({ livemode: true });
    expectIdenticalMissing(
      [
        await rawApiRequest(api, 'POST', `/api/v1/events/${foreign.id}/resend`, store.keys.sk_test, { endpoint_id: endpoint.id }),
        await rawApiRequest(api, 'POST', `/api/v1/events/${live.id}/resend`, store.keys.sk_test, { endpoint_id: endpoint.id }),
        await rawApiRequest(api, 'POST', '/api/v1/events/evt_test_000000000000000000000000/resend', store.keys.sk_test, { endpoint_id: endpoint.id }),
      ],
      'id',
    );
  });

  it('an unknown, deleted, another store’s or the other environment’s endpoint → identical 404 on endpoint_id; a disabled one → 409', async () => {
    const event = await write();
    const other = await createStore(api.services);
    const foreign = await createEndpoint(api, other.keys.sk_test, { url: receiver.url });
    const live = await createEndpoint(api, store.keys.sk_live, { url: 'https://93.184.216.34/hooks' });
    const deleted = await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
    await api.request('DELETE', `/api/v1/webhook_endpoints/${deleted.id}`, { key: store.keys.sk_test });
    const resendTo = (endpointId: string) => rawApiRequest(api, 'POST', `/api/v1/events/${event.id}/resend`, store.keys.sk_test, { endpoint_id: endpointId });
    expectIdenticalMissing([await resendTo('we_test_000000000000000000000000'), await resendTo(deleted.id), await resendTo(foreign.id), await resendTo(live.id)], 'endpoint_id');
    await patch({ disabled: true });
    expectError(await resend(event.id, { endpoint_id: endpoint.id }), 409, 'webhook_endpoint_disabled', 'endpoint_id');
    expect((await log(`?event_id=${event.id}`)).data).toHaveLength(1);
  });

  it('endpoint_id is required, no other field (id is the path’s) → 400 parameter_invalid; a publishable key → 401', async () => {
    const event = await write();
    expectError(await resend(event.id, {}), 400, 'parameter_invalid', 'endpoint_id');
    expectError(await resend(event.id, { endpoint_id: 42 }), 400, 'parameter_invalid', 'endpoint_id');
    expectError(await resend(event.id, { endpoint_id: endpoint.id, delay: 5 }), 400, 'parameter_invalid', 'delay');
    expectError(await resend(event.id, { endpoint_id: endpoint.id, id: event.id }), 400, 'parameter_invalid', 'id');
    expectError(await resend(event.id, { endpoint_id: endpoint.id }, { key: store.keys.pk_test }), 401, 'wrong_key_type');
    expect((await log(`?event_id=${event.id}`)).data).toHaveLength(1);
  });

  it('Idempotency-Key: the same key and body replay the first delivery with 200; another body or event → 409; a refused request leaves the key unused', async () => {
    const event = await write();
    const other = await write();
    const headers = { 'idempotency-key': 'resend-1' };
    const first = await resend(event.id, { endpoint_id: endpoint.id }, { headers });
    expect(first.status).toBe(201);
    const replay = await resend(event.id, { endpoint_id: endpoint.id }, { headers });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect((await log(`?event_id=${event.id}`)).data).toHaveLength(2);
    const second = await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
    expectError(await resend(event.id, { endpoint_id: second.id }, { headers }), 409, 'idempotency_key_reused');
    expectError(await resend(other.id, { endpoint_id: endpoint.id }, { headers }), 409, 'idempotency_key_reused');
    expect((await log(`?event_id=${other.id}`)).data).toHaveLength(1);

    // Sent and answered since: a replay still answers the original answer, the log tells what became of it.
    await deliver();
    wall().advance(60);
    const delivered = await resend(event.id, { endpoint_id: endpoint.id }, { headers });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual(first.body);
    expect(first.body).toMatchObject({ status: 'pending', attempts: 0, attempt_log: [] });
    expect((await log(`?event_id=${event.id}`)).data.find((delivery: { id: string }) => delivery.id === first.body.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_response_status: 200,
    });

    await patch({ disabled: true });
    const retryHeaders = { 'idempotency-key': 'resend-after-enable' };
    expectError(await resend(other.id, { endpoint_id: endpoint.id }, { headers: retryHeaders }), 409, 'webhook_endpoint_disabled', 'endpoint_id');
    await patch({ disabled: false });
    expect((await resend(other.id, { endpoint_id: endpoint.id }, { headers: retryHeaders })).status).toBe(201);
  });
});

describe('test-mode retries on the store’s test clock', () => {
  it('a failed delivery is retried once advance_clock passes the delay (5 s, then 300 s more); webhook-timestamp stays wall time', async () => {
    receiver.answers = [500, 500];
    const event = await write();
    expect(await deliver()).toBe(1);
    const wallNow = epochSeconds(wall().now());
    expect((await log()).data[0]).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: wallNow + 5 });
    await advanceClock(4);
    expect(await deliver()).toBe(0);
    expect((await log()).data[0].next_attempt_at).toBe(wallNow + 1);
    await advanceClock(1);
    expect(await deliver()).toBe(1);
    expect((await log()).data[0]).toMatchObject({ status: 'pending', attempts: 2, next_attempt_at: wallNow + 300 });
    await advanceClock(299);
    expect(await deliver()).toBe(0);
    await advanceClock(1);
    expect(await deliver()).toBe(1);
    expect((await log()).data[0]).toMatchObject({ status: 'succeeded', attempts: 3 });
    expect(eventIds(receiver.received)).toEqual([event.id, event.id, event.id]);
    for (const webhook of receiver.received) expect(webhook.headers['webhook-timestamp']).toBe(String(wallNow));
  });

  it('only this store’s test-mode deliveries move: not its live ones, not another store’s', async () => {
    receiver.respond = () => 500;
    const other = await createStore(api.services);
    await createEndpoint(api, other.keys.sk_test, { url: receiver.url });
    // A live endpoint whose deliveries are refused at once (loopback in live mode), so they retry too.
    const liveId = newId('we', true);
    await api.services.db.insert(webhookEndpoints).values({ id: liveId, storeId: store.id, livemode: true, url: `https://localhost:${new URL(receiver.url).port}/webhooks`, createdAt: wall().now() });
    const own = await write();
    const live = await write({ livemode: true });
    const foreign = await writeEvent(api, other, { wallNow: wall().now() });
    expect(await deliver()).toBe(3);
    await advanceClock(3600);
    expect(await deliver()).toBe(1);
    expect(eventIds(receiver.received).sort()).toEqual([own.id, own.id, foreign.id].sort());
    const nextAttempt = async (eventId: string) => (await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId)))[0]!;
    expect(await nextAttempt(live.id)).toMatchObject({ attempts: 1, nextAttemptAt: new Date(wall().now().getTime() + 5000) });
    expect(await nextAttempt(foreign.id)).toMatchObject({ attempts: 1, nextAttemptAt: new Date(wall().now().getTime() + 5000) });
    expect(await nextAttempt(own.id)).toMatchObject({ attempts: 2, nextAttemptAt: new Date(wall().now().getTime() + 300_000) });
  });

  it('a delivery in flight keeps its lease: advance_clock does not shorten it', async () => {
    const event = await write();
    // What a claim leaves while its attempt runs: the attempt counted, the row leased, nothing logged yet.
    const leaseEnd = new Date(wall().now().getTime() + 60_000);
    await api.services.db.update(webhookDeliveries).set({ attempts: 1, nextAttemptAt: leaseEnd }).where(eq(webhookDeliveries.eventId, event.id));
    await advanceClock(3600);
    const [row] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
    expect(row).toMatchObject({ attempts: 1, nextAttemptAt: leaseEnd });
    expect(await deliver()).toBe(0);
  });
});
