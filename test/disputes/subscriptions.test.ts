import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { orders } from '@/db/schema';
import { verifyLedger } from '@/server/balance/verify';
import { advanceClock, DAY } from '../billing/support';
import { storeWithTeam, testEmails } from '../bank-accounts/support';
import { epoch, T0 } from '../support/api';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { CARDS, eventsOf, PLAN, subscribe, SUBSCRIPTIONS } from '../subscriptions/support';
import { DISPUTE_CARDS, DISPUTES, disputeOf } from './support';

/** A subscription's first charge paid on the hosted subscription page with a dispute card, and what its lost dispute ends. */
const api = useTestApi({ subscriptionsEnabled: true });

/** Billed daily, so renewals come before the dispute's deadline. */
const DAILY = { ...PLAN, interval: 'day' };

/** The subscription's orders as the API lists them, newest first, each with the last four digits of the card it was paid with. */
async function ordersOf(key: string, subscriptionId: string) {
  const response = await listOf(api, '/api/v1/orders', key, `subscription_id=${subscriptionId}&limit=100`);
  expect(response.status).toBe(200);
  const cards = await api.services.db.select({ id: orders.id, last4: orders.cardLast4 }).from(orders).where(eq(orders.subscriptionId, subscriptionId));
  const last4 = new Map(cards.map((card) => [card.id, card.last4]));
  return (response.body.data as { id: string; billing_reason: string; status: string; dispute_id: string | null }[]).map((order) => ({ ...order, card_last4: last4.get(order.id) }));
}

const subscriptionOf = async (key: string, id: string) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key })).body;

describe('a subscription paid with 4000 0000 0000 2685 on the hosted page', () => {
  it('has its first charge disputed at once (product_not_received), never a renewal; lost at the deadline, it cancels the subscription with cancel_reason dispute_lost, its event and the customer’s e-mail', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Disputed Club', subscriptions: true });
    const { subscription } = await subscribe(api, store.key, DISPUTE_CARDS.productNotReceived, DAILY);
    expect(subscription).toMatchObject({ status: 'active', cancel_reason: null });
    const [first] = await ordersOf(store.key, subscription.id);
    expect(first).toMatchObject({ billing_reason: 'subscription_create', status: 'paid', card_last4: '2685', dispute_id: expect.any(String) });
    const dispute = await disputeOf(api, store.key, first!.id);
    expect(dispute).toMatchObject({ order_id: first!.id, amount: 990, reason: 'product_not_received', status: 'needs_response', created: epoch(T0), evidence_due_by: epoch(T0) + 7 * DAY });

    // Six daily renewals on the same card before the deadline: none is disputed.
    await advanceClock(api, store.key, 6 * DAY);
    const renewed = await ordersOf(store.key, subscription.id);
    expect(renewed.map((order) => [order.billing_reason, order.status, order.card_last4, order.dispute_id])).toEqual([
      ...Array.from({ length: 6 }, () => ['subscription_cycle', 'paid', '2685', null]),
      ['subscription_create', 'paid', '2685', dispute.id],
    ]);
    expect((await subscriptionOf(store.key, subscription.id)).status).toBe('active');

    await advanceClock(api, store.key, DAY);
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key: store.key })).body.status).toBe('lost');
    const canceled = await subscriptionOf(store.key, subscription.id);
    expect(canceled).toMatchObject({ status: 'canceled', cancel_reason: 'dispute_lost', canceled_at: epoch(T0) + 7 * DAY, ended_at: epoch(T0) + 7 * DAY });
    const event = (await eventsOf(api.services.db, subscription.id)).at(-1)!;
    expect(event).toMatchObject({ type: 'subscription.canceled', created: epoch(T0) + 7 * DAY, data: { object: canceled } });
    const [mail, ...more] = await testEmails(api, store.key, 'subscription_canceled');
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ to: PLAN.customer_email, related: { subscription_id: subscription.id }, created: epoch(T0) + 7 * DAY });
    expect(mail.text).toContain('because its payment was reversed through your card issuer. You will not be charged again.');
    const notes = (await listOf(api, '/api/v1/credit_notes', store.key, `order_id=${first!.id}`)).body.data;
    expect(notes).toEqual([expect.objectContaining({ dispute_id: dispute.id, refund_id: null, reason: 'dispute_lost', amount_total: 990 })]);

    // Nothing is billed after it, and only the first charge was ever disputed.
    const billed = (await ordersOf(store.key, subscription.id)).length;
    await advanceClock(api, store.key, 3 * DAY);
    expect(await ordersOf(store.key, subscription.id)).toHaveLength(billed);
    expect((await listOf(api, DISPUTES, store.key)).body.data.map((listed: { id: string }) => listed.id)).toEqual([dispute.id]);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true, checked: { disputes: 1 } });
  });

  it('a DELETE with a reason cancels with that cancel_reason, one without with null', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Quiet Club', subscriptions: true });
    const { subscription: asked } = await subscribe(api, store.key, CARDS.approved);
    const { subscription: plain } = await subscribe(api, store.key, CARDS.approved);
    const withReason = await api.request('DELETE', `${SUBSCRIPTIONS}/${asked.id}`, { key: store.key, body: { reason: 'Moving to the annual plan' } });
    expect(withReason.status).toBe(200);
    expect(withReason.body).toMatchObject({ status: 'canceled', cancel_reason: 'Moving to the annual plan', canceled_at: epoch(T0) });
    expect(await subscriptionOf(store.key, asked.id)).toEqual(withReason.body);
    expect((await eventsOf(api.services.db, asked.id)).at(-1)).toMatchObject({ type: 'subscription.canceled', data: { object: withReason.body } });
    const without = await api.request('DELETE', `${SUBSCRIPTIONS}/${plain.id}`, { key: store.key });
    expect(without.body).toMatchObject({ status: 'canceled', cancel_reason: null });
  });
});
