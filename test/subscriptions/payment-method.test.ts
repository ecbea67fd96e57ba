import { and, eq, sql } from 'drizzle-orm';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PaymentMethodScreen } from '@/app/payment-method/[id]/parts';
import { auditEvents, paymentMethodUpdates, simulatorCharges, simulatorRecurring, simulatorRefunds, subscriptions } from '@/db/schema';
import { verifyLedger } from '@/server/balance/verify';
import { reconcileCardUpdates } from '@/server/billing/card-update';
import { ApiError } from '@/server/errors';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { hostedLinkOf } from '@/server/kit/hosted-page/request';
import { requestedPageLanguage } from '@/server/kit/language';
import { cardUpdateOutcome, loadPaymentMethodPage } from '@/server/subscriptions/payment-method';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { createCoupon } from '../support/coupons';
import { createStore } from '../support/factories';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { CARDS, eventsOf, PLAN, SUBSCRIPTIONS, serveCardUpdateRoutes, subscribe } from './support';

/**
 * The update-payment-method link (API) and the page's POST over HTTP against a real database: a
 * new card replaces the one on file only when approved; a `past_due` subscription's owed charge is
 * made once on the new card and moves it as a successful retry; the gateway's silence is settled
 * by the reconciler; what the page shows, in English or German, rendered as its route renders it.
 * The page itself is driven in Chromium by test/browser/payment-method.test.ts.
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
  forms = await serveCardUpdateRoutes(api);
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

/**
 * The form's POST as a browser sends it, from an address of its own (`query` added to the link, as
 * the page's form adds `lang`); answers the 303 and what the page then shows.
 */
async function submit(link: PageLink, number: string, options: { query?: string; acceptLanguage?: string } = {}) {
  const body = new URLSearchParams({ card_number: number, expiry: '12/34', cvc: '123' });
  const response = await fetch(`${forms.baseUrl}${link.path}/update?expires=${link.expires}&signature=${link.signature}${options.query ?? ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': `198.51.100.${++address}`,
      'user-agent': 'TestBrowser/1',
      ...(options.acceptLanguage ? { 'accept-language': options.acceptLanguage } : {}),
    },
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

/**
 * The page as its route renders a GET of `link` with `query` added (`&lang=de`, or what the form's
 * POST came back with) and the browser's Accept-Language: the link checked from the URL as the
 * proxy checks it, the page in the language the proxy picks.
 */
async function renderPage(link: PageLink, query = '', acceptLanguage?: string) {
  const request = new Request(`${ORIGIN}${link.path}?expires=${link.expires}&signature=${link.signature}${query}`, { headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
  const page = await loadPaymentMethodPage(api.services, hostedLinkOf(request, link.id));
  if (page.state !== 'open') throw new Error(`the link of ${link.id} did not open with ${query}`);
  const shown = new URL(request.url).searchParams;
  const outcome = await cardUpdateOutcome(api.services, link.id, shown.get('outcome') ?? undefined);
  return renderToStaticMarkup(
    createElement(PaymentMethodScreen, {
      view: page.view,
      outcome,
      error: shown.get('error') ?? undefined,
      link: { expires: link.expires, signature: link.signature },
      operator: api.services.config.operator,
      language: requestedPageLanguage(request),
    }),
  );
}

/** What a POST's 303 adds to the page's link (`outcome` or `error`, and `lang`): the query of the page it leads to. */
const addedBy = (location: URL) => location.search.replace(/^\?expires=\d+&signature=[\w-]+/, '');

const textOf = (html: string) => html.replace(/<[^>]+>/g, '').replaceAll('&amp;', '&');

/** What a rendered page shows: its heading, facts (`dt` → `dd`), card field labels, button, alert, form target and the footer's contract links. */
function shownOn(html: string) {
  const alert = /<div role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1];
  const contractLinks = /<p class="co-contract-links">(.*?)<\/p>/.exec(html)?.[1] ?? '';
  return {
    // The form's heading follows the store's name (its label).
    heading: textOf(/<h1[^>]*>(?:<span class="co-h1-label">.*?<\/span>)?([\s\S]*?)<\/h1>/.exec(html)![1]!),
    facts: Object.fromEntries([...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, label, value]) => [label!, textOf(value!)])),
    labels: [...html.matchAll(/<label for="(?:card_number|expiry|cvc)">(.*?)<\/label>/g)].map(([, label]) => label),
    button: /<button type="submit" class="co-button co-pay-button">(.*?)<\/button>/.exec(html)?.[1],
    alert: alert === undefined ? undefined : textOf(alert),
    action: /<form [^>]*action="([^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&'),
    contractLinks: [...contractLinks.matchAll(/<a class="co-link" href="([^"]*)"[^>]*>(.*?)<\/a>/g)].map(([, href, label]) => [label, href!.replaceAll('&amp;', '&')]),
  };
}

/** German amounts as Intl writes them: a no-break space before the euro sign. */
const nbsp = (text: string) => text.replace(/ €/g, '\u00a0€');

describe('the page in the customer’s language', () => {
  it('`?lang=de`, else the first of de/en in Accept-Language, else English: every word and format of the page; a tampered or missing lang never breaks the signature check', async () => {
    const { subscription } = await subscribe(api, key);
    const link = await pageLink(subscription.id);
    const cancelLink = `/cancel?number=${subscription.id}`;
    const german = {
      heading: 'Zahlungsmethode aktualisieren',
      facts: { Tarif: 'Pro plan', 'Nächste Abbuchung': nbsp('1. April 2026, 9,90 €'), 'Aktuelle Karte': 'Visa mit Endziffern 4242' },
      labels: ['Kartennummer', 'Ablaufdatum', 'Prüfnummer'],
      button: 'Karte aktualisieren',
      alert: undefined,
      action: `${link.path}/update?expires=${link.expires}&signature=${link.signature}&lang=de`,
      contractLinks: [
        ['Withdraw from contract here', '/withdraw'],
        ['Verträge hier kündigen', `${cancelLink}&lang=de`],
      ],
    };
    const english = {
      heading: 'Update your payment method',
      facts: { Plan: 'Pro plan', 'Next charge': '1 April 2026, €9.90', 'Current card': 'Visa ending in 4242' },
      labels: ['Card number', 'Expiry', 'CVC'],
      button: 'Update card',
      alert: undefined,
      action: `${link.path}/update?expires=${link.expires}&signature=${link.signature}&lang=en`,
      contractLinks: [
        ['Withdraw from contract here', '/withdraw'],
        ['Cancel contracts here', cancelLink],
      ],
    };
    const cases: [query: string, acceptLanguage: string | undefined, shown: typeof german | typeof english][] = [
      ['&lang=de', undefined, german],
      ['&lang=de', 'en-GB', german],
      ['', 'de', german],
      ['', 'fr-FR, de-AT;q=0.8, en;q=0.5', german],
      ['&lang=xx', 'de-DE', german],
      ['', undefined, english],
      ['', 'en-GB, de;q=0.9', english],
      ['&lang=en', 'de', english],
      ['&lang=%3Cscript%3E', 'fr-FR', english],
    ];
    for (const [query, acceptLanguage, shown] of cases) expect(shownOn(await renderPage(link, query, acceptLanguage)), `${query} ${acceptLanguage}`).toEqual(shown);
    // The language is outside the signature: added to a tampered link, it opens nothing.
    const forged = { ...link, signature: `${link.signature.slice(0, -1)}${link.signature.endsWith('A') ? 'B' : 'A'}` };
    await expect(renderPage(forged, '&lang=de')).rejects.toThrow('did not open');
  });

  it('the form’s POST keeps the page’s language (its `lang`, else Accept-Language): the field to correct, the decline and the 404 in German', async () => {
    const { subscription } = await subscribe(api, key);
    const link = await pageLink(subscription.id);

    const mistyped = await submit(link, '4242 4242 4242 4241', { query: '&lang=de' });
    expect(mistyped.location.searchParams.get('lang')).toBe('de');
    const corrected = await renderPage(link, addedBy(mistyped.location));
    expect(shownOn(corrected).alert).toBe('Bitte korrigieren Sie unten das Feld „Kartennummer“.');
    expect(corrected).toContain('<p id="card_number-error" class="co-field-error">Diese Kartennummer ist nicht gültig. Prüfen Sie sie und versuchen Sie es erneut.</p>');

    const declined = await submit(link, CARDS.declined, { acceptLanguage: 'de-AT, en;q=0.5' });
    expect(declined.outcome).toMatchObject({ status: 'declined' });
    expect(declined.location.searchParams.get('lang')).toBe('de');
    const alert = shownOn(await renderPage(link, addedBy(declined.location))).alert;
    expect(alert).toBe('Ihre Karte wurde abgelehnt. Es wurde nichts abgebucht. Ihre hinterlegte Karte wurde nicht geändert.');
    expect(alert).toContain('abgelehnt');
    // In English it says "declined".
    const englishDecline = await submit(link, CARDS.declined);
    expect(englishDecline.location.searchParams.get('lang')).toBe('en');
    expect(shownOn(await renderPage(link, addedBy(englishDecline.location))).alert).toBe('Your card was declined. No payment was taken. Your card on file was not changed.');

    // A made-up `lang` changes nothing but the language: the card is taken.
    const approved = await submit(link, CARDS.approved, { query: '&lang=fr' });
    expect(approved.outcome).toEqual({ status: 'succeeded', failureCode: null, amount: 0, adopted: true });
    expect(approved.location.searchParams.get('lang')).toBe('en');

    const forged = await fetch(`${forms.baseUrl}${link.path}/update?expires=${Number(link.expires) + 1}&signature=${link.signature}&lang=de`, {
      method: 'POST',
      body: new URLSearchParams({}),
      redirect: 'manual',
    });
    expect(forged.status).toBe(404);
    const notFound = await forged.text();
    expect(notFound).toContain('<html lang="de">');
    expect(notFound).toContain('<h1 id="notice-heading">Dieser Link ist nicht gültig</h1>');
  });

  it('past_due in German: `Karte aktualisieren und 9,90 € zahlen`, then `Zahlungsmethode aktualisiert`, `9,90 € wurden abgebucht`; ended: `Dieses Abonnement ist beendet`', async () => {
    const due = await pastDue();
    const link = await pageLink(due.id);
    const before = shownOn(await renderPage(link, '&lang=de'));
    expect(before).toMatchObject({
      heading: 'Zahlungsmethode aktualisieren',
      facts: { Tarif: 'Pro plan', 'Nächste Abbuchung': nbsp('2. April 2026, 9,90 €'), 'Aktuelle Karte': 'Visa mit Endziffern 0341', 'Fällige Zahlung': nbsp('9,90 €') },
      button: nbsp('Karte aktualisieren und 9,90 € zahlen'),
    });
    const { location } = await submit(link, CARDS.approved, { query: '&lang=de' });
    const after = await renderPage(link, addedBy(location));
    expect(shownOn(after).heading).toBe('Zahlungsmethode aktualisiert');
    expect(textOf(after)).toContain(nbsp('9,90 € wurden abgebucht, und zwar von Ihrer neuen Karte.'));
    expect(textOf(after)).toContain('Visa mit Endziffern 4242 wird für die nächsten Zahlungen von Pro plan an ');

    expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${due.id}`, { key })).status).toBe(200);
    const ended = shownOn(await renderPage(link, '', 'de'));
    expect(ended).toMatchObject({ heading: 'Dieses Abonnement ist beendet', button: undefined, action: undefined });
    expect(ended.contractLinks).toEqual([
      ['Withdraw from contract here', '/withdraw'],
      ['Verträge hier kündigen', `/cancel?number=${due.id}&lang=de`],
    ]);
  });
  it('too many card attempts from the address: the 429 page in the page’s language, nothing sent', async () => {
    const { subscription } = await subscribe(api, key);
    const link = await pageLink(subscription.id);
    const refusal = () => new ApiError('rate_limited', 'Too many card attempts.', { retryAfter: 120 });
    vi.spyOn(api.services.rateLimits, 'consume').mockRejectedValueOnce(refusal()).mockRejectedValueOnce(refusal());
    const post = (query: string) =>
      fetch(`${forms.baseUrl}${link.path}/update?expires=${link.expires}&signature=${link.signature}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${++address}` },
        body: new URLSearchParams({ card_number: CARDS.approved, expiry: '12/34', cvc: '123' }),
        redirect: 'manual',
      });
    const german = await post('&lang=de');
    expect(german.status).toBe(429);
    expect(german.headers.get('retry-after')).toBe('120');
    const page = await german.text();
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('<header><p>Zahlungsmethode aktualisieren</p></header>');
    expect(page).toContain('<h1 id="notice-heading">Zu viele Zahlungsversuche</h1>');
    expect(page).toContain('Bitte warten Sie 2 Minuten, gehen Sie dann zurück zur Zahlungsseite und versuchen Sie es erneut.');
    const english = await (await post('')).text();
    expect(english).toContain('<h1 id="notice-heading">Too many payment attempts</h1>');
    expect(english).toContain('Please wait 2 minutes, then go back to the payment page and try again.');
    expect(await api.services.db.select({ count: sql<number>`count(*)::int` }).from(paymentMethodUpdates).where(eq(paymentMethodUpdates.subscriptionId, subscription.id))).toEqual([{ count: 0 }]);
  });

  it('3-D Secure: the bank sends the customer back to the page in its language', async () => {
    const { subscription } = await subscribe(api, key);
    const link = await pageLink(subscription.id);
    const gateway = api.services.gateways.test;
    const challenge = 'https://bank.example/3ds?payment=pay_1';
    const charge = vi.spyOn(gateway, 'charge').mockResolvedValueOnce({ status: 'requires_action', paymentId: 'pay_1', redirectUrl: challenge, brand: 'visa', last4: '4242' });
    const sent = await fetch(`${forms.baseUrl}${link.path}/update?expires=${link.expires}&signature=${link.signature}&lang=de`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${++address}` },
      body: new URLSearchParams({ card_number: CARDS.approved, expiry: '12/34', cvc: '123' }),
      redirect: 'manual',
    });
    expect(sent.headers.get('location')).toBe(challenge);
    const returnUrl = new URL(charge.mock.calls[0]![0].returnUrl);
    expect(`${returnUrl.origin}${returnUrl.pathname}`).toBe(`${ORIGIN}${link.path}/return`);
    expect(returnUrl.searchParams.get('lang')).toBe('de');

    vi.spyOn(gateway, 'retrieveCharge').mockResolvedValueOnce({ status: 'succeeded', paymentId: 'pay_1', brand: 'visa', last4: '4242', recurringId: 'sim_rec_3ds' });
    const back = await fetch(`${forms.baseUrl}${returnUrl.pathname}${returnUrl.search}`, { redirect: 'manual' });
    expect(back.status).toBe(303);
    const page = new URL(back.headers.get('location')!, ORIGIN);
    expect(page.searchParams.get('lang')).toBe('de');
    expect(shownOn(await renderPage(link, addedBy(page))).heading).toBe('Zahlungsmethode aktualisiert');
    expect(await read(subscription.id)).toMatchObject({ card: { brand: 'visa', last4: '4242' }, recurring_id: 'sim_rec_3ds' });
  });
});

describe('what the page shows', () => {
  it('`Next charge`: the date and the amount its discount leaves (20 % off 990, forever: €7.92)', async () => {
    const coupon = await createCoupon(api.services.db, { storeId, livemode: false }, { percentOff: 20, duration: 'forever' });
    const { subscription } = await subscribe(api, key, CARDS.approved, { ...PLAN, discounts: [{ coupon: coupon.id }] });
    expect(subscription.discount).toMatchObject({ coupon: coupon.id, percent_off: 20, duration: 'forever' });
    const link = await pageLink(subscription.id);
    expect(shownOn(await renderPage(link)).facts).toEqual({ Plan: 'Pro plan', 'Next charge': '1 April 2026, €7.92', 'Current card': 'Visa ending in 4242' });
    expect(shownOn(await renderPage(link, '&lang=de')).facts['Nächste Abbuchung']).toBe(nbsp('1. April 2026, 7,92 €'));
    // What the renewal then takes.
    await advance(epoch(MONTH1) - epoch(T0));
    const [renewal] = await listed(`/api/v1/orders?subscription_id=${subscription.id}&billing_reason=subscription_cycle`);
    expect(renewal).toMatchObject({ status: 'paid', amount_total: 792 });
  });

  it('the footer: `Withdraw from contract here` and `Cancel contracts here` with `?number=<sub id>`, on the form, its outcome and the ended page', async () => {
    const { subscription } = await subscribe(api, key);
    const link = await pageLink(subscription.id);
    const contractLinks = [
      ['Withdraw from contract here', '/withdraw'],
      ['Cancel contracts here', `/cancel?number=${subscription.id}`],
    ];
    expect(shownOn(await renderPage(link)).contractLinks).toEqual(contractLinks);
    const { location } = await submit(link, CARDS.approved);
    const updated = shownOn(await renderPage(link, addedBy(location)));
    expect(updated).toMatchObject({ heading: 'Payment method updated', contractLinks });
    expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${subscription.id}`, { key })).status).toBe(200);
    expect(shownOn(await renderPage(link))).toMatchObject({ heading: 'This subscription has ended', contractLinks });
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
