import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { invoices, planChanges, simulatorCharges, subscriptionCharges, subscriptions } from '@/db/schema';
import { verifyLedger } from '@/server/balance/verify';
import { reconcilePlanChanges } from '@/server/billing/plan-change';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { createStore } from '../support/factories';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { CARDS, createSubscription, type SubscriptionOptions } from '../support/subscriptions';
import { listEmails } from '../mail/support';
import { eventsOf, SUBSCRIPTIONS } from './support';

/**
 * POST /subscriptions/{id}/change over HTTP against a real database: the proration to the cent,
 * the charge on the card on file with its invoice, the credit balance and the renewals it pays,
 * changes at the next renewal, and the refusals.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const DAY = 86_400;
/** A 30-day plan: the worked examples' period. */
const THIRTY_DAYS: SubscriptionOptions = { interval: 'day', intervalCount: 30 };

let store: Awaited<ReturnType<typeof createStore>>;
let key = '';

beforeEach(async () => {
  api.clock.set(T0);
  store = await createStore(api.services, { subscriptions: true });
  key = store.keys.sk_test;
});
afterEach(() => vi.restoreAllMocks());

const read = async (id: string, withKey = key) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key: withKey })).body;
const change = (id: string, body: Record<string, unknown>, options: { key?: string; idempotencyKey?: string } = {}) =>
  api.request('POST', `${SUBSCRIPTIONS}/${id}/change`, { key: options.key ?? key, body, headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {} });
const advance = async (seconds: number, withKey = key) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: withKey, body: { seconds } })).status).toBe(200);
const subscription = (options: SubscriptionOptions = {}) => createSubscription(api.services, store.id, { ...THIRTY_DAYS, ...options });
const recurringCharges = async (subscriptionId: string) =>
  (await api.services.db.select().from(simulatorCharges).where(eq(simulatorCharges.kind, 'recurring'))).filter((charge) => charge.description.includes(subscriptionId));
const updateOrders = async (subscriptionId: string) => (await api.request('GET', `/api/v1/orders?subscription_id=${subscriptionId}&billing_reason=subscription_update`, { key })).body.data as any[];
const invoiceOf = async (orderId: string) => (await api.request('GET', `/api/v1/invoices?order_id=${orderId}`, { key })).body.data[0];
const planName = async (id: string) => (await api.services.db.select({ planName: subscriptions.planName }).from(subscriptions).where(eq(subscriptions.id, id)))[0]!.planName;
const updatedEvents = async (id: string) => (await eventsOf(api.services.db, id)).filter((event) => event.type === 'subscription.updated');

describe('prorate_now', () => {
  it('999 → 1999 at day 15 of 30: credit 500, charge 1000, 500 charged on the card on file and invoiced', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(15 * DAY);
    const before = await read(sub.id);
    const response = await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30, plan_name: 'Premium' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const periodEnd = epoch(T0) + 30 * DAY;
    expect(response.body).toEqual({ ...before, amount: 1999 });
    expect(await planName(sub.id)).toBe('Premium');
    expect(response.body).toMatchObject({ current_period_start: epoch(T0), current_period_end: periodEnd, next_billing_at: periodEnd, credit_balance: 0, pending_change: null });
    expect(await read(sub.id)).toEqual(response.body);
    const charges = await recurringCharges(sub.id);
    expect(charges.map((charge) => charge.amount)).toEqual([500]);

    const [order] = await updateOrders(sub.id);
    expect(order).toMatchObject({ billing_reason: 'subscription_update', subscription_id: sub.id, amount_total: 500, amount_tax: 0 });
    const invoice = await invoiceOf(order.id);
    expect(invoice.lines).toEqual([
      expect.objectContaining({ description: 'Unused time on Pro plan', unit_amount: -500, amount_subtotal: -500, amount_tax: 0, amount_total: -500 }),
      expect.objectContaining({ description: 'Remaining time on Premium', unit_amount: 1000, amount_subtotal: 1000, amount_tax: 0, amount_total: 1000 }),
    ]);
    expect(invoice).toMatchObject({ amount_subtotal: 500, amount_tax: 0, amount_total: 500, subscription_id: sub.id });
    const [stored] = await api.services.db.select().from(invoices).where(eq(invoices.id, invoice.id));
    expect([epoch(stored!.suppliedFrom), epoch(stored!.suppliedUntil)]).toEqual([epoch(T0) + 15 * DAY, periodEnd]);
    const [row] = await api.services.db.select().from(planChanges).where(eq(planChanges.subscriptionId, sub.id));
    expect(row).toMatchObject({ status: 'succeeded', credit: 500, charge: 1000, amount: 500, orderId: order.id });

    const events = await eventsOf(api.services.db, sub.id);
    const updated = events.filter((event) => event.type === 'subscription.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data.previous_attributes).toEqual({ amount: 999 });
    const storeEvents = (await api.request('GET', '/api/v1/events?type=invoice.issued', { key })).body.data as any[];
    expect(storeEvents.map((event) => event.data.object.id)).toContain(invoice.id);
    // No proration charge counts as one of the payments: its receipt says it is the plan change.
    expect((await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id)))[0]!.paymentsMade).toBe(1);
    const [receipt] = await listEmails(api, key, '?template=receipt');
    expect(receipt.subject).toBe(`Your receipt from ${store.name}: change to Premium`);
    expect(receipt.text).toMatch(/Payment +Plan change/);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('1999 → 999 at day 15: credit 1000, charge 500, 500 into credit_balance; the renewal charges 499 with a credit line, the balance spent', async () => {
    const sub = await subscription({ amount: 1999 });
    await advance(15 * DAY);
    const response = await change(sub.id, { amount: 999, interval: 'day', interval_count: 30 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ amount: 999, credit_balance: 500 });
    expect(await planName(sub.id)).toBe('Pro plan');
    expect(await recurringCharges(sub.id)).toEqual([]);
    expect(await updateOrders(sub.id)).toEqual([]);
    expect((await updatedEvents(sub.id))[0]!.data.previous_attributes).toEqual({ amount: 1999, credit_balance: 0 });

    await advance(15 * DAY);
    const renewed = await read(sub.id);
    expect(renewed).toMatchObject({ status: 'active', credit_balance: 0, current_period_start: epoch(T0) + 30 * DAY });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([499]);
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    const invoice = await invoiceOf(cycle.id);
    expect(invoice.lines).toEqual([expect.objectContaining({ description: 'Pro plan', amount_total: 999 }), expect.objectContaining({ description: 'Credit from plan change', amount_total: -500 })]);
    expect(invoice.amount_total).toBe(499);
    const [charge] = await api.services.db
      .select()
      .from(subscriptionCharges)
      .where(and(eq(subscriptionCharges.subscriptionId, sub.id), eq(subscriptionCharges.cycle, 2)));
    expect(charge).toMatchObject({ amount: 499, amountCredit: 500, status: 'succeeded' });
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('1000 → 3000 at day 10 of 30: credit 667, charge 2000, 1333 charged; German lines for a German subscription', async () => {
    const sub = await subscription({ amount: 1000, language: 'de' });
    await advance(10 * DAY);
    const response = await change(sub.id, { amount: 3000, interval: 'day', interval_count: 30, plan_name: 'Profi' });
    expect(response.status).toBe(200);
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([1333]);
    const [order] = await updateOrders(sub.id);
    const invoice = await invoiceOf(order.id);
    expect(invoice.lines.map((line: any) => [line.description, line.amount_total])).toEqual([
      ['Nicht genutzte Zeit: Pro plan', -667],
      ['Restzeit: Profi', 2000],
    ]);
    expect(invoice.amount_total).toBe(1333);
  });

  it('a discount: each plan priced less its discount where the period it prices starts before the discount’s end', async () => {
    const sub = await subscription({ amount: 999 });
    const discount = {
      coupon: 'cpn_test_half',
      promotion_code: null,
      label: 'Half',
      name: 'Half',
      percent_off: 50,
      amount_off: null,
      duration: 'forever' as const,
      duration_in_months: null,
      applies_to: null,
    };
    await api.services.db.update(subscriptions).set({ discount }).where(eq(subscriptions.id, sub.id));
    await advance(15 * DAY);
    // Old 999 − 500 = 499: credit 250 (249.5); new 1999 − 1000 = 999: charge 500 (499.5); 250 charged.
    expect((await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 })).status).toBe(200);
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([250]);
    const [row] = await api.services.db.select().from(planChanges).where(eq(planChanges.subscriptionId, sub.id));
    expect(row).toMatchObject({ credit: 250, charge: 500, amount: 250 });
    // A discount that ended before the period: the plans at full price.
    const ended = await subscription({ amount: 999 });
    await api.services.db.update(subscriptions).set({ discount, discountEnd: T0 }).where(eq(subscriptions.id, ended.id));
    expect((await change(ended.id, { amount: 1999, interval: 'day', interval_count: 30 })).status).toBe(200);
    expect((await recurringCharges(ended.id)).map((charge) => charge.amount)).toEqual([500]);
  });

  it('another interval: the new plan’s periods count from the change, its whole amount charged less the credit', async () => {
    const sub = await subscription({ amount: 1000 });
    await advance(10 * DAY);
    const t = epoch(T0) + 10 * DAY;
    const response = await change(sub.id, { amount: 9000, interval: 'year', plan_name: 'Yearly' });
    expect(response.status).toBe(200);
    const end = epoch(periodBoundary(new Date(t * 1000), 'year', 1, 1));
    expect(response.body).toMatchObject({ amount: 9000, interval: 'year', interval_count: 1, current_period_start: t, current_period_end: end, next_billing_at: end });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([9000 - 667]);
    expect((await updatedEvents(sub.id))[0]!.data.previous_attributes).toEqual({
      amount: 1000,
      interval: 'day',
      interval_count: 30,
      current_period_start: epoch(T0),
      current_period_end: epoch(T0) + 30 * DAY,
      next_billing_at: epoch(T0) + 30 * DAY,
    });
    // The next renewal is a year after the change: cycle 2 of the yearly plan.
    await advance(end - t);
    expect(await read(sub.id)).toMatchObject({ current_period_start: end, current_period_end: epoch(periodBoundary(new Date(t * 1000), 'year', 1, 2)) });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([8333, 9000]);
  });

  it('a price: checked as at creation; its product and price on the subscription', async () => {
    const product = await createProduct(api, key, { name: 'Club', amount: 2500, mode: 'recurring', interval: 'day', interval_count: 30 });
    const sub = await subscription({ amount: 1000 });
    await advance(15 * DAY);
    const response = await change(sub.id, { price_id: product.price_id });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ amount: 2500, price_id: product.price_id, product_id: product.id });
    expect(await planName(sub.id)).toBe('Club');
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([1250 - 500]);
    expectError(await change(sub.id, { price_id: product.price_id }), 400, 'parameter_invalid', 'price_id');
    const oneTime = await createProduct(api, key, { name: 'Ebook' });
    expectError(await change(sub.id, { price_id: oneTime.price_id }), 400, 'price_mode_unsupported', 'price_id');
    expectError(await change(sub.id, { price_id: 'price_test_nothing' }), 404, 'resource_missing', 'price_id');
  });

  it('declined: 402 card_declined, nothing changed, no event', async () => {
    const sub = await subscription({ amount: 999, card: CARDS.declinesRecurring });
    await advance(15 * DAY);
    const before = await read(sub.id);
    const eventsBefore = await eventsOf(api.services.db, sub.id);
    expectError(await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 }, { idempotencyKey: 'declined-1' }), 402, 'card_declined');
    expect(await read(sub.id)).toEqual(before);
    expect(await eventsOf(api.services.db, sub.id)).toEqual(eventsBefore);
    expect(await updateOrders(sub.id)).toEqual([]);
    // A replay answers as the first request did.
    expectError(await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 }, { idempotencyKey: 'declined-1' }), 402, 'card_declined');
  });

  it('the gateway’s silence: 500 payment_outcome_unknown, billing waits, the reconciler applies the approved change once', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(29 * DAY);
    const gateway = api.services.gateways.test;
    const chargeRecurring = gateway.chargeRecurring.bind(gateway);
    vi.spyOn(gateway, 'chargeRecurring').mockImplementationOnce(async (request) => {
      await chargeRecurring(request);
      throw new GatewayTimeoutError();
    });
    expectError(await change(sub.id, { amount: 3999, interval: 'day', interval_count: 30 }), 500, 'payment_outcome_unknown');
    expect(await read(sub.id)).toMatchObject({ amount: 999 });
    // The renewal falls due while the change is open: it waits, and so does another change.
    await advance(DAY);
    expect(await read(sub.id)).toMatchObject({ amount: 999, current_period_start: epoch(T0) });
    expectError(await change(sub.id, { amount: 4999, interval: 'day', interval_count: 30 }), 409, 'session_payment_in_progress');

    api.clock.advance(120);
    expect(await reconcilePlanChanges(api.services)).toBe(1);
    expect(await reconcilePlanChanges(api.services, { staleAfterSeconds: 0 })).toBe(0);
    // Credit 33 (999 × 1/30), charge 133 (3999 × 1/30): 100 charged; then the renewal on the new plan.
    expect(await updateOrders(sub.id)).toHaveLength(1);
    await advance(60);
    expect(await read(sub.id)).toMatchObject({ amount: 3999, current_period_start: epoch(T0) + 30 * DAY });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([100, 3999]);
  });

  it('a trial changes plan without a charge', async () => {
    const sub = await subscription({ amount: 999 });
    await api.services.db.update(subscriptions).set({ status: 'trialing', paymentsMade: 0 }).where(eq(subscriptions.id, sub.id));
    const response = await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'trialing', amount: 1999, credit_balance: 0 });
    expect(await recurringCharges(sub.id)).toEqual([]);
  });

  it('idempotent: a replay answers the subscription without charging again; another body is 409', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(15 * DAY);
    const body = { amount: 1999, interval: 'day', interval_count: 30 };
    const first = await change(sub.id, body, { idempotencyKey: 'change-1' });
    const again = await change(sub.id, body, { idempotencyKey: 'change-1' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await recurringCharges(sub.id)).toHaveLength(1);
    expectError(await change(sub.id, { ...body, amount: 2999 }, { idempotencyKey: 'change-1' }), 409, 'idempotency_key_reused');
  });

  it('a change racing the renewal: one charge of each, in turn, and neither lost', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(30 * DAY - 1);
    const [renewal, changed] = await Promise.all([
      api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds: 1 } }),
      change(sub.id, { amount: 1999, interval: 'day', interval_count: 30, proration: 'next_period' }),
    ]);
    expect(renewal.status).toBe(200);
    expect([200, 409]).toContain(changed.status);
    const after = await read(sub.id);
    expect(after.current_period_start).toBe(epoch(T0) + 30 * DAY);
    // Before the renewal, the renewal switched to it; after, it waits for the next; refused while the renewal was at the gateway.
    const switched = changed.status === 200 && after.pending_change === null;
    expect(after.amount).toBe(switched ? 1999 : 999);
    if (changed.status === 200 && !switched) expect(after.pending_change).toMatchObject({ amount: 1999, effective_at: epoch(T0) + 60 * DAY });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([after.amount]);
  });
});

describe('next_period', () => {
  it('waits in pending_change, replaced by a later change; the renewal at its effective_at charges the new plan from there', async () => {
    const sub = await subscription({ amount: 999, interval: 'month', intervalCount: 1 });
    const end = epoch(periodBoundary(T0, 'month', 1, 1));
    const first = await change(sub.id, { amount: 1999, interval: 'month', proration: 'next_period' });
    expect(first.status).toBe(200);
    expect(first.body.pending_change).toEqual({ price_id: null, product_id: null, plan_name: 'Pro plan', amount: 1999, interval: 'month', interval_count: 1, effective_at: end });
    expect(first.body).toMatchObject({ amount: 999, interval: 'month' });
    const second = await change(sub.id, { amount: 4999, interval: 'week', interval_count: 2, plan_name: 'Fortnightly', proration: 'next_period' });
    expect(second.body.pending_change).toEqual({ price_id: null, product_id: null, plan_name: 'Fortnightly', amount: 4999, interval: 'week', interval_count: 2, effective_at: end });
    expect((await updatedEvents(sub.id)).map((event) => event.data.previous_attributes)).toEqual([{ pending_change: null }, { pending_change: first.body.pending_change }]);
    expect(await recurringCharges(sub.id)).toEqual([]);

    await advance(end - epoch(T0));
    const renewed = await read(sub.id);
    expect(renewed).toMatchObject({
      amount: 4999,
      interval: 'week',
      interval_count: 2,
      pending_change: null,
      current_period_start: end,
      current_period_end: end + 14 * DAY,
      next_billing_at: end + 14 * DAY,
    });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([4999]);
    const renewalUpdate = (await updatedEvents(sub.id)).at(-1)!;
    expect(renewalUpdate.data.previous_attributes).toMatchObject({ amount: 999, interval: 'month', interval_count: 1, pending_change: second.body.pending_change });
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    expect((await invoiceOf(cycle.id)).lines.map((line: any) => [line.description, line.amount_total])).toEqual([['Fortnightly', 4999]]);
    // Two weeks on, the next renewal of the new plan.
    await advance(14 * DAY);
    expect(await read(sub.id)).toMatchObject({ current_period_start: end + 14 * DAY, current_period_end: end + 28 * DAY });
  });
});

describe('the credit balance', () => {
  it('a renewal the credit covers entirely succeeds without the gateway: events, invoice, receipt', async () => {
    const sub = await subscription({ amount: 3000 });
    await advance(1 * DAY);
    // Credit 2900 (3000 × 29/30), charge 97 (100 × 29/30): 2803 into the balance.
    expect((await change(sub.id, { amount: 100, interval: 'day', interval_count: 30 })).body.credit_balance).toBe(2803);
    const gateway = api.services.gateways.test;
    const spy = vi.spyOn(gateway, 'chargeRecurring');
    await advance(29 * DAY);
    expect(spy).not.toHaveBeenCalled();
    expect(await read(sub.id)).toMatchObject({ status: 'active', credit_balance: 2703, current_period_start: epoch(T0) + 30 * DAY });
    const types = (await eventsOf(api.services.db, sub.id)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    expect(cycle).toMatchObject({ amount_total: 0 });
    const invoice = await invoiceOf(cycle.id);
    expect(invoice.lines.map((line: any) => [line.description, line.amount_total])).toEqual([
      ['Pro plan', 100],
      ['Credit from plan change', -100],
    ]);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });
});

describe('refusals', () => {
  it('400 for the plan it is on or a malformed body; 409 unless active or trialing without a scheduled end', async () => {
    const sub = await subscription({ amount: 999 });
    expectError(await change(sub.id, { amount: 999, interval: 'day', interval_count: 30 }), 400, 'parameter_invalid', 'amount');
    expectError(await change(sub.id, { amount: 999 }), 400, 'parameter_invalid', 'interval');
    expectError(await change(sub.id, { amount: 999, interval: 'day', proration: 'later' }), 400, 'parameter_invalid', 'proration');
    await api.services.db.update(subscriptions).set({ cancelAtPeriodEnd: true, cancelAt: sub.currentPeriodEnd }).where(eq(subscriptions.id, sub.id));
    expectError(await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 }), 409, 'subscription_not_active');
    const canceled = await subscription();
    expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${canceled.id}`, { key })).status).toBe(200);
    expectError(await change(canceled.id, { amount: 1999, interval: 'day' }), 409, 'subscription_not_active');
  });

  it('404 from another store or the other environment; both environments and stores change their own', async () => {
    const other = await createStore(api.services, { subscriptions: true });
    const sub = await subscription({ amount: 999 });
    expectError(await change(sub.id, { amount: 1999, interval: 'day' }, { key: other.keys.sk_test }), 404, 'resource_missing', 'id');
    expectError(await change(sub.id, { amount: 1999, interval: 'day' }, { key: store.keys.sk_live }), 404, 'resource_missing', 'id');
    const live = await createSubscription(api.services, other.id, { ...THIRTY_DAYS, amount: 1999, livemode: true });
    const response = await change(live.id, { amount: 999, interval: 'day', interval_count: 30 }, { key: other.keys.sk_live });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ livemode: true, amount: 999, credit_balance: 1000 });
    expect((await change(live.id, { amount: 2999, interval: 'day', interval_count: 30, proration: 'next_period' }, { key: other.keys.sk_live })).body.pending_change).toMatchObject({ amount: 2999 });
  });

  it('503 feature_unavailable and 403 capability_disabled first', async () => {
    const plain = await createStore(api.services, { subscriptions: false });
    expectError(await change('sub_test_nothing', { amount: 'x' }, { key: plain.keys.sk_test }), 403, 'capability_disabled');
    api.services.config.subscriptionsEnabled = false;
    try {
      expectError(await change('sub_test_nothing', { amount: 'x' }), 503, 'feature_unavailable');
    } finally {
      api.services.config.subscriptionsEnabled = true;
    }
  });
});
