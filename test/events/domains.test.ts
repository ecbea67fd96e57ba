import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { expireDueCheckoutSessions } from '@/server/checkout/expiry';
import { payCheckoutSession } from '@/server/payments/service';
import { deliverDueWebhooks } from '@/server/webhooks/delivery';
import { createProduct } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createEndpoint, startReceiver } from '../webhooks/support';

const api = useTestApi();
const store = useTestStore(api);

const get = async (path: string) => {
  const response = await api.request('GET', `/api/v1${path}`, { key: store.key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};
/** Every event of the store since `after` (an event id), oldest first. */
async function eventsSince(after?: string) {
  const list = await get(`/events?limit=100${after ? `&ending_before=${after}` : ''}`);
  return [...list.data].reverse() as any[];
}
const newest = async () => (await get('/events?limit=1')).data[0]?.id as string | undefined;
const card = (number: string) => ({ number, expiry: '12/30', cvc: '123' });

async function openSession(body: Record<string, unknown> = {}) {
  const product = await createProduct(api, store.key);
  const response = await api.request('POST', '/api/v1/checkout/sessions', { key: store.key, body: { price_id: product.price_id, ...body } });
  expect(response.status).toBe(201);
  return response.body;
}
const pay = (sessionId: string, number = '4242424242424242', email = 'Buyer@Example.com') => payCheckoutSession(api.services, { sessionId, card: card(number), email });

describe('events of payments, refunds, customers and portal sessions', () => {
  it('a paid session records customer.created, invoice.issued, checkout.session.completed and order.paid, each with the object as the API reads it', async () => {
    const session = await openSession({ customer_email: `first-${Date.now()}@example.com` });
    const before = await newest();
    await pay(session.id);
    const events = await eventsSince(before);
    expect(events.map((event) => event.type)).toEqual(['customer.created', 'invoice.issued', 'checkout.session.completed', 'order.paid']);
    const [customerCreated, issued, completed, paid] = events;
    const readSession = await get(`/checkout/sessions/${session.id}`);
    const order = await get(`/orders/${session.order_id}`);
    expect(completed).toMatchObject({ object: 'event', livemode: false, sequence: 1, data: { object: readSession } });
    expect(completed.data.object).toMatchObject({ status: 'complete', payment_status: 'paid', url: null, client_secret: null });
    expect(paid).toMatchObject({ sequence: 1, data: { object: order } });
    expect(order.status).toBe('paid');
    expect(customerCreated.data.object).toEqual(await get(`/customers/${order.customer_id}`));
    expect(issued).toMatchObject({ sequence: 1, data: { object: await get(`/invoices/${order.invoice_id}`) } });

    // A second payment of the same address matches the customer: no second customer.created.
    const again = await openSession({ customer_email: customerCreated.data.object.email.toUpperCase() });
    const mark = await newest();
    await pay(again.id);
    expect((await eventsSince(mark)).map((event) => event.type)).toEqual(['invoice.issued', 'checkout.session.completed', 'order.paid']);
  });

  it('a declined card records checkout.session.payment_failed with payment_status failed', async () => {
    const session = await openSession();
    const before = await newest();
    await expect(pay(session.id, '4000000000000002')).rejects.toMatchObject({ code: 'card_declined' });
    const events = await eventsSince(before);
    expect(events.map((event) => event.type)).toEqual(['checkout.session.payment_failed']);
    expect(events[0].data.object).toEqual(await get(`/checkout/sessions/${session.id}`));
    expect(events[0].data.object).toMatchObject({ status: 'open', payment_status: 'failed' });
  });

  it('a refund records refund.created (pending), credit_note.issued, refund.updated (succeeded, with what changed) and order.refunded', async () => {
    const session = await openSession();
    await pay(session.id);
    const before = await newest();
    const refund = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: session.order_id, amount: 500 } });
    expect(refund.status).toBe(201);
    const events = await eventsSince(before);
    expect(events.map((event) => event.type)).toEqual(['refund.created', 'credit_note.issued', 'refund.updated', 'order.refunded']);
    const [created, issued, updated, refunded] = events;
    expect(created).toMatchObject({ sequence: 1, data: { object: { ...refund.body, status: 'pending', credit_note_id: null } } });
    expect(updated).toMatchObject({ sequence: 2, data: { object: refund.body, previous_attributes: { status: 'pending' } } });
    const order = await get(`/orders/${session.order_id}`);
    expect(refunded).toMatchObject({ sequence: 2, data: { object: order } });
    expect(order).toMatchObject({ status: 'partially_refunded', amount_refunded: 500, refunds: [refund.body] });
    expect(issued).toMatchObject({ sequence: 1, data: { object: await get(`/credit_notes/${refund.body.credit_note_id}`) } });
  });

  it('portal sessions record created (never the url) and revoked; deleting a customer revokes theirs, then records customer.deleted', async () => {
    const session = await openSession({ customer_email: `portal-${Date.now()}@example.com` });
    await pay(session.id);
    const { customer_id: customerId } = await get(`/orders/${session.order_id}`);
    const before = await newest();
    const first = await api.request('POST', '/api/v1/portal/sessions', { key: store.key, body: { customer_id: customerId } });
    const second = await api.request('POST', '/api/v1/portal/sessions', { key: store.key, body: { customer_id: customerId } });
    expect([first.status, second.status]).toEqual([201, 201]);
    const revoke = await api.request('DELETE', `/api/v1/portal/sessions/${first.body.id}`, { key: store.key });
    expect(revoke.status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/portal/sessions/${first.body.id}`, { key: store.key })).status).toBe(200);
    const removed = await api.request('DELETE', `/api/v1/customers/${customerId}`, { key: store.key });
    expect(removed.status).toBe(200);

    const events = await eventsSince(before);
    expect(events.map((event) => [event.type, event.data.object.id])).toEqual([
      ['portal.session.created', first.body.id],
      ['portal.session.created', second.body.id],
      ['portal.session.revoked', first.body.id],
      ['portal.session.revoked', second.body.id],
      ['customer.deleted', customerId],
    ]);
    const { url: _url, ...firstRead } = first.body;
    expect(events[0].data.object).toEqual(firstRead);
    expect(events[0].data.object).not.toHaveProperty('url');
    expect(events[2].data.object).toEqual(await get(`/portal/sessions/${first.body.id}`));
    expect(events[3].data.object).toMatchObject({ status: 'revoked', id: second.body.id });
    expect(events[4].data.object).toEqual({ id: customerId, object: 'customer', deleted: true, livemode: false });
    expect(events[4].sequence).toBe(2);
  });

  it('an endpoint subscribed to order.paid receives exactly that, signed, with the same envelope the API lists', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpoint(api, store.key, { url: receiver.url, events: ['order.paid'] });
      const session = await openSession();
      await pay(session.id);
      await deliverDueWebhooks({ db: api.services.db, clock: { now: () => new Date() }, config: api.services.config });
      expect(receiver.received).toHaveLength(1);
      const delivered = new Webhook(endpoint.secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as any;
      expect(delivered.type).toBe('order.paid');
      expect(delivered).toEqual(await get(`/events/${delivered.id}`));
    } finally {
      await receiver.close();
    }
  });

  it('checkout.session.expired: once per session, whether the API expires it, a read past the deadline does, or the sweep', async () => {
    const byApi = await openSession();
    const byRead = await openSession();
    const bySweep = await openSession();
    const before = await newest();
    const expired = await api.request('POST', `/api/v1/checkout/sessions/${byApi.id}/expire`, { key: store.key, body: {} });
    expect(expired.status).toBe(200);
    expect((await api.request('POST', `/api/v1/checkout/sessions/${byApi.id}/expire`, { key: store.key, body: {} })).status).toBe(200);

    // A day later by the wall clock: a read expires its session, then the sweep the rest, once.
    api.clock.advance(24 * 3600 + 1);
    expect((await get(`/checkout/sessions/${byRead.id}`)).status).toBe('expired');
    const sweep = () => expireDueCheckoutSessions(api.services.db, { config: api.services.config, wallClock: api.clock });
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await sweep()).toBe(0);

    const mine = new Set([byApi.id, byRead.id, bySweep.id]);
    const events = (await eventsSince(before)).filter((event) => mine.has(event.data.object.id));
    expect(events.map((event) => [event.type, event.data.object.id])).toEqual([
      ['checkout.session.expired', byApi.id],
      ['checkout.session.expired', byRead.id],
      ['checkout.session.expired', bySweep.id],
    ]);
    expect(events[0]).toMatchObject({ sequence: 1, data: { object: expired.body } });
    expect(expired.body).toMatchObject({ status: 'expired', url: null, client_secret: null });
    expect(events[2].data.object).toEqual(await get(`/checkout/sessions/${bySweep.id}`));
    expect(events[2].created).toBe(Math.floor(api.clock.now().getTime() / 1000));
  });

  it('advance_clock writes checkout.session.expired before it answers, dated on the test clock', async () => {
    const own = await createStore(api.services);
    const product = await createProduct(api, own.keys.sk_test);
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key: own.keys.sk_test, body: { price_id: product.price_id } });
    const advanced = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: own.keys.sk_test, body: { seconds: 2 * 24 * 3600 } });
    expect(advanced.status).toBe(200);
    const list = await api.request('GET', '/api/v1/events?type=checkout.session.expired', { key: own.keys.sk_test });
    expect(list.body.data.map((event: any) => event.data.object.id)).toEqual([session.body.id]);
    expect(list.body.data[0].created).toBe(advanced.body.now);
  });
});
