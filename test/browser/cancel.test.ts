import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { adminClient, callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The cancellation function in Debian's Chromium against `npm start`: both steps of /cancel in
 * German and in English, with and without JavaScript, the same answer for an address without a
 * subscription, the e-mail's keep link, and the scheduled end reached with advance_clock.
 * Screenshots of each page at 1280 and 375 px go to /tmp/shots/cancel-*.
 */
const ADMIN_TOKEN = 'adm_cancelbrowsertesttoken00000000000000000';
const SHOTS = '/tmp/shots';

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
  const storage = await serviceStorage('cancel-browser');
  cleanupStorage = storage.cleanup;
  [service, chromium] = await Promise.all([
    startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'cancel-browser-auth-secret', ADMIN_TOKEN, TRUST_PROXY: 'true', SUBSCRIPTIONS_ENABLED: 'true' })),
    launchChromium(),
  ]);
  browser = chromium.browser;
  const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Moth Society', subscriptions: true });
  sk = store.keys.sk_test;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, cleanupStorage }), 60_000);

/** A browser of a person at an address of their own (the service trusts X-Forwarded-For here). */
async function personContext(options: { javaScriptEnabled?: boolean; locale?: string } = {}): Promise<BrowserContext> {
  const context = await newContext(browser, options);
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': `203.0.113.${++address}` });
  return context;
}

const subscription = async (id: string) => (await callService(origin, sk, 'GET', `/api/v1/subscriptions/${id}`)).body;

/** A subscription paid on its hosted page in `page` (whose language the subscription keeps). */
async function subscribeOnPage(page: Page, email: string): Promise<any> {
  const created = await callService(origin, sk, 'POST', '/api/v1/subscriptions', { amount: 990, interval: 'month', plan_name: 'Moth club monthly', total_payments: 12, customer_email: email });
  expect(created.status).toBe(201);
  await page.goto(created.body.url);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await Promise.all([page.waitForURL(/\/receipt/), page.getByRole('button', { name: /^Subscribe/ }).click()]);
  const checkout = await callService(origin, sk, 'GET', `/api/v1/subscriptions/checkout/${created.body.id}`);
  return subscription(checkout.body.subscription);
}

const LABELS = {
  de: { email: 'E-Mail', number: 'Abonnement- oder Bestellnummer', name: 'Name', reason: 'Grund', asap: 'Schnellstmöglich', continue: 'Weiter', cancelNow: 'Jetzt kündigen' },
  en: { email: 'Email', number: 'Subscription or order number', name: 'Name', reason: 'Reason', asap: 'As soon as possible', continue: 'Continue', cancelNow: 'Cancel now' },
} as const;

/** Step one filled in and sent, then step two confirmed: the "received" page. */
async function cancelOnPage(page: Page, lang: 'de' | 'en', typed: { email: string; number?: string; name: string; reason?: string; asap?: boolean }) {
  const label = LABELS[lang];
  await page.getByLabel(label.email).fill(typed.email);
  await page.getByLabel(label.number).fill(typed.number ?? '');
  await page.getByLabel(label.name, { exact: true }).fill(typed.name);
  if (typed.asap) await page.getByLabel(label.asap).check();
  await page.getByLabel(label.reason).fill(typed.reason ?? '');
  await Promise.all([page.waitForURL(/\/cancel\/confirm\?/), page.getByRole('button', { name: label.continue }).click()]);
  await Promise.all([page.waitForURL(/\/cancel\/received\?/), page.getByRole('button', { name: label.cancelNow }).click()]);
}

/** What the answer says, with the typed e-mail and the time (which differ by design) left out. */
async function answerText(page: Page, email: string) {
  return (await page.locator('main').innerText()).replace(email, '<email>').replace(/\d{1,2}\.? \S+ \d{4} (at|um) \d{2}:\d{2} UTC/, '<time>');
}

async function keepLinkOf(subscriptionId: string, to: string): Promise<string> {
  const listed = await callService(origin, sk, 'GET', `/api/v1/test_helpers/emails?to=${encodeURIComponent(to)}&template=cancellation_received`);
  const mail = listed.body.data.find((email: any) => email.related.subscription_id === subscriptionId);
  return /http:\/\/\S+\/cancel\/keep\/\S+/.exec(mail.text)![0];
}

describe('/cancel', { timeout: 300_000 }, () => {
  it('in German, with JavaScript: the form in the browser’s language, the reason an extraordinary cancellation needs, the answer, the keep link', async () => {
    const context = await personContext({ locale: 'de-DE' });
    const page = await context.newPage();
    const running = await subscribeOnPage(page, 'kunde@example.de');

    await page.goto(`${origin}/cancel?number=${running.id}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Abonnement kündigen');
    expect(await page.getByLabel('Abonnement- oder Bestellnummer').inputValue()).toBe(running.id);
    expect(await page.getByRole('group', { name: 'Kündigen zum' }).count()).toBe(1);
    expect(await page.getByLabel('Ende des laufenden Zeitraums').isChecked()).toBe(true);
    expect(await page.getByText('Außerordentliche Kündigung: bitte geben Sie den Grund an.').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Verträge hier kündigen' }).getAttribute('href')).toBe('/cancel?lang=de');
    expect(await page.getByRole('link', { name: 'Withdraw from contract here' }).getAttribute('href')).toBe('/withdraw');
    await screenshotAtWidths(page, SHOTS, 'cancel-de-step-one');

    await page.getByLabel('E-Mail').fill('Kunde@Example.de');
    await page.getByLabel('Name', { exact: true }).fill('Karla Kunde');
    await page.getByLabel('Schnellstmöglich').check();
    await Promise.all([page.waitForURL(/error=reason_required/), page.getByRole('button', { name: 'Weiter' }).click()]);
    expect(await page.getByRole('alert').textContent()).toBe('Bitte korrigieren Sie unten das Feld „Grund“.');
    expect(await page.getByText('Bitte geben Sie den Grund für die außerordentliche Kündigung an.').count()).toBe(1);
    expect(await page.getByLabel('Grund').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Schnellstmöglich').isChecked()).toBe(true);
    await screenshotAtWidths(page, SHOTS, 'cancel-de-step-one-error');

    await page.getByLabel('Grund').fill('Umzug ins Ausland');
    await Promise.all([page.waitForURL(/\/cancel\/confirm\?.*lang=de/), page.getByRole('button', { name: 'Weiter' }).click()]);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Kündigung bestätigen');
    const shown = await page.locator('dl').innerText();
    for (const value of ['Kunde@Example.de', running.id, 'Karla Kunde', 'Schnellstmöglich', 'Umzug ins Ausland']) expect(shown).toContain(value);
    expect(await page.getByRole('link', { name: 'Angaben ändern' }).count()).toBe(1);
    await screenshotAtWidths(page, SHOTS, 'cancel-de-step-two');

    await Promise.all([page.waitForURL(/\/cancel\/received\?.*lang=de/), page.getByRole('button', { name: 'Jetzt kündigen' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Kündigung eingegangen');
    const main = await page.locator('main').innerText();
    expect(main).toMatch(/Eingegangen\s+\d{1,2}\. \S+ \d{4} um \d{2}:\d{2} UTC/);
    expect(main).toContain('Kunde@Example.de');
    expect(main).toContain(running.id);
    await screenshotAtWidths(page, SHOTS, 'cancel-de-received');

    const scheduled = await subscription(running.id);
    expect(scheduled).toMatchObject({ status: 'active', cancel_at_period_end: true, cancel_at: running.current_period_end, cancellation: { type: 'extraordinary', reason: 'Umzug ins Ausland' } });

    await page.goto(await keepLinkOf(running.id, 'kunde@example.de'));
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Ihr Abonnement läuft weiter');
    await screenshotAtWidths(page, SHOTS, 'cancel-de-kept');
    expect(await subscription(running.id)).toMatchObject({ cancel_at_period_end: false, cancel_at: null, cancellation: null });
    const tampered = await page.goto(`${origin}/cancel/keep/${running.id}?expires=${running.current_period_end}&signature=nope`);
    expect(tampered!.status()).toBe(404);
    await context.close();
  });

  it('in English, without JavaScript: matched and unmatched answered alike; the keep link; the end reached with advance_clock', async () => {
    const context = await personContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const kept = await subscribeOnPage(page, 'reader@example.com');
    const ending = await subscribeOnPage(page, 'reader@example.com');

    await page.goto(`${origin}/cancel?lang=en`);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Cancel a subscription');
    expect(await page.getByRole('link', { name: 'Cancel contracts here' }).getAttribute('href')).toBe('/cancel');
    await screenshotAtWidths(page, SHOTS, 'cancel-en-step-one');
    await page.getByLabel('Email').fill('reader@example.com');
    await page.getByLabel('Subscription or order number').fill('my order');
    await page.getByLabel('Name', { exact: true }).fill('Rea Der');
    await Promise.all([page.waitForURL(/error=number/), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(await page.getByRole('alert').textContent()).toBe('Please correct the subscription or order number below.');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Rea Der');
    await screenshotAtWidths(page, SHOTS, 'cancel-en-step-one-error');
    await page.getByLabel('Subscription or order number').fill('');
    await Promise.all([page.waitForURL(/\/cancel\/confirm\?/), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your cancellation');
    await screenshotAtWidths(page, SHOTS, 'cancel-en-step-two');
    await Promise.all([page.waitForURL(/\/cancel\/received\?/), page.getByRole('button', { name: 'Cancel now' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Cancellation received');
    expect(await page.locator('main').innerText()).toMatch(/Received\s+\d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC/);
    await screenshotAtWidths(page, SHOTS, 'cancel-en-received');
    const matched = await answerText(page, 'reader@example.com');

    await page.goto(`${origin}/cancel?lang=en`);
    await cancelOnPage(page, 'en', { email: 'nobody@example.com', name: 'Rea Der' });
    expect(await answerText(page, 'nobody@example.com')).toBe(matched);

    for (const id of [kept.id, ending.id]) expect((await subscription(id)).cancel_at_period_end).toBe(true);
    await page.goto(await keepLinkOf(kept.id, 'reader@example.com'));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your subscription continues');
    expect(await page.locator('main').innerText()).toContain('renews on');
    await screenshotAtWidths(page, SHOTS, 'cancel-en-kept');

    const advanced = await callService(origin, sk, 'POST', '/api/v1/test_helpers/advance_clock', { seconds: ending.current_period_end - ending.created + 60 });
    expect(advanced.status).toBe(200);
    expect(await subscription(ending.id)).toMatchObject({ status: 'canceled', canceled_at: ending.current_period_end, ended_at: ending.current_period_end });
    expect(await subscription(kept.id)).toMatchObject({ status: 'active', cancel_at_period_end: false, current_period_start: kept.current_period_end });
    await context.close();
  });

  it('the pages carry the hosted pages’ headers; a post from another site is refused (403)', async () => {
    const refused = await fetch(`${origin}/cancel/check`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `203.0.113.${++address}` },
      body: new URLSearchParams({ email: 'a@example.com', name: 'A' }),
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    const page = await fetch(`${origin}/cancel`, { headers: { 'accept-language': 'de' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html lang="de">');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'none'/);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, noarchive');
  });
});
