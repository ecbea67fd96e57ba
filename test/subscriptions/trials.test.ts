import { and, asc, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { coupons, invoices, orders, simulatorCharges, subscriptionCharges } from '@/db/schema';
import { reconcileSubscriptionCharges } from '@/server/billing/reconcile';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { reconcileFirstCharges } from '@/server/subscriptions/first-charge-reconcile';
import { createCoupon } from '../support/coupons';
import { declareCancellation } from '@/server/subscriptions/cancellation';
import { advanceClock, chargesOf, DAY, recurringLedger, retrieveSubscription } from '../billing/support';
import { listEmails } from '../mail/support';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { CARDS, createCheckout, eventsOf, PLAN, SUBSCRIPTIONS, submitCard } from './support';

/**
 * Free trials over HTTP against a real database: the checkout's `trial_days`, one trial per
 * customer and plan, the card checked without a charge (`trialing`), the notice three days before
 * the end, and billing's first charge at the trial's end (approved, declined and retried), or none
 * when the trial was canceled.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });

let mailbox = 0;
/** An e-mail address no other test uses: one trial per address and plan. */
const newEmail = () => `trial-${++mailbox}@example.com`;
const TRIAL = (email: string, trialDays = 14) => ({ ...PLAN, customer_email: email, trial_days: trialDays });

/** Creates a trial checkout and checks a card on its page; answers the checkout and the subscription as the API reads it. */
async function startTrial(body: Record<string, unknown>, card: string = CARDS.approved, key = store.key) {
  const checkout = await createCheckout(api, key, body);
  const outcome = await submitCard(api, checkout, card);
  const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key });
  return { checkout, outcome, subscription: await retrieveSubscription(api, key, read.body.subscription) };
}

/** A store of its own, for a test that moves the store's test clock (it stays moved). */
async function clockStore() {
  const created = await createStore(api.services, { subscriptions: true });
  return { ...created, key: created.keys.sk_test };
}

const ordersOf = (subscriptionId: string) => api.services.db.select().from(orders).where(eq(orders.subscriptionId, subscriptionId)).orderBy(asc(orders.createdAt));
const typesOf = async (subscriptionId: string) => (await eventsOf(api.services.db, subscriptionId)).map((event) => event.type);

describe('POST /api/v1/subscriptions: trial_days', () => {
  it('is echoed (null without one); outside 1–365 or not an integer: 400 parameter_invalid', async () => {
    expect((await createCheckout(api, store.key, TRIAL(newEmail(), 1))).trial_days).toBe(1);
    expect((await createCheckout(api, store.key, TRIAL(newEmail(), 365))).trial_days).toBe(365);
    expect((await createCheckout(api, store.key, PLAN)).trial_days).toBeNull();
    for (const trialDays of [0, 366, 1.5, '14']) {
      const response = await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: TRIAL(newEmail(), trialDays as number) });
      expectError(response, 400, 'parameter_invalid', 'trial_days');
    }
  });
});

describe('a trial begins: the card checked, nothing charged', () => {
  it('approved (4242): trialing, trial_end = now + 14 days (the period), billed then, the card on file, subscription.created, no order or invoice', async () => {
    const email = newEmail();
    const { checkout, outcome, subscription } = await startTrial({ ...TRIAL(email), success_url: 'http://merchant.test/done' });
    expect(outcome).toEqual({ kind: 'redirect', location: `http://merchant.test/done?checkout_id=${checkout.id}&subscription_id=${subscription.id}` });
    const trialEnd = epoch(T0) + 14 * DAY;
    expect(subscription).toEqual({
      id: expect.stringMatching(/^sub_test_/),
      object: 'subscription',
      status: 'trialing',
      livemode: false,
      currency: 'eur',
      amount: 990,
      interval: 'month',
      interval_count: 1,
      total_payments: 12,
      recurring_id: expect.stringMatching(/^sim_rec_/),
      card: { brand: 'visa', last4: '4242' },
      customer_id: expect.stringMatching(/^cus_test_/),
      customer_email: email,
      customer_name: null,
      product_id: null,
      price_id: null,
      failure_count: 0,
      current_period_start: epoch(T0),
      current_period_end: trialEnd,
      next_billing_at: trialEnd,
      trial_start: epoch(T0),
      trial_end: trialEnd,
      cancel_at_period_end: false,
      cancel_at: null,
      cancellation: null,
      discount: null,
      pending_change: null,
      credit_balance: 0,
      canceled_at: null,
      cancel_reason: null,
      ended_at: null,
      metadata: {},
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      tax_evidence: null,
      evidence_conflict: null,
      created: epoch(T0),
    });
    expect(await typesOf(subscription.id)).toEqual(['subscription.created']);
    expect(await ordersOf(subscription.id)).toEqual([]);
    // The card check moved no money: one gateway call of 0.
    const gateway = await api.services.db.select().from(simulatorCharges).where(eq(simulatorCharges.recurringId, subscription.recurring_id));
    expect(gateway.map((charge) => ({ amount: charge.amount, kind: charge.kind, status: charge.status }))).toEqual([{ amount: 0, kind: 'charge', status: 'succeeded' }]);
    expect((await chargesOf(api.services.db, subscription.id)).map(({ cycle, attempt, amount, status }) => ({ cycle, attempt, amount, status }))).toEqual([
      { cycle: 0, attempt: 0, amount: 0, status: 'succeeded' },
    ]);
    expect(await listEmails(api, store.key, `?to=${encodeURIComponent(email)}`)).toEqual([]);
  });

  it('one day: trial_end a day on', async () => {
    const { subscription } = await startTrial(TRIAL(newEmail(), 1));
    expect(subscription).toMatchObject({ status: 'trialing', trial_start: epoch(T0), trial_end: epoch(T0) + DAY, next_billing_at: epoch(T0) + DAY });
  });

  it('declined (0002): incomplete as a declined first charge, no trial recorded, the page says declined', async () => {
    const email = newEmail();
    const { outcome, subscription } = await startTrial(TRIAL(email), CARDS.declined);
    expect(outcome).toMatchObject({ kind: 'redirect', declined: true });
    expect(subscription).toMatchObject({ status: 'incomplete', trial_start: null, trial_end: null, card: null, recurring_id: '' });
    expect(await typesOf(subscription.id)).toEqual(['subscription.created']);
    // A declined check used no trial: the customer may start one again.
    expect((await startTrial(TRIAL(email))).subscription.status).toBe('trialing');
  });
});

describe('a card check whose answer was lost', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the reconciler settles it as the trial it started (not billing’s), holding the discount’s redemption until then', async () => {
    const gateway = api.services.gateways.test;
    const charge = gateway.charge.bind(gateway);
    vi.spyOn(gateway, 'charge').mockImplementation(async (request) => {
      await charge(request);
      throw new GatewayTimeoutError();
    });
    const coupon = await createCoupon(api.services.db, { storeId: store.id, livemode: false }, { maxRedemptions: 3 });
    const checkout = await createCheckout(api, store.key, { ...TRIAL(newEmail()), discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    vi.restoreAllMocks();
    const id = (await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: store.key })).body.subscription;
    expect((await retrieveSubscription(api, store.key, id)).status).toBe('pending');
    const held = async () => (await api.services.db.select().from(coupons).where(eq(coupons.id, coupon.id)))[0]!;
    expect(await held()).toMatchObject({ redemptionsHeld: 1, timesRedeemed: 0 });
    // Billing's reconciler leaves the page's card check alone.
    api.clock.set(new Date(T0.getTime() + 61_000));
    expect(await reconcileSubscriptionCharges(api.services)).toBe(0);
    expect(await reconcileFirstCharges(api.services)).toBe(1);
    expect(await retrieveSubscription(api, store.key, id)).toMatchObject({ status: 'trialing', trial_start: epoch(T0) + 61, trial_end: epoch(T0) + 61 + 14 * DAY });
    expect(await held()).toMatchObject({ redemptionsHeld: 0, timesRedeemed: 1 });
  });
});

describe('one trial per customer and plan', () => {
  it('plan mode: the same plan_name for the same address in any case and status is 400 trial_already_used; another plan, store or environment is not', async () => {
    const email = newEmail();
    const { subscription } = await startTrial(TRIAL(email));
    // Canceled since: still used.
    expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key: store.key })).status).toBe(200);
    const again = await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: TRIAL(email.toUpperCase()) });
    expectError(again, 400, 'trial_already_used', 'trial_days');
    // Without a trial the same plan may be bought.
    expect((await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...PLAN, customer_email: email } })).status).toBe(201);
    expect((await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...TRIAL(email), plan_name: 'Team plan' } })).status).toBe(201);
    expect((await api.request('POST', SUBSCRIPTIONS, { key: store.keys.sk_live, body: TRIAL(email) })).status).toBe(201);
    const other = await createStore(api.services, { subscriptions: true });
    expect((await api.request('POST', SUBSCRIPTIONS, { key: other.keys.sk_test, body: TRIAL(email) })).status).toBe(201);
  });

  it('price mode: the same product is refused, another product is not; a price-mode trial does not use a plan-mode trial of the same name', async () => {
    const email = newEmail();
    const product = await createProduct(api, store.key, { name: 'Magazine', amount: 990, mode: 'recurring', interval: 'month' });
    const other = await createProduct(api, store.key, { name: 'Newsletter', amount: 490, mode: 'recurring', interval: 'month' });
    const priced = (priceId: string) => ({ price_id: priceId, total_payments: 12, customer_email: email, trial_days: 7 });
    await startTrial(priced(product.price_id));
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: priced(product.price_id) }), 400, 'trial_already_used', 'trial_days');
    expect((await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: priced(other.price_id) })).status).toBe(201);
    expect((await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...TRIAL(email), plan_name: 'Magazine' } })).status).toBe(201);
  });

  it('a trial begun after the checkout was created: the page refuses, nothing is charged, the link stays unused', async () => {
    const email = newEmail();
    const first = await createCheckout(api, store.key, TRIAL(email));
    const second = await createCheckout(api, store.key, TRIAL(email));
    await submitCard(api, first);
    const before = (await api.services.db.select().from(simulatorCharges)).length;
    const outcome = await submitCard(api, second);
    expect(outcome).toEqual({ kind: 'redirect', location: `/subscribe/${second.id}?expires=${second.link.expires}&signature=${second.link.signature}&error=trial_already_used#form-error` });
    expect((await api.services.db.select().from(simulatorCharges)).length).toBe(before);
    expect((await api.request('GET', `${SUBSCRIPTIONS}/checkout/${second.id}`, { key: store.key })).body).toMatchObject({ status: 'open', subscription: null });
  });

  it('two trials of one address and plan started at once: one begins, the other is refused and nothing is charged for it', async () => {
    const email = newEmail();
    const checkouts = [await createCheckout(api, store.key, TRIAL(email)), await createCheckout(api, store.key, TRIAL(email))];
    const before = (await api.services.db.select().from(simulatorCharges)).length;
    const outcomes = await Promise.all(checkouts.map((checkout) => submitCard(api, checkout)));
    const refused = outcomes.map((outcome, index) => (outcome.kind === 'redirect' && outcome.location.includes('error=trial_already_used') ? index : -1)).filter((index) => index >= 0);
    expect(refused).toHaveLength(1);
    const started = checkouts[1 - refused[0]!]!;
    const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${started.id}`, { key: store.key });
    expect((await api.request('GET', `${SUBSCRIPTIONS}/${read.body.subscription}`, { key: store.key })).body.status).toBe('trialing');
    // One card check, for the trial that began.
    expect((await api.services.db.select().from(simulatorCharges)).length).toBe(before + 1);
  });
});

describe('the notice three days before the trial ends', () => {
  it('14 days: at day 11, subscription.trial_will_end and the e-mail trial_ending (plan, end, first charge, card, both links), exactly once', async () => {
    const email = newEmail();
    const own = await clockStore();
    const { subscription } = await startTrial(TRIAL(email), CARDS.approved, own.key);
    await advanceClock(api, own.key, 11 * DAY - 1);
    expect(await typesOf(subscription.id)).toEqual(['subscription.created']);
    await advanceClock(api, own.key, 1);
    const events = await eventsOf(api.services.db, subscription.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.created', 'subscription.trial_will_end']);
    expect(events[1]!).toMatchObject({ created: epoch(T0) + 11 * DAY, data: { object: { id: subscription.id, status: 'trialing', trial_end: epoch(T0) + 14 * DAY } } });
    const mails = await listEmails(api, own.key, `?to=${encodeURIComponent(email)}`);
    expect(mails.map((mail) => mail.template)).toEqual(['trial_ending']);
    const [mail] = mails;
    expect(mail.subject).toBe(`Your free trial of Pro plan at ${own.name} ends on March 15, 2026`);
    expect(mail.text).toContain('Your free trial of Pro plan ends on March 15, 2026. Then €9.90 will be charged to your card.');
    expect(mail.text).toMatch(new RegExp(`Update payment method \\S+/payment-method/${subscription.id}\\?expires=\\d+&signature=`));
    expect(mail.text).toContain(`/cancel?number=${subscription.id}`);
    expect(mail.text).toMatch(/Trial ends\s+March 15, 2026/);
    expect(mail.text).toMatch(/Visa •••• 4242|Visa ending in 4242/);
    expect(mail.text).toMatch(/€9\.90/);
    // Once, however the clock moves until the end.
    await advanceClock(api, own.key, DAY);
    await advanceClock(api, own.key, DAY);
    expect((await typesOf(subscription.id)).filter((type) => type === 'subscription.trial_will_end')).toHaveLength(1);
    expect(await listEmails(api, own.key, `?to=${encodeURIComponent(email)}&template=trial_ending`)).toHaveLength(1);
  });

  it('3 days or less: at once, right after subscription.created; no renewal_reminder for the first charge', async () => {
    for (const days of [1, 3]) {
      const email = newEmail();
      const { subscription } = await startTrial(TRIAL(email, days));
      expect(await typesOf(subscription.id)).toEqual(['subscription.created', 'subscription.trial_will_end']);
      expect((await listEmails(api, store.key, `?to=${encodeURIComponent(email)}`)).map((mail) => mail.template)).toEqual(['trial_ending']);
    }
    const email = newEmail();
    const own = await clockStore();
    await startTrial(TRIAL(email, 10), CARDS.approved, own.key);
    await advanceClock(api, own.key, 10 * DAY - 1);
    expect((await listEmails(api, own.key, `?to=${encodeURIComponent(email)}`)).map((mail) => mail.template)).toEqual(['trial_ending']);
  });

  it('a trial whose end is scheduled gets none', async () => {
    const email = newEmail();
    const own = await clockStore();
    const { subscription } = await startTrial(TRIAL(email), CARDS.approved, own.key);
    await declareCancellation(
      api.services,
      { email, number: subscription.id, name: 'Ada', reason: null, cancelAt: 'period_end', language: 'en' },
      { kind: 'customer', request: { ip: '198.51.100.7', method: 'POST', path: '/cancel/declare' } },
    );
    await advanceClock(api, own.key, 12 * DAY);
    expect(await typesOf(subscription.id)).toEqual(['subscription.created', 'subscription.updated']);
    expect((await listEmails(api, own.key, `?to=${encodeURIComponent(email)}`)).map((mail) => mail.template)).toEqual(['cancellation_received']);
  });
});

describe('the trial ends: billing makes the first charge', () => {
  it('approved: active, periods counted from trial_end, payment_succeeded, updated, invoice.issued, receipt; the next charge a month after trial_end', async () => {
    const own = await clockStore();
    const email = newEmail();
    const { subscription } = await startTrial(TRIAL(email), CARDS.approved, own.key);
    const trialEnd = epoch(T0) + 14 * DAY;
    await advanceClock(api, own.key, 14 * DAY);
    const after = await retrieveSubscription(api, own.key, subscription.id);
    const monthLater = epoch(new Date('2026-04-15T12:00:00Z'));
    expect(after).toMatchObject({
      status: 'active',
      trial_start: epoch(T0),
      trial_end: trialEnd,
      current_period_start: trialEnd,
      current_period_end: monthLater,
      next_billing_at: monthLater,
      failure_count: 0,
    });
    expect(await typesOf(subscription.id)).toEqual(['subscription.created', 'subscription.trial_will_end', 'subscription.payment_succeeded', 'subscription.updated']);
    const [order, ...more] = await ordersOf(subscription.id);
    expect(more).toEqual([]);
    expect(order).toMatchObject({ amountTotal: 990, billingReason: 'subscription_create', status: 'paid' });
    const invoice = await api.request('GET', `/api/v1/invoices/${order!.invoiceId}`, { key: own.key });
    expect(invoice.body).toMatchObject({
      order_id: order!.id,
      subscription_id: subscription.id,
      customer_email: email,
      lines: [{ description: 'Pro plan', quantity: 1, unit_amount: 990, amount_discount: 0, amount_subtotal: 990, tax_rate: 0, amount_tax: 0, amount_total: 990 }],
      discount: null,
      amount_discount: 0,
      amount_subtotal: 990,
      amount_tax: 0,
      amount_total: 990,
      issued_at: trialEnd,
    });
    // invoice.issued at the trial's end, carrying the invoice as it reads.
    const issued = (await api.request('GET', `/api/v1/events?type=invoice.issued&object_id=${order!.invoiceId}`, { key: own.key })).body.data as any[];
    expect(issued.map((event) => ({ created: event.created, data: event.data }))).toEqual([{ created: trialEnd, data: { object: invoice.body } }]);
    // The invoice supplies the first charged period: from the trial's end.
    const [stored] = await api.services.db.select().from(invoices).where(eq(invoices.id, order!.invoiceId!));
    expect({ from: epoch(stored!.suppliedFrom!), until: epoch(stored!.suppliedUntil!) }).toEqual({ from: trialEnd, until: monthLater });
    expect((await listEmails(api, own.key, `?to=${encodeURIComponent(email)}`)).map((mail) => mail.template).sort()).toEqual(['receipt', 'trial_ending']);
    expect((await recurringLedger(api.services.db, subscription.recurring_id)).map((charge) => charge.amount)).toEqual([990]);
    // The second payment a month after the first.
    await advanceClock(api, own.key, monthLater - trialEnd);
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ status: 'active', current_period_start: monthLater });
    expect((await recurringLedger(api.services.db, subscription.recurring_id)).map((charge) => charge.amount)).toEqual([990, 990]);
  });

  it('…0341: past_due at trial_end, every retry declined (+1, +3, +5, +7 days), then canceled', async () => {
    const own = await clockStore();
    const { subscription } = await startTrial(TRIAL(newEmail()), CARDS.declinesRecurring, own.key);
    await advanceClock(api, own.key, 14 * DAY);
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ status: 'past_due', failure_count: 1, next_billing_at: epoch(T0) + 15 * DAY });
    await advanceClock(api, own.key, 7 * DAY);
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ status: 'canceled', failure_count: 5 });
    expect((await chargesOf(api.services.db, subscription.id)).map(({ cycle, attempt, status }) => `${cycle}.${attempt} ${status}`)).toEqual([
      '0.0 succeeded',
      '1.0 declined',
      '1.1 declined',
      '1.2 declined',
      '1.3 declined',
      '1.4 declined',
    ]);
    expect(await ordersOf(subscription.id)).toEqual([]);
  });

  it('…3063: past_due at trial_end, the first retry a day later approved: active, periods still from trial_end', async () => {
    const own = await clockStore();
    const { subscription } = await startTrial(TRIAL(newEmail()), CARDS.declinesFirstRecurring, own.key);
    await advanceClock(api, own.key, 14 * DAY);
    expect((await retrieveSubscription(api, own.key, subscription.id)).status).toBe('past_due');
    await advanceClock(api, own.key, DAY);
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({
      status: 'active',
      failure_count: 0,
      current_period_start: epoch(T0) + 14 * DAY,
      current_period_end: epoch(new Date('2026-04-15T12:00:00Z')),
    });
    expect((await ordersOf(subscription.id)).map((order) => order.amountTotal)).toEqual([990]);
  });
});

describe('canceled during the trial: nothing is ever charged', () => {
  it('DELETE: canceled at once; a year on, no charge', async () => {
    const own = await clockStore();
    const { subscription } = await startTrial(TRIAL(newEmail()), CARDS.approved, own.key);
    const canceled = await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key: own.key });
    expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: epoch(T0), ended_at: epoch(T0) });
    await advanceClock(api, own.key, 365 * DAY);
    expect((await chargesOf(api.services.db, subscription.id)).map((charge) => charge.cycle)).toEqual([0]);
    expect(await ordersOf(subscription.id)).toEqual([]);
  });

  it('declared on /cancel: cancel_at = trial_end, canceled there without a charge; the card can be replaced meanwhile', async () => {
    const own = await clockStore();
    const email = newEmail();
    const { subscription } = await startTrial(TRIAL(email), CARDS.approved, own.key);
    const link = await api.request('POST', `${SUBSCRIPTIONS}/${subscription.id}/update_payment_method_link`, { key: own.key, body: {} });
    expect(link.status).toBe(200);
    await declareCancellation(
      api.services,
      { email, number: null, name: 'Ada', reason: null, cancelAt: 'period_end', language: 'en' },
      { kind: 'customer', request: { ip: '198.51.100.8', method: 'POST', path: '/cancel/declare' } },
    );
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ status: 'trialing', cancel_at_period_end: true, cancel_at: epoch(T0) + 14 * DAY });
    await advanceClock(api, own.key, 14 * DAY);
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ status: 'canceled', canceled_at: epoch(T0) + 14 * DAY, ended_at: epoch(T0) + 14 * DAY });
    await advanceClock(api, own.key, 60 * DAY);
    expect((await chargesOf(api.services.db, subscription.id)).map((charge) => charge.cycle)).toEqual([0]);
    expect(await recurringLedger(api.services.db, subscription.recurring_id)).toEqual([]);
  });
});

describe('trialing in lists and the catalog', () => {
  it('GET /subscriptions lists it and filters by status=trialing; a product with a trialing subscription cannot be deleted', async () => {
    const product = await createProduct(api, store.key, { name: 'Trial magazine', amount: 990, mode: 'recurring', interval: 'month' });
    const { subscription } = await startTrial({ price_id: product.price_id, total_payments: 12, customer_email: newEmail(), trial_days: 30 });
    const listed = await api.request('GET', `${SUBSCRIPTIONS}?status=trialing&limit=100`, { key: store.key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((row: { id: string }) => row.id)).toContain(subscription.id);
    expect(listed.body.data.every((row: { status: string }) => row.status === 'trialing')).toBe(true);
    const active = await api.request('GET', `${SUBSCRIPTIONS}?status=active&limit=100`, { key: store.key });
    expect(active.body.data.map((row: { id: string }) => row.id)).not.toContain(subscription.id);
    const deleted = await api.request('DELETE', `/api/v1/products/${product.id}`, { key: store.key });
    expect(deleted.status).toBe(409);
  });

  it('a live-mode trial checkout of another store is its own', async () => {
    const other = await createStore(api.services, { subscriptions: true });
    const checkout = await api.request('POST', SUBSCRIPTIONS, { key: other.keys.sk_live, body: { ...TRIAL(newEmail(), 30), success_url: 'https://merchant.example/done' } });
    expect(checkout.status).toBe(201);
    expect(checkout.body).toMatchObject({ livemode: true, trial_days: 30 });
    expect(
      (
        await api.services.db
          .select()
          .from(subscriptionCharges)
          .where(and(eq(subscriptionCharges.storeId, other.id)))
      ).length,
    ).toBe(0);
  });
});
