import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditEvents, paymentMethodUpdates, simulatorCharges, simulatorRecurring, simulatorRefunds, subscriptions } from '@/db/schema';
import { verifyLedger } from '@/server/balance/verify';
import { answerCardUpdate, answerCardUpdateReturn } from '@/server/billing/card-update-page';
import { reconcileCardUpdates } from '@/server/billing/card-update';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { cardUpdateOutcome, loadPaymentMethodPage } from '@/server/subscriptions/payment-method';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { createStore } from '../support/factories';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { serveFetchHandler, useTestApi } from '../support/server';
import { CARDS, eventsOf, PLAN, SUBSCRIPTIONS, subscribe } from './support';

/**
 * The update-payment-method link (API) and the page's POST over HTTP against a real database: a
 * new card replaces the one on file only when approved; a `past_due` subscription's owed charge is
 * made once on the new card and moves it as a successful retry; the gateway's silence is settled
 * by the reconciler. The page itself is driven in Chromium by test/browser/payment-method.test.ts.
 */
const ORIGIN = 'https://pay.example.test';
const api = useTestApi({ subscriptionsEnabled: true, publicBaseUrl: ORIGIN });
const DAY = 86_400;
const MONTH1 = periodBoundary(T0, 'month', 1, 1);
const MONTH2 = periodBoundary(T0, 'month', 1, 2);

let forms: { baseUrl: string; close(): Promise<void> };
let key = '';
let storeId = '';
let address = 0;

beforeAll(async () => {
  forms = await serveFetchHandler(async (request) => {
    const [, section, id = '', below] = new URL(request.url).pathname.split('/');
    if (section === 'payment-method' && below === 'update' && request.method === 'POST') return answerCardUpdate(api.services, request, id);
    if (section === 'payment-method' && below === 'return' && request.method === 'GET') return answerCardUpdateReturn(api.services, request, id);
    return new Response('not found', { status: 404 });
  });
});
afterAll(() => forms.close());
beforeEach(async () => {
  // A fresh store per test: each starts its test clock at T0.
  api.clock.set(T0);
  const store = await createStore(api.services, { subscriptions: true });
  key = store.keys.sk_test;
  storeId = store.id;
});
afterEach(() => vi.restoreAllMocks());

const read = async (id: string) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key })).body;
const linkOf = (id: string, withKey = key) => api.request('POST', `${SUBSCRIPTIONS}/${id}/update_payment_method_link`, { key: withKey, body: {} });
const advance = async (seconds: number) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } })).status).toBe(200);
const listed = async (path: string) => (await api.request('GET', path, { key })).body.data as any[];

async function pageLink(id: string) {
  const response = await linkOf(id);
  expect(response.status).toBe(200);
  const url = new URL(response.body.url);
  return { id, path: url.pathname, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! };
}

type PageLink = Awaited<ReturnType<typeof pageLink>>;

/** The form's POST as a browser sends it, from an address of its own; answers the 303 and what the page then shows. */
async function submit(link: PageLink, number: string) {
  const body = new URLSearchParams({ card_number: number, expiry: '12/34', cvc: '123' });
  const response = await fetch(`${forms.baseUrl}${link.path}/update?expires=${link.expires}&signature=${link.signature}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${++address}`, 'user-agent': 'TestBrowser/1' },
    body,
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const location = new URL(response.headers.get('location')!, ORIGIN);
  return { location, outcome: await cardUpdateOutcome(api.services, link.id, location.searchParams.get('outcome') ?? undefined) };
}

/** The simulator's charges made on one subscription's update page (card checks and owed charges). */
const pageCharges = async (subscriptionId: string) =>
  (
    await api.services.db
      .select({ charge: simulatorCharges })
      .from(simulatorCharges)
      .innerJoin(paymentMethodUpdates, eq(paymentMethodUpdates.idempotencyKey, simulatorCharges.idempotencyKey))
      .where(eq(paymentMethodUpdates.subscriptionId, subscriptionId))
  ).map((row) => row.charge);
const contract = async (recurringId: string) => (await api.services.db.select().from(simulatorRecurring).where(eq(simulatorRecurring.id, recurringId)))[0]!;

/** A subscription whose first renewal was declined (0341 declines every recurring charge): `past_due`, retried from +1 day. */
async function pastDue() {
  const { subscription } = await subscribe(api, key, CARDS.declinesRecurring);
  await advance(epoch(MONTH1) - epoch(T0));
  const due = await read(subscription.id);
  expect(due).toMatchObject({ status: 'past_due', failure_count: 1, next_billing_at: epoch(MONTH1) + DAY });
  return due;
}

describe('POST /api/v1/subscriptions/{id}/update_payment_method_link', () => {
  it('200 { url, expires_at }: the signed page of this subscription for 7 days, for active and past_due', async () => {
    const { subscription } = await subscribe(api, key);
    api.clock.advance(60);
    const link = await linkOf(subscription.id);
    expect(link.status).toBe(200);
    const expires = epoch(T0) + 60 + 7 * DAY;
    expect(link.body).toEqual({ url: expect.stringMatching(new RegExp(`^${ORIGIN}/payment-method/${subscription.id}\\?expires=${expires}&signature=[\\w-]+$`)), expires_at: expires });
    api.clock.set(T0);
    const due = await pastDue();
    expect((await linkOf(due.id)).status).toBe(200);
  });

  it('409 subscription_not_active for canceled, expired and incomplete subscriptions', async () => {
    const { subscription: canceled } = await subscribe(api, key);
    expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${canceled.id}`, { key })).status).toBe(200);
    const { subscription: incomplete } = await subscribe(api, key, CARDS.declined);
    expect(incomplete.status).toBe('incomplete');
    const { subscription: once } = await subscribe(api, key, CARDS.approved, { ...PLAN, total_payments: 1 });
    await advance(epoch(MONTH1) - epoch(T0));
    expect((await read(once.id)).status).toBe('expired');
    for (const id of [canceled.id, incomplete.id, once.id]) expectError(await linkOf(id), 409, 'subscription_not_active');
  });

  it('another store’s, the live environment’s and an unknown id answer the same 404; no key 401; a store without subscriptions 403', async () => {
    const { subscription } = await subscribe(api, key);
    const other = await createStore(api.services, { subscriptions: true });
    const own = await createStore(api.services, { subscriptions: true });
    const path = `${SUBSCRIPTIONS}/${subscription.id}/update_payment_method_link`;
    expectIdenticalMissing(
      await Promise.all([
        rawApiRequest(api, 'POST', path, other.keys.sk_test, {}),
        rawApiRequest(api, 'POST', path, own.keys.sk_live, {}),
        rawApiRequest(api, 'POST', `${SUBSCRIPTIONS}/sub_test_unknownunknownunknown1/update_payment_method_link`, key, {}),
      ]),
      'id',
    );
    expectError(await api.request('POST', path, { body: {} }), 401, 'missing_api_key');
    const plain = await createStore(api.services);
    expectError(await linkOf(subscription.id, plain.keys.sk_test), 403, 'capability_disabled');
  });
});

describe('the page’s link', () => {
  it('opens with the plan, the next charge and the card; a tampered link or one past 7 days is the 404', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declinesRecurring);
    const link = await pageLink(subscription.id);
    const page = await loadPaymentMethodPage(api.services, link);
    expect(page).toEqual({
      state: 'open',
      view: expect.objectContaining({
        id: subscription.id,
        planName: 'Pro plan',
        ended: false,
        nextCharge: { at: epoch(MONTH1), amount: 990 },
        card: { brand: 'visa', last4: '0341' },
        owed: null,
      }),
    });
    expect(await loadPaymentMethodPage(api.services, { ...link, signature: `${link.signature.slice(0, -1)}${link.signature.endsWith('A') ? 'B' : 'A'}` })).toEqual({ state: 'invalid' });
    expect(await loadPaymentMethodPage(api.services, { ...link, id: (await subscribe(api, key)).subscription.id })).toEqual({ state: 'invalid' });
    const tampered = await fetch(`${forms.baseUrl}${link.path}/update?expires=${Number(link.expires) + 1}&signature=${link.signature}`, {
      method: 'POST',
      body: new URLSearchParams({}),
      redirect: 'manual',
    });
    expect(tampered.status).toBe(404);
    api.clock.advance(7 * DAY);
    expect(await loadPaymentMethodPage(api.services, link)).toEqual({ state: 'invalid' });
  });
});

describe('an active subscription: the card is checked, no money moves', () => {
  it('4242 replaces card and recurring_id, cancels the old contract, and sends one subscription.updated', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declinesRecurring);
    const link = await pageLink(subscription.id);
    const eventsBefore = (await eventsOf(api.services.db, subscription.id)).length;

    const { location, outcome } = await submit(link, CARDS.approved);
    expect(location.pathname).toBe(link.path);
    expect(outcome).toEqual({ status: 'succeeded', failureCode: null, amount: 0, adopted: true });

    const after = await read(subscription.id);
    expect(after).toEqual({ ...subscription, card: { brand: 'visa', last4: '4242' }, recurring_id: expect.stringMatching(/^sim_rec_/) });
    expect(after.recurring_id).not.toBe(subscription.recurring_id);
    expect((await contract(subscription.recurring_id)).canceledAt).not.toBeNull();
    expect((await contract(after.recurring_id)).canceledAt).toBeNull();

    const events = (await eventsOf(api.services.db, subscription.id)).slice(eventsBefore);
    expect(events.map((event) => event.type)).toEqual(['subscription.updated']);
    expect(events[0]!.data.previous_attributes).toEqual({ card: { brand: 'visa', last4: '0341' }, recurring_id: subscription.recurring_id });
    // A card check: no order, no invoice, nothing charged.
    expect(await listed(`/api/v1/orders?subscription_id=${subscription.id}`)).toHaveLength(1);
    expect((await pageCharges(subscription.id)).map((charge) => charge.amount)).toEqual([0]);
    const [audit] = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, 'subscription.payment_method_update')));
    expect(audit).toMatchObject({ keyHint: 'customer', method: 'POST', path: `${link.path}/update`, details: { subscription: subscription.id, amount: 0 } });
  });

  it('a declined card (0002): the page’s alert, nothing changed, no event; a field error names its field', async () => {
    const { subscription } = await subscribe(api, key);
    const link = await pageLink(subscription.id);
    const eventsBefore = (await eventsOf(api.services.db, subscription.id)).length;
    const { outcome } = await submit(link, CARDS.declined);
    expect(outcome).toEqual({ status: 'declined', failureCode: 'card_declined', amount: 0, adopted: false });
    expect(await read(subscription.id)).toEqual(subscription);
    expect((await eventsOf(api.services.db, subscription.id)).length).toBe(eventsBefore);
    expect((await contract(subscription.recurring_id)).canceledAt).toBeNull();

    const mistyped = await submit(link, '4242 4242 4242 4241');
    expect(mistyped.location.searchParams.get('error')).toBe('invalid_card_number');
    expect(mistyped.outcome).toBeUndefined();
    const unknownCard = await submit(link, '5555 5555 5555 4444');
    expect(unknownCard.location.searchParams.get('error')).toBe('unsupported_test_card');
  });
});

describe('a trialing subscription: the card is checked, no money moves', () => {
  it('4242 replaces the 0341 card, the trial goes on, and the first charge at its end is approved on the new card', async () => {
    const { subscription } = await subscribe(api, key, CARDS.declinesRecurring, { ...PLAN, trial_days: 14 });
    expect(subscription.status).toBe('trialing');
    const link = await pageLink(subscription.id);
    const { outcome } = await submit(link, CARDS.approved);
    expect(outcome).toEqual({ status: 'succeeded', failureCode: null, amount: 0, adopted: true });
    const after = await read(subscription.id);
    expect(after).toEqual({ ...subscription, card: { brand: 'visa', last4: '4242' }, recurring_id: expect.stringMatching(/^sim_rec_/) });
    expect((await contract(subscription.recurring_id)).canceledAt).not.toBeNull();
    await advance(14 * DAY);
    expect(await read(subscription.id)).toMatchObject({ status: 'active', failure_count: 0, current_period_start: epoch(T0) + 14 * DAY });
  });
});

describe('a past_due subscription: the owed charge is made at once on the new card', () => {
  it('approved: charged once, active again with its period moved, documents sent; the old retries never run; the next renewal charges the new card', async () => {
    const due = await pastDue();
    const link = await pageLink(due.id);
    expect(await loadPaymentMethodPage(api.services, link)).toMatchObject({ state: 'open', view: { owed: 990, ended: false } });
    const eventsBefore = (await eventsOf(api.services.db, due.id)).length;
    api.clock.advance(3600);

    const { outcome } = await submit(link, CARDS.approved);
    expect(outcome).toEqual({ status: 'succeeded', failureCode: null, amount: 990, adopted: true });
    const after = await read(due.id);
    expect(after).toEqual({
      ...due,
      status: 'active',
      failure_count: 0,
      current_period_start: epoch(MONTH1),
      current_period_end: epoch(MONTH2),
      next_billing_at: epoch(MONTH2),
      card: { brand: 'visa', last4: '4242' },
      recurring_id: expect.stringMatching(/^sim_rec_/),
    });
    expect((await pageCharges(due.id)).map((charge) => charge.amount)).toEqual([990]);
    expect((await contract(due.recurring_id)).canceledAt).not.toBeNull();

    const events = (await eventsOf(api.services.db, due.id)).slice(eventsBefore);
    expect(events.map((event) => event.type)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
    expect(events[1]!.data.previous_attributes).toEqual({
      status: 'past_due',
      failure_count: 1,
      current_period_start: epoch(T0),
      current_period_end: epoch(MONTH1),
      next_billing_at: epoch(MONTH1) + DAY,
      card: { brand: 'visa', last4: '0341' },
      recurring_id: due.recurring_id,
    });
    const orders = await listed(`/api/v1/orders?subscription_id=${due.id}&billing_reason=subscription_cycle`);
    expect(orders).toEqual([expect.objectContaining({ status: 'paid', amount_total: 990, paid_at: epoch(MONTH1) + 3600, invoice_id: expect.stringMatching(/^in_test_/) })]);
    expect((await listed(`/api/v1/events?object_id=${orders[0].invoice_id}`)).map((event) => event.type)).toEqual(['invoice.issued']);
    const receipts = (await listed('/api/v1/test_helpers/emails?template=receipt')).filter((mail) => mail.related.invoice_id === orders[0].invoice_id);
    expect(receipts).toEqual([expect.objectContaining({ template: 'receipt', to: 'ada@example.com' })]);
    expect(await verifyLedger(api.services.db, api.clock.now(), storeId)).toMatchObject({ ok: true });

    // The old retry dates pass: nothing more is charged for that cycle.
    const recurringBefore = await api.services.db.select().from(simulatorCharges).where(eq(simulatorCharges.kind, 'recurring'));
    await advance(8 * DAY);
    expect(await api.services.db.select().from(simulatorCharges).where(eq(simulatorCharges.kind, 'recurring'))).toHaveLength(recurringBefore.length);
    expect(await read(due.id)).toEqual(after);
    // The next renewal is charged to the new card's contract.
    await advance(epoch(MONTH2) - epoch(MONTH1) - 8 * DAY - 3600);
    const renewed = await read(due.id);
    expect(renewed).toMatchObject({ status: 'active', current_period_start: epoch(MONTH2) });
    const onNewCard = await api.services.db.select().from(simulatorCharges).where(eq(simulatorCharges.recurringId, after.recurring_id));
    expect(onNewCard.map(({ kind, status, amount }) => ({ kind, status, amount }))).toEqual([
      { kind: 'charge', status: 'succeeded', amount: 990 },
      { kind: 'recurring', status: 'succeeded', amount: 990 },
    ]);
  });

  it('the credit balance: the owed charge uses it, its invoice shows it, and the balance goes down by it', async () => {
    const due = await pastDue();
    await api.services.db.update(subscriptions).set({ creditBalance: 300 }).where(eq(subscriptions.id, due.id));
    const link = await pageLink(due.id);
    const { outcome } = await submit(link, CARDS.approved);
    expect(outcome).toMatchObject({ status: 'succeeded', amount: 690 });
    expect(await read(due.id)).toMatchObject({ status: 'active', credit_balance: 0 });
    expect((await pageCharges(due.id)).map((charge) => charge.amount)).toEqual([690]);
    const [order] = await listed(`/api/v1/orders?subscription_id=${due.id}&billing_reason=subscription_cycle`);
    const [invoice] = await listed(`/api/v1/invoices?order_id=${order.id}`);
    expect(invoice.lines.map((line: any) => [line.description, line.amount_total])).toEqual([
      ['Pro plan', 990],
      ['Credit from plan change', -300],
    ]);
    expect(await verifyLedger(api.services.db, api.clock.now(), storeId)).toMatchObject({ ok: true });
  });

  it('declined: still past_due with its retries, nothing charged, no event', async () => {
    const due = await pastDue();
    const link = await pageLink(due.id);
    const eventsBefore = (await eventsOf(api.services.db, due.id)).length;
    expect((await submit(link, CARDS.declined)).outcome).toMatchObject({ status: 'declined', amount: 990 });
    expect(await read(due.id)).toEqual(due);
    expect((await eventsOf(api.services.db, due.id)).length).toBe(eventsBefore);
    expect(await listed(`/api/v1/orders?subscription_id=${due.id}&billing_reason=subscription_cycle`)).toEqual([]);
  });

  it('two submits at once charge once: the other is refused while the first is open, or checks the card of an active subscription', async () => {
    const due = await pastDue();
    const link = await pageLink(due.id);
    const answers = await Promise.all([submit(link, CARDS.approved), submit(link, CARDS.approved), submit(link, CARDS.approved)]);
    const owed = (await pageCharges(due.id)).filter((charge) => charge.amount > 0);
    expect(owed).toHaveLength(1);
    expect(await listed(`/api/v1/orders?subscription_id=${due.id}&billing_reason=subscription_cycle`)).toHaveLength(1);
    expect(answers.filter((answer) => answer.outcome?.amount === 990)).toHaveLength(1);
    for (const answer of answers) {
      if (answer.outcome === undefined) expect(answer.location.searchParams.get('error')).toBe('session_payment_in_progress');
      else expect(answer.outcome.status).toBe('succeeded');
    }
    expect(await read(due.id)).toMatchObject({ status: 'active', failure_count: 0 });
  });

  it('the gateway’s silence: the update waits `unknown`, billing leaves the subscription alone, the reconciler settles it once', async () => {
    const due = await pastDue();
    const link = await pageLink(due.id);
    const gateway = api.services.gateways.test;
    const charge = gateway.charge.bind(gateway);
    vi.spyOn(gateway, 'charge').mockImplementationOnce(async (request) => {
      await charge(request);
      throw new GatewayTimeoutError();
    });
    const { outcome } = await submit(link, CARDS.approved);
    expect(outcome).toMatchObject({ status: 'unknown', amount: 990 });
    expect(await read(due.id)).toEqual(due);
    // The retry falls due while the update is open: billing does not charge the old card.
    await advance(DAY);
    expect(await read(due.id)).toEqual(due);
    expect(await linkedSubmitRefused(link)).toBe('session_payment_in_progress');

    api.clock.advance(120);
    expect(await reconcileCardUpdates(api.services)).toBe(1);
    expect(await reconcileCardUpdates(api.services, { staleAfterSeconds: 0 })).toBe(0);
    expect(await read(due.id)).toMatchObject({ status: 'active', failure_count: 0, card: { brand: 'visa', last4: '4242' } });
    expect((await pageCharges(due.id)).filter((row) => row.amount > 0)).toHaveLength(1);
    expect(await listed(`/api/v1/orders?subscription_id=${due.id}&billing_reason=subscription_cycle`)).toHaveLength(1);
  });

  it('canceled while the card was at the gateway: the money is paid back in full and the new contract cancelled', async () => {
    const due = await pastDue();
    const link = await pageLink(due.id);
    const gateway = api.services.gateways.test;
    const charge = gateway.charge.bind(gateway);
    let taken = '';
    vi.spyOn(gateway, 'charge').mockImplementationOnce(async (request) => {
      const result = await charge(request);
      taken = result.status === 'succeeded' ? (result.recurringId ?? '') : '';
      expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${due.id}`, { key })).status).toBe(200);
      return result;
    });
    const { outcome } = await submit(link, CARDS.approved);
    expect(outcome).toMatchObject({ status: 'succeeded', amount: 990, adopted: false });
    expect(await read(due.id)).toMatchObject({ status: 'canceled', card: { last4: '0341' }, recurring_id: due.recurring_id });
    const [order] = await listed(`/api/v1/orders?subscription_id=${due.id}&billing_reason=subscription_cycle`);
    expect(order).toMatchObject({ status: 'refunded', amount_total: 990, amount_refunded: 990 });
    const [paid] = (await pageCharges(due.id)).filter((row) => row.amount > 0);
    expect(await api.services.db.select({ amount: simulatorRefunds.amount }).from(simulatorRefunds).where(eq(simulatorRefunds.paymentId, paid!.paymentId))).toEqual([{ amount: 990 }]);
    expect((await contract(taken)).canceledAt).not.toBeNull();
    expect(await verifyLedger(api.services.db, api.clock.now(), storeId)).toMatchObject({ ok: true });
  });
});

/** A submit while an update is open: the error code it comes back with. */
async function linkedSubmitRefused(link: PageLink) {
  const { location, outcome } = await submit(link, CARDS.approved);
  expect(outcome).toBeUndefined();
  return location.searchParams.get('error');
}

it('an ended subscription takes no card: the POST goes back to the page, nothing is sent to the gateway', async () => {
  const { subscription } = await subscribe(api, key);
  const link = await pageLink(subscription.id);
  expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key })).status).toBe(200);
  expect(await loadPaymentMethodPage(api.services, link)).toMatchObject({ state: 'open', view: { ended: true, nextCharge: null } });
  const { location, outcome } = await submit(link, CARDS.approved);
  expect(outcome).toBeUndefined();
  expect(location.searchParams.get('error')).toBeNull();
  expect(await api.services.db.select({ count: sql<number>`count(*)::int` }).from(paymentMethodUpdates).where(eq(paymentMethodUpdates.subscriptionId, subscription.id))).toEqual([{ count: 0 }]);
});
