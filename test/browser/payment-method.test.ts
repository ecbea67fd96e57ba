import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { adminClient, callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The update-payment-method page in Debian's Chromium against `npm start`, with and without
 * JavaScript, in English and in German (the German e-mail's link, or the browser's language): a
 * subscription whose renewal was declined (0341) gets a new card (4242) and is charged the owed
 * amount once; a declined card shows the alert and changes nothing. Screenshots at 1280 and 375 px
 * go to /tmp/shots.
 */
const ADMIN_TOKEN = 'adm_paymentmethodbrowsertesttoken0000000';
const SHOTS = '/tmp/shots';
const DAY = 86_400;

let origin = '';
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
let sk = '';
let address = 0;

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  const port = await freePort();
  origin = `http://localhost:${port}`;
  const storage = await serviceStorage('payment-method-browser');
  cleanupStorage = storage.cleanup;
  [service, chromium] = await Promise.all([
    startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'payment-method-browser-auth-secret', ADMIN_TOKEN, TRUST_PROXY: 'true', SUBSCRIPTIONS_ENABLED: 'true' })),
    launchChromium(),
  ]);
  browser = chromium.browser;
  sk = (await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Moth Society', subscriptions: true })).keys.sk_test;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, cleanupStorage }), 60_000);

const api = (method: string, path: string, body?: unknown) => callService(origin, sk, method, path, body);

/** A browser of its own; `locale` its language (Accept-Language), English unless given. */
async function newPage(javaScriptEnabled: boolean, locale?: string): Promise<Page> {
  const context = await newContext(browser, { javaScriptEnabled, locale });
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': `203.0.113.${++address}` });
  return context.newPage();
}

const CARD_LABELS = { en: ['Card number', 'Expiry', 'CVC'], de: ['Kartennummer', 'Ablaufdatum', 'Prüfnummer'] } as const;

async function fillCard(page: Page, number: string, language: keyof typeof CARD_LABELS = 'en', cvc = '123') {
  const [cardNumber, expiry, securityCode] = CARD_LABELS[language];
  await page.getByLabel(cardNumber, { exact: true }).fill(number);
  await page.getByLabel(expiry, { exact: true }).fill('12/34');
  await page.getByLabel(securityCode, { exact: true }).fill(cvc);
}

/** A subscription paid on its hosted page with 0341 (in `page`'s language), whose first renewal the test clock then declines. */
async function pastDueSubscription(page: Page): Promise<{ id: string; recurring_id: string }> {
  const created = await api('POST', '/api/v1/subscriptions', { amount: 990, interval: 'month', plan_name: 'Moth club', total_payments: 12, customer_email: 'ada@example.com' });
  expect(created.status).toBe(201);
  await page.goto(created.body.url);
  await fillCard(page, '4000 0000 0000 0341');
  await Promise.all([page.waitForURL(/\/receipt\?/), page.getByRole('button', { name: /^Subscribe/ }).click()]);
  const subscriptionId = (await api('GET', `/api/v1/subscriptions/checkout/${created.body.id}`)).body.subscription;
  const sub = (await api('GET', `/api/v1/subscriptions/${subscriptionId}`)).body;
  const moved = await api('POST', '/api/v1/test_helpers/advance_clock', { seconds: sub.next_billing_at - sub.current_period_start });
  expect(moved.status).toBe(200);
  const due = (await api('GET', `/api/v1/subscriptions/${subscriptionId}`)).body;
  expect(due).toMatchObject({ status: 'past_due', failure_count: 1 });
  return due;
}

const cycleOrders = async (id: string) => (await api('GET', `/api/v1/orders?subscription_id=${id}&billing_reason=subscription_cycle`)).body.data as unknown[];

describe('/payment-method/<id>', () => {
  for (const javaScriptEnabled of [true, false]) {
    const mode = javaScriptEnabled ? 'with JavaScript' : 'without JavaScript';
    it(`a declined renewal, then a declined card, then 4242: active again, charged once (${mode})`, async () => {
      const page = await newPage(javaScriptEnabled);
      const due = await pastDueSubscription(page);
      const link = (await api('POST', `/api/v1/subscriptions/${due.id}/update_payment_method_link`, {})).body;
      const answer = await page.goto(link.url);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['content-security-policy']).toContain("form-action 'self'");
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Update your payment method');
      const facts = await page.locator('.co-summary').textContent();
      expect(facts).toContain('PlanMoth club');
      expect(facts).toContain('Next charge');
      expect(facts).toContain('€9.90');
      expect(facts).toContain('Current cardVisa ending in 0341');
      const pay = page.getByRole('button', { name: 'Update card and pay €9.90' });
      expect(await pay.count()).toBe(1);
      if (javaScriptEnabled) await screenshotAtWidths(page, SHOTS, 'payment-method-past-due');

      await fillCard(page, '4000 0000 0000 0002');
      await Promise.all([page.waitForURL(/outcome=/), pay.click()]);
      expect(await page.getByRole('alert').textContent()).toContain('declined');
      expect((await api('GET', `/api/v1/subscriptions/${due.id}`)).body).toEqual(due);
      if (javaScriptEnabled) await screenshotAtWidths(page, SHOTS, 'payment-method-declined');

      await fillCard(page, '4242 4242 4242 4242');
      await Promise.all([page.waitForURL(/outcome=/), page.getByRole('button', { name: 'Update card and pay €9.90' }).click()]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Payment method updated');
      const main = await page.getByRole('main').textContent();
      expect(main).toContain('€9.90 was charged');
      expect(main).toContain('Visa ending in 4242');
      if (javaScriptEnabled) await screenshotAtWidths(page, SHOTS, 'payment-method-updated');
      expect((await api('GET', `/api/v1/subscriptions/${due.id}`)).body).toMatchObject({ status: 'active', failure_count: 0, card: { brand: 'visa', last4: '4242' } });
      expect(await cycleOrders(due.id)).toHaveLength(1);

      // A reload shows the same outcome and charges nothing more; the old retry dates pass without a charge.
      await page.reload();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Payment method updated');
      expect((await api('POST', '/api/v1/test_helpers/advance_clock', { seconds: 8 * DAY })).status).toBe(200);
      expect(await cycleOrders(due.id)).toHaveLength(1);

      // The link has passed its 7 days meanwhile; a fresh one opens the active subscription's page: a card check, `Update card`.
      expect((await page.goto(link.url))?.status()).toBe(404);
      await page.goto((await api('POST', `/api/v1/subscriptions/${due.id}/update_payment_method_link`, {})).body.url);
      expect(await page.getByRole('button', { name: 'Update card', exact: true }).count()).toBe(1);
      if (javaScriptEnabled) await screenshotAtWidths(page, SHOTS, 'payment-method-active');
      await page.context().close();
    });
  }

  for (const javaScriptEnabled of [true, false]) {
    const mode = javaScriptEnabled ? 'with JavaScript' : 'without JavaScript';
    it(`German: the payment_failed e-mail's link opens the page in German in an English browser; a correction, a declined card, then 4242 (${mode})`, async () => {
      const customer = await newPage(javaScriptEnabled, 'de-DE');
      const due = await pastDueSubscription(customer);
      const failed = ((await api('GET', '/api/v1/test_helpers/emails?template=payment_failed')).body.data as { text: string; related: { subscription_id: string } }[]).find(
        (mail) => mail.related.subscription_id === due.id,
      )!;
      const url = /Zahlungsmethode aktualisieren (\S+)/.exec(failed.text)![1]!;
      expect(new URL(url).searchParams.get('lang')).toBe('de');

      const page = await newPage(javaScriptEnabled);
      const answer = await page.goto(url);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['content-security-policy']).toContain("form-action 'self'");
      expect(await page.locator('html').getAttribute('lang')).toBe('de');
      await expect(page.title()).resolves.toBe('Zahlungsmethode aktualisieren: Moth club · Moth Society');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Zahlungsmethode aktualisieren');
      const facts = await page.locator('.co-summary').textContent();
      expect(facts).toContain('TarifMoth club');
      expect(facts).toMatch(/Nächste Abbuchung\d{1,2}\. [A-Z][a-zä]+ \d{4}, 9,90\u00a0€/);
      expect(facts).toContain('Aktuelle KarteVisa mit Endziffern 0341');
      expect(facts).toContain('Fällige Zahlung9,90\u00a0€');
      const pay = page.getByRole('button', { name: 'Karte aktualisieren und 9,90 € zahlen' });
      expect(await pay.count()).toBe(1);
      const footer = page.locator('.co-contract-links');
      expect(await footer.getByRole('link', { name: 'Verträge hier kündigen' }).getAttribute('href')).toBe(`/cancel?number=${due.id}&lang=de`);
      expect(await footer.getByRole('link', { name: 'Withdraw from contract here' }).getAttribute('href')).toBe('/withdraw');
      if (javaScriptEnabled) await screenshotAtWidths(page, SHOTS, 'payment-method-past-due-de');

      // A field to correct, in German: the script's check, or the server's.
      await fillCard(page, javaScriptEnabled ? '4242 4242 4242 4242' : '4242 4242 4242 4241', 'de', javaScriptEnabled ? '12' : '123');
      if (javaScriptEnabled) {
        await pay.click();
        expect(await page.getByRole('alert').textContent()).toBe('Bitte korrigieren Sie unten das Feld „Prüfnummer“.');
        expect(await page.locator('#cvc-error').textContent()).toBe('Geben Sie die 3-stellige Prüfnummer von der Rückseite der Karte ein.');
      } else {
        await Promise.all([page.waitForURL(/error=invalid_card_number/), pay.click()]);
        expect(await page.getByRole('alert').textContent()).toBe('Bitte korrigieren Sie unten das Feld „Kartennummer“.');
        expect(await page.locator('#card_number-error').textContent()).toBe('Diese Kartennummer ist nicht gültig. Prüfen Sie sie und versuchen Sie es erneut.');
      }

      await fillCard(page, '4000 0000 0000 0002', 'de');
      await Promise.all([page.waitForURL(/outcome=/), page.getByRole('button', { name: 'Karte aktualisieren und 9,90 € zahlen' }).click()]);
      expect(new URL(page.url()).searchParams.get('lang')).toBe('de');
      expect(await page.getByRole('alert').textContent()).toContain('abgelehnt');
      expect((await api('GET', `/api/v1/subscriptions/${due.id}`)).body).toEqual(due);

      await fillCard(page, '4242 4242 4242 4242', 'de');
      await Promise.all([page.waitForURL(/outcome=/), page.getByRole('button', { name: 'Karte aktualisieren und 9,90 € zahlen' }).click()]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Zahlungsmethode aktualisiert');
      const main = await page.getByRole('main').textContent();
      expect(main).toContain('9,90\u00a0€ wurden abgebucht');
      expect(main).toContain('Visa mit Endziffern 4242');
      if (javaScriptEnabled) await screenshotAtWidths(page, SHOTS, 'payment-method-updated-de');
      expect((await api('GET', `/api/v1/subscriptions/${due.id}`)).body).toMatchObject({ status: 'active', failure_count: 0, card: { brand: 'visa', last4: '4242' } });
      expect(await cycleOrders(due.id)).toHaveLength(1);
      await page.context().close();

      // The API's link has no `lang`: a German browser gets the page in German, the active subscription's `Karte aktualisieren`.
      await customer.goto((await api('POST', `/api/v1/subscriptions/${due.id}/update_payment_method_link`, {})).body.url);
      expect(await customer.locator('html').getAttribute('lang')).toBe('de');
      expect(await customer.getByRole('button', { name: 'Karte aktualisieren', exact: true }).count()).toBe(1);
      expect(await customer.locator('.co-summary').textContent()).toContain('Aktuelle KarteVisa mit Endziffern 4242');
      if (javaScriptEnabled) await screenshotAtWidths(customer, SHOTS, 'payment-method-active-de');
      await customer.context().close();
    });
  }

  it('an ended subscription: `This subscription has ended`, no form; a tampered link is the 404 page', async () => {
    const page = await newPage(false);
    const due = await pastDueSubscription(page);
    const link = (await api('POST', `/api/v1/subscriptions/${due.id}/update_payment_method_link`, {})).body;
    expect((await api('DELETE', `/api/v1/subscriptions/${due.id}`)).status).toBe(200);
    await page.goto(link.url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This subscription has ended');
    expect(await page.locator('form').count()).toBe(0);
    await screenshotAtWidths(page, SHOTS, 'payment-method-ended');
    // One character of the signature changed (to another one: it may begin with `A`).
    const tampered = await page.goto(link.url.replace(/signature=(.)/, (_match: string, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`));
    expect(tampered?.status()).toBe(404);
    await page.context().close();
  });
});
