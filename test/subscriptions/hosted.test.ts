import { count, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { simulatorCharges, stores, subscriptionCharges, subscriptionCheckouts } from '@/db/schema';
import { signedLink } from '@/server/kit/links';
import { GatewayRejectedError, GatewayTimeoutError } from '@/server/gateway/types';
import { reconcileFirstCharges } from '@/server/subscriptions/first-charge-reconcile';
import { subscriptionReturnUrl } from '@/server/subscriptions/first-charge';
import { loadHostedSubscriptionCheckout, loadHostedSubscriptionReceipt, plannedCharges, runsUntilCanceled, subscriptionChallengeReturn, submitHostedSubscription } from '@/server/subscriptions/hosted';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { auditOf, CARDS, cardForm, createCheckout, eventsOf, PLAN, SUBSCRIPTIONS, submitCard } from './support';

/**
 * The hosted subscription checkout without a browser: the signed
 * single-use link, the first charge (approved → active, declined → incomplete), where each
 * submission sends the browser, the events written, and the crash window around the gateway call.
 * test/browser/subscription-checkout.test.ts drives the same pages in Chromium.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });
const HOUR = 3600;

afterEach(() => vi.restoreAllMocks());

const checkoutRow = async (id: string) => (await api.services.db.select().from(subscriptionCheckouts).where(eq(subscriptionCheckouts.id, id)))[0]!;
const gatewayCharges = async () => (await api.services.db.select({ n: count() }).from(simulatorCharges))[0]!.n;
const readCheckout = async (id: string) => (await api.request('GET', `${SUBSCRIPTIONS}/checkout/${id}`, { key: store.key })).body;
const readSubscription = async (id: string) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key: store.key })).body;
const pagePath = (checkout: { link: { id: string; expires: string; signature: string } }) => `/subscribe/${checkout.link.id}?expires=${checkout.link.expires}&signature=${checkout.link.signature}`;

describe('what the page promises: the charges a subscription started now would make', () => {
  const at = (iso: string) => Date.parse(iso) / 1000;

  it('the next a period after today, the last after total_payments periods, counted from today as billing counts them (month ends do not drift)', () => {
    const view = { readAt: at('2027-01-31T09:00:00Z'), interval: 'month' as const, intervalCount: 1, totalPayments: 12 };
    expect(plannedCharges(view)).toEqual({ next: at('2027-02-28T09:00:00Z'), last: at('2027-12-31T09:00:00Z') });
    expect(plannedCharges({ ...view, interval: 'week', intervalCount: 2, totalPayments: 3 })).toEqual({ next: at('2027-02-14T09:00:00Z'), last: at('2027-02-28T09:00:00Z') });
    // One payment: today's is the only and the last.
    expect(plannedCharges({ ...view, totalPayments: 1 })).toEqual({ next: null, last: view.readAt });
  });

  it('the most payments a plan may have (10,000) runs until canceled: no last payment', () => {
    expect(runsUntilCanceled(10_000)).toBe(true);
    expect(runsUntilCanceled(9_999)).toBe(false);
    expect(plannedCharges({ readAt: at('2027-01-31T09:00:00Z'), interval: 'month', intervalCount: 1, totalPayments: 10_000 })).toEqual({ next: at('2027-02-28T09:00:00Z'), last: null });
  });
});

describe('hosted subscription checkout: the link', () => {
  it('an open link shows plan, amount, interval and the prefilled email', async () => {
    const checkout = await createCheckout(api, store.key, { ...PLAN, interval_count: 3, customer_name: 'Ada' });
    const hosted = await loadHostedSubscriptionCheckout(api.services, checkout.link);
    expect(hosted).toEqual({
      state: 'open',
      view: {
        id: checkout.id,
        livemode: false,
        storeName: store.name,
        storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null },
        readAt: epoch(api.clock.now()),
        planName: 'Pro plan',
        amount: 990,
        interval: 'month',
        intervalCount: 3,
        totalPayments: 12,
        customerEmail: 'ada@example.com',
        customerName: 'Ada',
        successUrl: null,
        trialDays: null,
        firstCharge: 990,
        planCharge: 990,
        discount: null,
        allowPromotionCodes: false,
      },
    });
  });

  it('a tampered signature, expiry or id, an unknown id and a checkout-purpose signature are all `invalid`', async () => {
    const checkout = await createCheckout(api, store.key);
    const other = await createCheckout(api, store.key);
    const { id, expires, signature } = checkout.link;
    const asCheckout = new URL(signedLink('http://x', 'test-auth-secret', 'checkout', id, Number(expires)));
    for (const link of [
      { id, expires, signature: `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}` },
      { id, expires: String(Number(expires) + 60), signature },
      { id: other.id, expires, signature },
      { id: 'subchk_test_unknownunknownunknown', expires, signature },
      { id: 'cs_test_abc', expires, signature },
      { id, expires: undefined, signature: undefined },
      { id, expires, signature: asCheckout.searchParams.get('signature')! },
    ]) {
      expect(await loadHostedSubscriptionCheckout(api.services, link)).toEqual({ state: 'invalid' });
      expect(await submitHostedSubscription(api.services, { ...link, form: cardForm() })).toEqual({ kind: 'not_found' });
    }
    expect(await gatewayCharges()).toBe(0);
  });

  it('past expires_at the link is dead: the page says expired and a submit charges nothing', async () => {
    const checkout = await createCheckout(api, store.key, { ...PLAN, expires_at: epoch(T0) + HOUR });
    api.clock.set(new Date(T0.getTime() + HOUR * 1000));
    expect(await loadHostedSubscriptionCheckout(api.services, checkout.link)).toEqual({
      state: 'expired',
      storeName: store.name,
      storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null },
    });
    const before = await gatewayCharges();
    expect(await submitCard(api, checkout)).toEqual({ kind: 'redirect', location: pagePath(checkout) });
    expect(await gatewayCharges()).toBe(before);
    expect((await readCheckout(checkout.id)).status).toBe('expired');
  });
});

describe('hosted subscription checkout: the first charge', () => {
  it('approved (4242): active, one payment, periods from now; redirect to success_url with checkout_id and subscription_id', async () => {
    const checkout = await createCheckout(api, store.key, { ...PLAN, customer_email: 'Ada@Example.com', success_url: 'http://merchant.test/done?plan=pro', metadata: { order: 'A-17' } });
    const outcome = await submitCard(api, checkout, CARDS.approved);
    const read = await readCheckout(checkout.id);
    expect(read).toMatchObject({ status: 'complete', url: null, subscription: expect.stringMatching(/^sub_test_[0-9A-Za-z]{24}$/) });
    expect(outcome).toEqual({ kind: 'redirect', location: `http://merchant.test/done?plan=pro&checkout_id=${checkout.id}&subscription_id=${read.subscription}` });

    const subscription = await readSubscription(read.subscription);
    expect(subscription).toEqual({
      id: read.subscription,
      object: 'subscription',
      status: 'active',
      livemode: false,
      currency: 'eur',
      amount: 990,
      interval: 'month',
      interval_count: 1,
      total_payments: 12,
      recurring_id: expect.stringMatching(/^sim_rec_/),
      card: { brand: 'visa', last4: '4242' },
      customer_id: expect.stringMatching(/^cus_test_/),
      customer_email: 'Ada@Example.com',
      customer_name: null,
      product_id: null,
      price_id: null,
      failure_count: 0,
      current_period_start: epoch(T0),
      current_period_end: epoch(new Date('2026-04-01T12:00:00Z')),
      next_billing_at: epoch(new Date('2026-04-01T12:00:00Z')),
      trial_start: null,
      trial_end: null,
      cancel_at_period_end: false,
      cancel_at: null,
      cancellation: null,
      discount: null,
      pending_change: null,
      credit_balance: 0,
      canceled_at: null,
      cancel_reason: null,
      ended_at: null,
      metadata: { order: 'A-17' },
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      tax_evidence: null,
      evidence_conflict: null,
      created: epoch(T0),
    });
    // The customer is created or matched by email, lower-cased.
    const customer = await api.request('GET', `/api/v1/customers/${subscription.customer_id}`, { key: store.key });
    expect(customer.body.email).toBe('ada@example.com');

    const [charge, ...more] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscription.id));
    expect(more).toEqual([]);
    expect(charge).toMatchObject({ cycle: 1, attempt: 0, status: 'succeeded', amount: 990, idempotencyKey: `subscription:${subscription.id}:1:0`, cardBrand: 'visa', cardLast4: '4242' });

    // subscription.created carries exactly what GET returns.
    const events = await eventsOf(api.services.db, subscription.id);
    expect(events.map((event) => event.type)).toEqual(['subscription.created']);
    expect(events[0]).toMatchObject({ object: 'event', livemode: false, created: epoch(T0), data: { object: subscription } });
    expect((await auditOf(api.services.db, store.id)).some((row) => row.action === 'subscription.create' && (row.details as any).subscription === subscription.id)).toBe(true);
  });

  it('after the store’s test clock moved, the first payment is dated on that clock, like the subscription', async () => {
    const moved = await createStore(api.services, { subscriptions: true });
    const days = 60;
    expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: moved.keys.sk_test, body: { seconds: days * 24 * HOUR } })).status).toBe(200);
    const checkout = await createCheckout(api, moved.keys.sk_test);
    await submitCard(api, checkout, CARDS.approved);
    const read = (await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: moved.keys.sk_test })).body;
    const subscription = (await api.request('GET', `${SUBSCRIPTIONS}/${read.subscription}`, { key: moved.keys.sk_test })).body;
    expect(subscription.created).toBe(epoch(T0) + days * 24 * HOUR);
    const [charge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscription.id));
    expect(epoch(charge!.settledAt!)).toBe(subscription.created);
  });

  it('declined (0002): incomplete, no customer, no contract; the page shows the decline and the link is spent', async () => {
    const checkout = await createCheckout(api, store.key, { ...PLAN, success_url: 'http://merchant.test/done' });
    // Counted against the address as a decline (card testing) by the form's route.
    expect(await submitCard(api, checkout, CARDS.declined)).toEqual({ kind: 'redirect', location: pagePath(checkout), declined: true });
    const read = await readCheckout(checkout.id);
    expect(read.status).toBe('complete');
    const subscription = await readSubscription(read.subscription);
    expect(subscription).toMatchObject({ status: 'incomplete', recurring_id: '', customer_id: null, failure_count: 0 });
    const hosted = await loadHostedSubscriptionCheckout(api.services, checkout.link);
    expect(hosted).toMatchObject({ state: 'used', subscription: { id: subscription.id, status: 'incomplete', failureCode: 'card_declined' } });
    const events = await eventsOf(api.services.db, subscription.id);
    expect(events.map((event) => [event.type, event.data.object.status])).toEqual([['subscription.created', 'incomplete']]);

    // Single-use: the approved card on the same link charges nothing more.
    const before = await gatewayCharges();
    expect(await submitCard(api, checkout, CARDS.approved)).toEqual({ kind: 'redirect', location: pagePath(checkout) });
    expect(await gatewayCharges()).toBe(before);
    expect((await readSubscription(read.subscription)).status).toBe('incomplete');
  });

  it('a second submit of an approved link lands where the first did, without a charge', async () => {
    const checkout = await createCheckout(api, store.key, { ...PLAN, success_url: 'http://merchant.test/done' });
    const first = await submitCard(api, checkout);
    const before = await gatewayCharges();
    expect(await submitCard(api, checkout)).toEqual(first);
    expect(await gatewayCharges()).toBe(before);
  });

  it('five submits at once: one burn, one charge, one subscription', async () => {
    const checkout = await createCheckout(api, store.key);
    const before = await gatewayCharges();
    await Promise.all(Array.from({ length: 5 }, () => submitCard(api, checkout)));
    expect(await gatewayCharges()).toBe(before + 1);
    const read = await readCheckout(checkout.id);
    expect((await readSubscription(read.subscription)).status).toBe('active');
    const charges = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, read.subscription));
    expect(charges).toHaveLength(1);
  });

  it.each([
    ['a Luhn-invalid number', '4242 4242 4242 4241', {}, 'invalid_card_number'],
    ['a past expiry', CARDS.approved, { expiry: '01/26' }, 'expired_card'],
    ['a malformed expiry', CARDS.approved, { expiry: '13/30' }, 'invalid_expiry'],
    ['an ambiguous expiry (130)', CARDS.approved, { expiry: '130' }, 'invalid_expiry'],
    ['a 2-digit CVC', CARDS.approved, { cvc: '12' }, 'invalid_cvc'],
    ['a Luhn-valid number that is no test card', '4111 1111 1111 1111', {}, 'unsupported_test_card'],
  ])('%s → back to the form with its error (its field focused: no fragment); the link is not spent and nothing is charged', async (_name, number, fields, code) => {
    const checkout = await createCheckout(api, store.key);
    const before = await gatewayCharges();
    expect(await submitCard(api, checkout, number, fields)).toEqual({ kind: 'redirect', location: `${pagePath(checkout)}&error=${code}` });
    expect(await gatewayCharges()).toBe(before);
    expect(await checkoutRow(checkout.id)).toMatchObject({ status: 'open', consumedAt: null, subscriptionId: null });
    // The customer corrects the card and subscribes on the same link.
    await submitCard(api, checkout, CARDS.approved);
    expect((await readSubscription((await readCheckout(checkout.id)).subscription)).status).toBe('active');
  });

  it('without success_url the approval lands on a signed receipt page on the service origin', async () => {
    const checkout = await createCheckout(api, store.key);
    const outcome = await submitCard(api, checkout);
    if (outcome.kind !== 'redirect') throw new Error('expected a redirect');
    const url = new URL(outcome.location);
    expect(`${url.origin}${url.pathname}`).toBe(`${api.services.config.publicBaseUrl}/subscribe/${checkout.id}/receipt`);
    const receipt = await loadHostedSubscriptionReceipt(api.services, { id: checkout.id, signature: url.searchParams.get('signature')! });
    expect(receipt).toMatchObject({ view: { planName: 'Pro plan', amount: 990 }, subscription: { status: 'active', cardBrand: 'visa', cardLast4: '4242' } });
    expect(await loadHostedSubscriptionReceipt(api.services, { id: checkout.id, signature: 'forged' })).toBeUndefined();
  });

  it('the receipt link works for 30 days after the payment on the store’s test clock, then answers the invalid-receipt page', async () => {
    const own = await createStore(api.services, { subscriptions: true });
    const checkout = await createCheckout(api, own.keys.sk_test);
    const outcome = await submitCard(api, checkout);
    if (outcome.kind !== 'redirect') throw new Error('expected a redirect');
    const signature = new URL(outcome.location).searchParams.get('signature')!;
    const advance = async (seconds: number) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: own.keys.sk_test, body: { seconds } })).status).toBe(200);
    await advance(30 * 24 * HOUR - 1);
    expect(await loadHostedSubscriptionReceipt(api.services, { id: checkout.id, signature })).toMatchObject({ subscription: { cardLast4: '4242' } });
    await advance(1);
    expect(await loadHostedSubscriptionReceipt(api.services, { id: checkout.id, signature })).toBeUndefined();
  });

  it('price mode: the subscription keeps the product and price, and plan_name is the product name', async () => {
    const product = await createProduct(api, store.key, { name: 'Moth club', amount: 1500, mode: 'recurring', interval: 'year' });
    const checkout = await createCheckout(api, store.key, { price_id: product.price_id, total_payments: 3, customer_email: 'bob@example.com' });
    await submitCard(api, checkout);
    const subscription = await readSubscription((await readCheckout(checkout.id)).subscription);
    expect(subscription).toMatchObject({
      status: 'active',
      amount: 1500,
      interval: 'year',
      product_id: product.id,
      price_id: product.price_id,
      current_period_end: epoch(new Date('2027-03-01T12:00:00Z')),
    });
  });
});

describe('hosted subscription checkout: the crash window', () => {
  it('a gateway timeout leaves the subscription pending with its charge unknown; the reconciler settles it once from the gateway record', async () => {
    const gateway = api.services.gateways.test;
    const charge = gateway.charge.bind(gateway);
    vi.spyOn(gateway, 'charge').mockImplementation(async (request) => {
      await charge(request);
      throw new GatewayTimeoutError();
    });
    const checkout = await createCheckout(api, store.key, { ...PLAN, success_url: 'http://merchant.test/done' });
    expect(await submitCard(api, checkout)).toEqual({ kind: 'redirect', location: pagePath(checkout) });
    vi.restoreAllMocks();
    const id = (await readCheckout(checkout.id)).subscription;
    expect((await readSubscription(id)).status).toBe('pending');
    expect(await loadHostedSubscriptionCheckout(api.services, checkout.link)).toMatchObject({ state: 'used', subscription: { status: 'pending' } });
    const [open] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, id));
    expect(open!.status).toBe('unknown');
    // 5: cancelling while the first payment is unconfirmed is refused, not raced.
    expectError(await api.request('DELETE', `${SUBSCRIPTIONS}/${id}`, { key: store.key }), 409, 'subscription_pending');

    // Young open charges are left to their own request.
    expect(await reconcileFirstCharges(api.services)).toBe(0);
    api.clock.set(new Date(T0.getTime() + 61_000));
    expect(await reconcileFirstCharges(api.services)).toBe(1);
    expect(await reconcileFirstCharges(api.services)).toBe(0);
    const settled = await readSubscription(id);
    expect(settled).toMatchObject({ status: 'active', recurring_id: expect.stringMatching(/^sim_rec_/) });
    expect((await eventsOf(api.services.db, id)).map((event) => event.type)).toEqual(['subscription.created']);
  });

  it('a charge the gateway never received is settled incomplete once the grace period is over, without charging', async () => {
    vi.spyOn(api.services.gateways.test, 'charge').mockRejectedValue(new GatewayTimeoutError());
    const checkout = await createCheckout(api, store.key);
    await submitCard(api, checkout);
    vi.restoreAllMocks();
    const id = (await readCheckout(checkout.id)).subscription;
    const before = await gatewayCharges();
    api.clock.set(new Date(T0.getTime() + 90_000));
    expect(await reconcileFirstCharges(api.services)).toBe(0);
    api.clock.set(new Date(T0.getTime() + 121_000));
    expect(await reconcileFirstCharges(api.services)).toBe(1);
    expect(await gatewayCharges()).toBe(before);
    expect((await readSubscription(id)).status).toBe('incomplete');
  });
});

describe('hosted subscription checkout: live mode', () => {
  const liveCheckout = () => createCheckout(api, store.keys.sk_live, { ...PLAN, success_url: 'https://merchant.example/done' });
  const liveSubscription = async (id: string) =>
    (await api.request('GET', `${SUBSCRIPTIONS}/${(await api.request('GET', `${SUBSCRIPTIONS}/checkout/${id}`, { key: store.keys.sk_live })).body.subscription}`, { key: store.keys.sk_live })).body;

  const CHALLENGE = 'https://hooks.stripe.com/3d_secure_2/hosted?payment_intent=pi_3ds_1';
  const challenged = () => vi.spyOn(api.services.gateways.live, 'charge').mockResolvedValue({ status: 'requires_action', paymentId: 'pi_3ds_1', redirectUrl: CHALLENGE, brand: 'visa', last4: '3220' });
  /** The gateway still waits for the customer at the challenge; withdrawing it succeeds. */
  const challengeUnfinished = (paymentId: string) => {
    vi.spyOn(api.services.gateways.live, 'retrieveCharge').mockResolvedValue({ status: 'requires_action', paymentId, redirectUrl: CHALLENGE, brand: 'visa', last4: '3220' });
    return vi.spyOn(api.services.gateways.live, 'cancelCharge').mockResolvedValue(null);
  };
  const firstCharge = async (subscriptionId: string) => (await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscriptionId)))[0]!;

  it('a card asking for 3-D Secure: the form sends the customer to the challenge, the subscription pending; the return settles it once and lands on success_url', async () => {
    const charge = challenged();
    const checkout = await liveCheckout();
    expect(await submitCard(api, checkout)).toEqual({ kind: 'redirect', location: CHALLENGE });
    expect(charge.mock.calls[0]![0]).toMatchObject({ recurring: true, amount: 990, returnUrl: subscriptionReturnUrl(api.services.config, checkout.id) });
    expect(charge.mock.calls[0]![0].idempotencyKey).toMatch(/^subscription:sub_live_[0-9A-Za-z]{24}:1:0$/);
    const pending = await liveSubscription(checkout.id);
    expect(pending).toMatchObject({ status: 'pending', livemode: true, recurring_id: '' });
    expect(await firstCharge(pending.id)).toMatchObject({ status: 'requires_action', gatewayPaymentId: 'pi_3ds_1', cardLast4: '3220' });
    expect(await eventsOf(api.services.db, pending.id)).toEqual([]);

    const retrieve = vi.spyOn(api.services.gateways.live, 'retrieveCharge').mockResolvedValue({ status: 'succeeded', paymentId: 'pi_3ds_1', brand: 'visa', last4: '3220', recurringId: 'cus_1/pm_1' });
    const subscribed = `https://merchant.example/done?checkout_id=${checkout.id}&subscription_id=${pending.id}`;
    expect(await subscriptionChallengeReturn(api.services, checkout.id)).toBe(subscribed);
    expect(retrieve).toHaveBeenCalledWith(expect.stringMatching(/^subscription:sub_live_/), { paymentId: 'pi_3ds_1', sentAt: expect.any(Date) });
    expect(await liveSubscription(checkout.id)).toMatchObject({ status: 'active', recurring_id: 'cus_1/pm_1' });
    // A reload lands in the same place without asking the gateway again.
    expect(await subscriptionChallengeReturn(api.services, checkout.id)).toBe(subscribed);
    expect(retrieve).toHaveBeenCalledTimes(1);
    expect((await eventsOf(api.services.db, pending.id)).map((event) => event.type)).toEqual(['subscription.created']);
  });

  it("a second submit while the challenge waits (a double click, Back from the bank's page) goes to that challenge again, charging nothing more", async () => {
    const charge = challenged();
    const checkout = await liveCheckout();
    await submitCard(api, checkout);
    const retrieve = vi
      .spyOn(api.services.gateways.live, 'retrieveCharge')
      .mockResolvedValue({ status: 'requires_action', paymentId: 'pi_3ds_1', redirectUrl: CHALLENGE, brand: 'visa', last4: '3220' });
    expect(await submitCard(api, checkout)).toEqual({ kind: 'redirect', location: CHALLENGE });
    expect(charge).toHaveBeenCalledTimes(1);
    expect(retrieve).toHaveBeenCalledWith(expect.stringMatching(/^subscription:sub_live_/), { paymentId: 'pi_3ds_1', sentAt: expect.any(Date) });
    // Once the challenge is passed, a late submit lands on the merchant like the return did.
    retrieve.mockResolvedValue({ status: 'succeeded', paymentId: 'pi_3ds_1', brand: 'visa', last4: '3220', recurringId: 'cus_1/pm_1' });
    const subscribed = await subscriptionChallengeReturn(api.services, checkout.id);
    expect(await submitCard(api, checkout)).toEqual({ kind: 'redirect', location: subscribed });
  });

  it('a failed challenge: incomplete with card_declined; the return lands on the page, which says declined', async () => {
    challenged();
    const checkout = await liveCheckout();
    await submitCard(api, checkout);
    vi.spyOn(api.services.gateways.live, 'retrieveCharge').mockResolvedValue({ status: 'declined', code: 'card_declined', paymentId: 'pi_3ds_1', brand: 'visa', last4: '3220' });
    expect(await subscriptionChallengeReturn(api.services, checkout.id)).toBe(
      signedLink(api.services.config.publicBaseUrl, 'test-auth-secret', 'subscription_checkout', checkout.id, Number(checkout.link.expires)),
    );
    expect(await loadHostedSubscriptionCheckout(api.services, checkout.link)).toMatchObject({ state: 'used', subscription: { status: 'incomplete', failureCode: 'card_declined' } });
  });

  it('back from the challenge before the gateway has the answer: still pending, left to the reconciler', async () => {
    challenged();
    const checkout = await liveCheckout();
    await submitCard(api, checkout);
    vi.spyOn(api.services.gateways.live, 'retrieveCharge').mockRejectedValue(new GatewayTimeoutError());
    expect(await subscriptionChallengeReturn(api.services, checkout.id)).toContain(`/subscribe/${checkout.id}?`);
    expect(await liveSubscription(checkout.id)).toMatchObject({ status: 'pending' });
    // A reload once the gateway answers settles it.
    vi.spyOn(api.services.gateways.live, 'retrieveCharge').mockResolvedValue({ status: 'declined', code: 'card_declined', paymentId: 'pi_3ds_1', brand: 'visa', last4: '3220' });
    await subscriptionChallengeReturn(api.services, checkout.id);
    expect(await liveSubscription(checkout.id)).toMatchObject({ status: 'incomplete' });
  });

  it('a challenge never finished: an hour on, the reconciler withdraws it; incomplete with authentication_required, and the page says the check was not completed', async () => {
    challenged();
    const checkout = await liveCheckout();
    await submitCard(api, checkout);
    const cancel = challengeUnfinished('pi_3ds_1');
    api.clock.set(new Date(T0.getTime() + 61_000));
    expect(await reconcileFirstCharges(api.services)).toBe(0);
    expect(cancel).not.toHaveBeenCalled();
    // Marked asked: a challenge still waiting goes after the charges not asked about yet.
    expect(await firstCharge((await liveSubscription(checkout.id)).id)).toMatchObject({ status: 'requires_action', checkedAt: new Date(T0.getTime() + 61_000) });
    api.clock.set(new Date(T0.getTime() + HOUR * 1000));
    expect(await reconcileFirstCharges(api.services)).toBe(1);
    expect(cancel).toHaveBeenCalledWith('pi_3ds_1');
    expect(await loadHostedSubscriptionCheckout(api.services, checkout.link)).toMatchObject({ state: 'used', subscription: { status: 'incomplete', failureCode: 'authentication_required' } });
    expect(await reconcileFirstCharges(api.services)).toBe(0);
  });

  it('a challenge the customer never saw (the submit timed out): withdrawn at once, incomplete', async () => {
    vi.spyOn(api.services.gateways.live, 'charge').mockRejectedValue(new GatewayTimeoutError());
    const checkout = await liveCheckout();
    await submitCard(api, checkout);
    const cancel = challengeUnfinished('pi_3ds_2');
    api.clock.set(new Date(T0.getTime() + 61_000));
    expect(await reconcileFirstCharges(api.services)).toBe(1);
    expect(cancel).toHaveBeenCalledWith('pi_3ds_2');
    expect(await liveSubscription(checkout.id)).toMatchObject({ status: 'incomplete' });
  });

  it('a charge the gateway refuses before any money moves: incomplete with processing_error', async () => {
    vi.spyOn(api.services.gateways.live, 'charge').mockRejectedValue(new GatewayRejectedError('no credentials'));
    const checkout = await liveCheckout();
    await submitCard(api, checkout);
    expect(await loadHostedSubscriptionCheckout(api.services, checkout.link)).toMatchObject({ state: 'used', subscription: { status: 'incomplete', failureCode: 'processing_error' } });
  });

  it('a suspended store takes no live subscription: the form says so, the link stays unspent', async () => {
    const suspended = await createStore(api.services, { subscriptions: true });
    const checkout = await createCheckout(api, suspended.keys.sk_live, { ...PLAN, success_url: 'https://merchant.example/done' });
    await api.services.db.update(stores).set({ suspended: true }).where(eq(stores.id, suspended.id));
    const charge = vi.spyOn(api.services.gateways.live, 'charge');
    expect(await submitCard(api, checkout)).toEqual({ kind: 'redirect', location: `${pagePath(checkout)}&error=merchant_unavailable#form-error` });
    expect(charge).not.toHaveBeenCalled();
    expect(await checkoutRow(checkout.id)).toMatchObject({ status: 'open', consumedAt: null });
  });
});
