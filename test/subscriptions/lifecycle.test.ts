import { Webhook } from 'standardwebhooks';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '@/server/clock';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { deliverDueWebhooks } from '@/server/webhooks/delivery';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { epoch, T0 } from '../support/api';
import { startReceiver } from '../webhooks/support';
import { CARDS, eventsOf, PLAN, SUBSCRIPTIONS, subscribe } from './support';

/**
 * Every subscription transition end to end: a checkout created through the API, the first charge
 * made on the hosted form with a test card, then the test clock moved with
 * advance_clock, which bills what falls due (retries at +1, +3, +5, +7 days).
 */
const api = useTestApi({ subscriptionsEnabled: true });
let key = '';
const DAY = 24 * 60 * 60;
const MONTH1 = periodBoundary(T0, 'month', 1, 1);

async function advance(seconds: number) {
  const response = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } });
  expect(response.status).toBe(200);
}
const read = async (id: string) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key })).body;
const types = async (id: string) => (await eventsOf(api.services.db, id)).map((event) => event.type);

beforeAll(() => api.clock.set(T0));
beforeEach(async () => {
  // A fresh store per test: each starts its test clock at T0.
  api.clock.set(T0);
  key = (await createStore(api.services, { subscriptions: true })).keys.sk_test;
});

describe('transitions driven by the test clock and the test cards', () => {
  it('active → (final scheduled payment) → expired: 4242 with total_payments 2', async () => {
    const { subscription } = await subscribe(api, key, CARDS.approved, { ...PLAN, total_payments: 2 });
    expect(subscription.status).toBe('active');
    await advance(epoch(MONTH1) - epoch(T0));
    const after = await read(subscription.id);
    expect(after).toMatchObject({ status: 'expired', ended_at: epoch(MONTH1) });
    const seen = await types(subscription.id);
    expect(seen[0]).toBe('subscription.created');
    expect(seen).toContain('subscription.payment_succeeded');
    expect(seen).toContain('subscription.expired');
  });

  it('active → past_due → (retries exhausted) → canceled: 0341 declines every recurring charge', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declinesRecurring);
    expect(subscription.status).toBe('active');
    await advance(epoch(MONTH1) - epoch(T0));
    expect(await read(subscription.id)).toMatchObject({ status: 'past_due', failure_count: 1 });
    expect(await types(subscription.id)).toEqual(expect.arrayContaining(['subscription.payment_failed', 'subscription.past_due']));
    // Retries at +1, +3, +5 and +7 days from the failure; the fourth failed retry cancels.
    for (const [day, status] of [
      [1, 'past_due'],
      [3, 'past_due'],
      [5, 'past_due'],
    ] as const) {
      await advance((day === 1 ? 1 : 2) * DAY);
      expect((await read(subscription.id)).status, `day ${day}`).toBe(status);
    }
    await advance(2 * DAY);
    const ended = await read(subscription.id);
    expect(ended).toMatchObject({ status: 'canceled', canceled_at: epoch(MONTH1) + 7 * DAY });
    expect(await types(subscription.id)).toContain('subscription.canceled');
  });

  it('past_due → (a retry succeeds) → active: 3063 declines the first recurring charge only', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declinesFirstRecurring);
    await advance(epoch(MONTH1) - epoch(T0));
    expect((await read(subscription.id)).status).toBe('past_due');
    await advance(DAY);
    const recovered = await read(subscription.id);
    expect(recovered.status).toBe('active');
    expect(await types(subscription.id)).toEqual(expect.arrayContaining(['subscription.payment_failed', 'subscription.past_due', 'subscription.payment_succeeded']));
  });

  it('past_due → cancel via the API → canceled, and the retries stop', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declinesRecurring);
    await advance(epoch(MONTH1) - epoch(T0));
    expect((await read(subscription.id)).status).toBe('past_due');
    const canceled = await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key, body: { reason: 'card keeps failing' } });
    expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: epoch(MONTH1), ended_at: epoch(MONTH1) });
    const before = (await eventsOf(api.services.db, subscription.id)).length;
    await advance(10 * DAY);
    expect((await read(subscription.id)).status).toBe('canceled');
    expect((await eventsOf(api.services.db, subscription.id)).length).toBe(before);
  });

  it('(none) → incomplete with a declined first charge (0002); never billed afterwards', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declined);
    expect(subscription.status).toBe('incomplete');
    await advance(epoch(MONTH1) - epoch(T0) + DAY);
    expect(await read(subscription.id)).toEqual(subscription);
    expect(await types(subscription.id)).toEqual(['subscription.created']);
  });
});

describe('events as a real receiver verifies them (standardwebhooks)', () => {
  it('subscription.created and subscription.canceled arrive signed, with data.object as GET returns it', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await api.request('POST', '/api/v1/webhook_endpoints', { key, body: { url: receiver.url, events: ['subscription.created', 'subscription.canceled'] } });
      expect(endpoint.status).toBe(201);
      const { subscription } = await subscribe(api, key, CARDS.approved, { ...PLAN, metadata: { order: 'A-17' } });
      const canceled = (await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key })).body;
      // Delivery runs on the wall clock (the webhook timestamps a receiver checks against its own).
      const deps = { db: api.services.db, clock: systemClock, config: api.services.config };
      for (let pass = 0; pass < 3 && receiver.acknowledged.length < 2; pass += 1) await deliverDueWebhooks(deps);
      const verifier = new Webhook(endpoint.body.secret);
      const payloads = receiver.acknowledged.map((webhook) => verifier.verify(webhook.body, webhook.headers) as any);
      expect(payloads.map((payload) => payload.type)).toEqual(['subscription.created', 'subscription.canceled']);
      expect(payloads[0].data.object).toEqual(subscription);
      expect(payloads[1].data.object).toEqual(canceled);
      expect(payloads[0].data.object.metadata).toEqual({ order: 'A-17' });
      expect(receiver.acknowledged[0]!.headers['webhook-id']).toBe(payloads[0].id);
    } finally {
      await receiver.close();
    }
  });
});
