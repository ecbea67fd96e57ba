import { eq } from 'drizzle-orm';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentMethodUpdates, subscriptionCharges } from '@/db/schema';
import { cardUpdateReturnUrl, reconcileCardUpdates } from '@/server/billing/card-update';
import { subscriptionChallengeReturn } from '@/server/subscriptions/hosted';
import { subscriptionReturnUrl } from '@/server/subscriptions/first-charge';
import { cardUpdateOutcome } from '@/server/subscriptions/payment-method';
import { createStripeReplay, STRIPE_BASE_URL, STRIPE_KEY } from '../gateway/stripe-api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { CARDS, createCheckout, eventsOf, PLAN, SUBSCRIPTIONS, serveCardUpdateRoutes, submitCard, subscribe } from './support';

/**
 * Live mode's card checks against the msw replay of Stripe (test/gateway/stripe-api.ts), which
 * refuses a PaymentIntent below 50 cents as Stripe does: a subscription's new card on the
 * update page and a trial's start check the card with a SetupIntent. A 3-D Secure challenge sends
 * the customer to the bank, and the return finishes the update (or the trial's start) from the
 * SetupIntent's outcome. test/subscriptions/payment-method.test.ts covers the page in test mode.
 */
const ORIGIN = 'https://pay.example.test';
const api = useTestApi({ subscriptionsEnabled: true, publicBaseUrl: ORIGIN, gateway: { secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 15_000 } });
const store = useTestStore(api, { subscriptions: true, liveApi: true });
const stripe = createStripeReplay({ now: () => api.clock.now() });
const server = setupServer(...stripe.handlers);
const CHALLENGE = 'https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&setup_intent=seti_3ds';
const MERCHANT = 'https://merchant.example/done';

let forms: { baseUrl: string; close(): Promise<void> };
let address = 0;

beforeAll(async () => {
  forms = await serveCardUpdateRoutes(api);
  // Anything but Stripe, the API and the page's routes fails the test: card data goes nowhere else.
  server.listen({
    onUnhandledRequest: (request, print) => {
      if (!request.url.startsWith(api.baseUrl) && !request.url.startsWith(forms.baseUrl)) print.error();
    },
  });
});
afterEach(() => {
  stripe.calls.length = 0;
});
afterAll(async () => {
  server.close();
  await forms.close();
});

const key = () => store.keys.sk_live;
const read = async (id: string) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key: key() })).body;
const typesOf = async (id: string) => (await eventsOf(api.services.db, id)).map((event) => event.type);
const made = () => stripe.calls.filter((call) => call.method === 'POST').map((call) => call.path);
const updateOf = async (subscriptionId: string) => (await api.services.db.select().from(paymentMethodUpdates).where(eq(paymentMethodUpdates.subscriptionId, subscriptionId)))[0]!;

async function pageLink(id: string) {
  const response = await api.request('POST', `${SUBSCRIPTIONS}/${id}/update_payment_method_link`, { key: key(), body: {} });
  expect(response.status).toBe(200);
  const url = new URL(response.body.url);
  return { id, path: url.pathname, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! };
}

/** The update form's POST as a browser sends it; answers where the 303 sends the browser. */
async function submit(link: Awaited<ReturnType<typeof pageLink>>, number: string): Promise<URL> {
  const response = await fetch(`${forms.baseUrl}${link.path}/update?expires=${link.expires}&signature=${link.signature}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${++address}`, 'user-agent': 'TestBrowser/1' },
    body: new URLSearchParams({ card_number: number, expiry: '12/34', cvc: '123' }),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  return new URL(response.headers.get('location')!, ORIGIN);
}

/** The bank sends the customer back to the return_url the service gave Stripe; answers the page's outcome. */
async function returnFromBank(subscriptionId: string, returnUrl: string) {
  const url = new URL(returnUrl);
  const response = await fetch(`${forms.baseUrl}${url.pathname}${url.search}`, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location')!, ORIGIN);
  return { location, outcome: await cardUpdateOutcome(api.services, subscriptionId, location.searchParams.get('outcome') ?? undefined) };
}

/** A live subscription whose first payment (a PaymentIntent of 990) was approved: active, on the 4242 card. */
async function liveSubscription() {
  const { subscription } = await subscribe(api, key(), CARDS.approved, { ...PLAN, success_url: MERCHANT });
  expect(subscription).toMatchObject({ status: 'active', livemode: true, card: { brand: 'visa', last4: '4242' }, recurring_id: expect.stringMatching(/^cus_\d+\/pm_\d+$/) });
  stripe.calls.length = 0;
  return subscription;
}

describe('a live subscription’s new card on the update page: a SetupIntent, with 3-D Secure', () => {
  it('the POST answers the challenge; back from it, the card and recurring_id are replaced, the old card detached, one subscription.updated', async () => {
    const subscription = await liveSubscription();
    const link = await pageLink(subscription.id);
    const eventsBefore = await typesOf(subscription.id);

    expect((await submit(link, '4000 0000 0000 3220')).href).toBe(CHALLENGE);
    expect(made()).toEqual(['/v1/customers', '/v1/setup_intents']);
    const update = await updateOf(subscription.id);
    expect(update).toMatchObject({ status: 'requires_action', amount: 0, gatewayPaymentId: expect.stringMatching(/^seti_/), cardBrand: 'visa', cardLast4: '3220' });
    const check = stripe.calls[1]!;
    const returnUrl = cardUpdateReturnUrl(api.services.config, subscription.id, { expires: link.expires, signature: link.signature }, update.id, 'en');
    expect(check.headers['idempotency-key']).toBe(`payment_method_update:${update.id}`);
    expect(Object.fromEntries(check.form)).toMatchObject({ confirm: 'true', usage: 'off_session', return_url: returnUrl, 'metadata[idempotency_key]': `payment_method_update:${update.id}` });
    expect(check.form.has('amount')).toBe(false);
    // While the customer is at the bank, nothing has changed.
    expect(await read(subscription.id)).toEqual(subscription);

    stripe.completeChallenge(update.gatewayPaymentId!, 'succeeded');
    stripe.calls.length = 0;
    const { location, outcome } = await returnFromBank(subscription.id, returnUrl);
    expect(location.pathname).toBe(link.path);
    expect(outcome).toEqual({ status: 'succeeded', failureCode: null, amount: 0, adopted: true });
    const customer = check.form.get('customer');
    const recurringId = `${customer}/${stripe.setupIntents.get(update.gatewayPaymentId!)!.payment_method}`;
    expect(await read(subscription.id)).toEqual({ ...subscription, card: { brand: 'visa', last4: '3220' }, recurring_id: recurringId });
    expect(stripe.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      `GET /v1/setup_intents/${update.gatewayPaymentId}`,
      `POST /v1/payment_methods/${subscription.recurring_id.split('/')[1]}/detach`,
    ]);
    const events = (await eventsOf(api.services.db, subscription.id)).slice(eventsBefore.length);
    expect(events.map((event) => event.type)).toEqual(['subscription.updated']);
    expect(events[0]!.data.previous_attributes).toEqual({ card: { brand: 'visa', last4: '4242' }, recurring_id: subscription.recurring_id });

    // A reload of the return lands on the same outcome without asking Stripe again.
    stripe.calls.length = 0;
    expect((await returnFromBank(subscription.id, returnUrl)).outcome).toEqual(outcome);
    expect(stripe.calls).toEqual([]);
  });

  it('a failed challenge changes nothing: declined card_declined, the old card and contract kept, no event', async () => {
    const subscription = await liveSubscription();
    const link = await pageLink(subscription.id);
    const eventsBefore = await typesOf(subscription.id);
    expect((await submit(link, '4000 0000 0000 3220')).href).toBe(CHALLENGE);
    const update = await updateOf(subscription.id);

    stripe.completeChallenge(update.gatewayPaymentId!, 'failed');
    const { outcome } = await returnFromBank(subscription.id, cardUpdateReturnUrl(api.services.config, subscription.id, { expires: link.expires, signature: link.signature }, update.id, 'en'));
    expect(outcome).toEqual({ status: 'declined', failureCode: 'card_declined', amount: 0, adopted: false });
    expect(await updateOf(subscription.id)).toMatchObject({ status: 'declined', failureCode: 'card_declined', recurringId: null, gatewayPaymentId: update.gatewayPaymentId });
    expect(await read(subscription.id)).toEqual(subscription);
    expect(await typesOf(subscription.id)).toEqual(eventsBefore);
    expect(made().filter((path) => path.endsWith('/detach'))).toEqual([]);
    expect(made().filter((path) => path.startsWith('/v1/payment_intents'))).toEqual([]);
  });

  it('a challenge nobody finishes: an hour on, the reconciler withdraws the SetupIntent; declined authentication_required, nothing changed', async () => {
    const subscription = await liveSubscription();
    const link = await pageLink(subscription.id);
    expect((await submit(link, '4000 0000 0000 3220')).href).toBe(CHALLENGE);
    const update = await updateOf(subscription.id);
    api.clock.advance(3599);
    expect(await reconcileCardUpdates(api.services)).toBe(0);
    api.clock.advance(1);
    stripe.calls.length = 0;
    expect(await reconcileCardUpdates(api.services)).toBe(1);
    expect(stripe.calls.map((call) => `${call.method} ${call.path}`)).toEqual([`GET /v1/setup_intents/${update.gatewayPaymentId}`, `POST /v1/setup_intents/${update.gatewayPaymentId}/cancel`]);
    expect(stripe.setupIntents.get(update.gatewayPaymentId!)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect(await updateOf(subscription.id)).toMatchObject({ status: 'declined', failureCode: 'authentication_required' });
    expect(await read(subscription.id)).toEqual(subscription);
  });
});

describe('a live trial’s start: the card checked with a SetupIntent, nothing charged', () => {
  let mailbox = 0;
  // An address of its own for each: one trial per customer and plan.
  const trial = () => createCheckout(api, key(), { ...PLAN, trial_days: 14, customer_email: `trial-${++mailbox}@example.com`, success_url: MERCHANT });
  const subscriptionOf = async (checkoutId: string) => read((await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkoutId}`, { key: key() })).body.subscription);

  it('approved: trialing on the SetupIntent’s contract; no PaymentIntent, no order', async () => {
    const checkout = await trial();
    stripe.calls.length = 0;
    const outcome = await submitCard(api, checkout, CARDS.approved);
    const subscription = await subscriptionOf(checkout.id);
    expect(outcome).toEqual({ kind: 'redirect', location: `${MERCHANT}?checkout_id=${checkout.id}&subscription_id=${subscription.id}` });
    expect(made()).toEqual(['/v1/customers', '/v1/setup_intents']);
    const check = stripe.calls[1]!;
    expect(check.headers['idempotency-key']).toBe(`subscription:${subscription.id}:0:0`);
    expect(Object.fromEntries(check.form)).toMatchObject({
      description: `${store.name}: Pro plan (card check)`,
      usage: 'off_session',
      return_url: subscriptionReturnUrl(api.services.config, checkout.id),
      'metadata[idempotency_key]': `subscription:${subscription.id}:0:0`,
    });
    const [charge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscription.id));
    expect(charge).toMatchObject({ cycle: 0, amount: 0, status: 'succeeded', gatewayPaymentId: expect.stringMatching(/^seti_/) });
    const paymentMethod = stripe.setupIntents.get(charge!.gatewayPaymentId!)!.payment_method;
    expect(subscription).toMatchObject({ status: 'trialing', card: { brand: 'visa', last4: '4242' }, recurring_id: `${check.form.get('customer')}/${paymentMethod}` });
    expect((await api.request('GET', `/api/v1/orders?subscription_id=${subscription.id}`, { key: key() })).body.data).toEqual([]);
  });

  it('3-D Secure: the customer goes to the challenge with the subscription pending; the return starts the trial', async () => {
    const checkout = await trial();
    expect(await submitCard(api, checkout, '4000 0000 0000 3220')).toEqual({ kind: 'redirect', location: CHALLENGE });
    const pending = await subscriptionOf(checkout.id);
    expect(pending).toMatchObject({ status: 'pending', recurring_id: '' });
    const [charge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, pending.id));
    expect(charge).toMatchObject({ cycle: 0, status: 'requires_action', gatewayPaymentId: expect.stringMatching(/^seti_/) });

    stripe.completeChallenge(charge!.gatewayPaymentId!, 'succeeded');
    expect(await subscriptionChallengeReturn(api.services, checkout.id)).toBe(`${MERCHANT}?checkout_id=${checkout.id}&subscription_id=${pending.id}`);
    expect(await read(pending.id)).toMatchObject({ status: 'trialing', card: { brand: 'visa', last4: '3220' }, recurring_id: expect.stringMatching(/^cus_\d+\/pm_\d+$/) });
    expect(await typesOf(pending.id)).toEqual(['subscription.created']);
    expect(made().filter((path) => path.startsWith('/v1/payment_intents'))).toEqual([]);
  });
});
