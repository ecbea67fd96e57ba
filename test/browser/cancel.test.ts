import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, expectContractLinks, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { adminClient, callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The cancellation function in Debian's Chromium against `npm start`: both steps of /cancel in
 * German and in English, each with and without JavaScript, every label verbatim, the same answer
 * for an address without a subscription, the e-mail's keep link, and the scheduled end reached
 * with advance_clock. Screenshots of each page at 1280 and 375 px go to /tmp/shots/cancel-*.
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

/** Every word of the pages a test reads, verbatim, and how the answer writes the time received. */
const TEXTS = {
  en: {
    locale: 'en-IE',
    link: 'Cancel contracts here',
    heading: 'Cancel a subscription',
    email: 'Email',
    number: 'Subscription or order number',
    name: 'Name',
    reason: 'Reason',
    cancelAt: 'Cancel at',
    periodEnd: 'End of the current period',
    asap: 'As soon as possible',
    asapHint: 'Extraordinary cancellation: please give the reason.',
    continue: 'Continue',
    correctNumber: 'Please correct the subscription or order number below.',
    correctReason: 'Please correct the reason below.',
    reasonRequired: 'Please give the reason for an extraordinary cancellation.',
    confirmHeading: 'Confirm your cancellation',
    cancelNow: 'Cancel now',
    changeDetails: 'Change details',
    receivedHeading: 'Cancellation received',
    receivedAt: /Received\s+\d{1,2} [A-Z][a-z]+ \d{4} at \d{2}:\d{2} UTC/,
    keptHeading: 'Your subscription continues',
  },
  de: {
    locale: 'de-DE',
    link: 'Verträge hier kündigen',
    heading: 'Abonnement kündigen',
    email: 'E-Mail',
    number: 'Abonnement- oder Bestellnummer',
    name: 'Name',
    reason: 'Grund',
    cancelAt: 'Kündigen zum',
    periodEnd: 'Ende des laufenden Zeitraums',
    asap: 'Schnellstmöglich',
    asapHint: 'Außerordentliche Kündigung: bitte geben Sie den Grund an.',
    continue: 'Weiter',
    correctNumber: 'Bitte korrigieren Sie unten das Feld „Abonnement- oder Bestellnummer“.',
    correctReason: 'Bitte korrigieren Sie unten das Feld „Grund“.',
    reasonRequired: 'Bitte geben Sie den Grund für die außerordentliche Kündigung an.',
    confirmHeading: 'Kündigung bestätigen',
    cancelNow: 'Jetzt kündigen',
    changeDetails: 'Angaben ändern',
    receivedHeading: 'Kündigung eingegangen',
    receivedAt: /Eingegangen\s+\d{1,2}\. [A-Z][a-zä]+ \d{4} um \d{2}:\d{2} UTC/,
    keptHeading: 'Ihr Abonnement läuft weiter',
  },
} as const;

type Language = keyof typeof TEXTS;

/** Step one filled in and sent, then step two confirmed: the "received" page. */
async function cancelOnPage(page: Page, lang: Language, typed: { email: string; number?: string; name: string; reason?: string; asap?: boolean }) {
  const text = TEXTS[lang];
  await page.getByLabel(text.email, { exact: true }).fill(typed.email);
  await page.getByLabel(text.number, { exact: true }).fill(typed.number ?? '');
  await page.getByLabel(text.name, { exact: true }).fill(typed.name);
  if (typed.asap) await page.getByLabel(text.asap, { exact: true }).check();
  await page.getByLabel(text.reason, { exact: true }).fill(typed.reason ?? '');
  await Promise.all([page.waitForURL(/\/cancel\/confirm\?/), page.getByRole('button', { name: text.continue, exact: true }).click()]);
  await Promise.all([page.waitForURL(/\/cancel\/received\?/), page.getByRole('button', { name: text.cancelNow, exact: true }).click()]);
}

/** What the answer page says, with the typed e-mail and the time (which differ by design) left out. */
async function answerText(page: Page, email: string) {
  return (await page.locator('body').innerText()).replaceAll(email, '<email>').replace(/\d{1,2}\.? \S+ \d{4} (at|um) \d{2}:\d{2} UTC/, '<time>');
}

async function keepLinkOf(subscriptionId: string, to: string): Promise<string> {
  const listed = await callService(origin, sk, 'GET', `/api/v1/test_helpers/emails?to=${encodeURIComponent(to)}&template=cancellation_received`);
  const mail = listed.body.data.find((email: any) => email.related.subscription_id === subscriptionId);
  return /http:\/\/\S+\/cancel\/keep\/\S+/.exec(mail.text)![0];
}

/** The subscriptions the flows below ended, and whether the e-mail's keep link undid it: the last test lets their periods run out. */
const declared: { subscription: any; kept: boolean }[] = [];

/** The pages run no script (script-src 'none'), so each flow is the same with JavaScript and without; both are driven. */
const FLOWS = [
  { lang: 'de', javaScriptEnabled: true },
  { lang: 'en', javaScriptEnabled: false },
  { lang: 'de', javaScriptEnabled: false },
  { lang: 'en', javaScriptEnabled: true },
] as const;

describe('/cancel', { timeout: 300_000 }, () => {
  for (const { lang, javaScriptEnabled } of FLOWS) {
    it(`${lang}, ${javaScriptEnabled ? 'with' : 'without'} JavaScript: every label, the fields to correct, Change details keeping what was typed, the answer alike for a matching and a non-matching e-mail${javaScriptEnabled ? ', the keep link' : ''}`, async () => {
      const text = TEXTS[lang];
      const context = await personContext({ javaScriptEnabled, locale: text.locale });
      const page = await context.newPage();
      // The screenshots are taken once per language: without JavaScript the pages look the same.
      const shoot = (name: string) => (javaScriptEnabled ? screenshotAtWidths(page, SHOTS, `cancel-${lang}-${name}`) : Promise.resolve());
      const email = `customer-${lang}-${javaScriptEnabled ? 'js' : 'plain'}@example.com`;
      const typedEmail = email[0]!.toUpperCase() + email.slice(1);
      const running = await subscribeOnPage(page, email);

      // The browser's language picks the page's.
      await page.goto(`${origin}/cancel?number=${running.id}`);
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(text.heading);
      expect(await page.getByLabel(text.number, { exact: true }).inputValue()).toBe(running.id);
      expect(await page.getByRole('group', { name: text.cancelAt, exact: true }).count()).toBe(1);
      expect(await page.getByLabel(text.periodEnd, { exact: true }).isChecked()).toBe(true);
      expect(await page.getByLabel(text.asap, { exact: true }).isChecked()).toBe(false);
      expect(await page.getByText(text.asapHint, { exact: true }).count()).toBe(1);
      const footer = page.getByRole('contentinfo');
      expect(await footer.getByRole('link', { name: text.link, exact: true }).getAttribute('href')).toBe(lang === 'de' ? '/cancel?lang=de' : '/cancel');
      expect(await footer.getByRole('link', { name: 'Withdraw from contract here', exact: true }).getAttribute('href')).toBe('/withdraw');
      await shoot('step-one');

      await page.getByLabel(text.email, { exact: true }).fill(typedEmail);
      await page.getByLabel(text.number, { exact: true }).fill('my order');
      await page.getByLabel(text.name, { exact: true }).fill('Karla Kunde');
      await page.getByLabel(text.asap, { exact: true }).check();
      await Promise.all([page.waitForURL(/error=number/), page.getByRole('button', { name: text.continue, exact: true }).click()]);
      expect(await page.getByRole('alert').textContent()).toBe(text.correctNumber);
      expect(await page.getByLabel(text.name, { exact: true }).inputValue()).toBe('Karla Kunde');
      expect(await page.getByLabel(text.asap, { exact: true }).isChecked()).toBe(true);

      await page.getByLabel(text.number, { exact: true }).fill(running.id);
      await Promise.all([page.waitForURL(/error=reason_required/), page.getByRole('button', { name: text.continue, exact: true }).click()]);
      expect(await page.getByRole('alert').textContent()).toBe(text.correctReason);
      expect(await page.getByText(text.reasonRequired, { exact: true }).count()).toBe(1);
      expect(await page.getByLabel(text.reason, { exact: true }).getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel(text.asap, { exact: true }).isChecked()).toBe(true);
      await shoot('step-one-error');

      await page.getByLabel(text.reason, { exact: true }).fill('Moving abroad');
      await Promise.all([page.waitForURL(new RegExp(`/cancel/confirm\\?.*lang=${lang}`)), page.getByRole('button', { name: text.continue, exact: true }).click()]);
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(text.confirmHeading);
      const shown = await page.locator('dl').innerText();
      for (const value of [typedEmail, running.id, 'Karla Kunde', text.asap, 'Moving abroad']) expect(shown).toContain(value);
      await shoot('step-two');

      // Change details: back to step one with everything typed kept.
      await Promise.all([page.waitForURL(/\/cancel\?draft=/), page.getByRole('link', { name: text.changeDetails, exact: true }).click()]);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(text.heading);
      expect(await page.getByRole('alert').count()).toBe(0);
      for (const [label, value] of [
        [text.email, typedEmail],
        [text.number, running.id],
        [text.name, 'Karla Kunde'],
        [text.reason, 'Moving abroad'],
      ] as const) {
        expect(await page.getByLabel(label, { exact: true }).inputValue()).toBe(value);
      }
      expect(await page.getByLabel(text.asap, { exact: true }).isChecked()).toBe(true);
      await Promise.all([page.waitForURL(/\/cancel\/confirm\?/), page.getByRole('button', { name: text.continue, exact: true }).click()]);
      await Promise.all([page.waitForURL(new RegExp(`/cancel/received\\?.*lang=${lang}`)), page.getByRole('button', { name: text.cancelNow, exact: true }).click()]);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(text.receivedHeading);
      const main = await page.locator('main').innerText();
      expect(main).toMatch(text.receivedAt);
      expect(main).toContain(typedEmail);
      expect(main).toContain(running.id);
      await shoot('received');
      const matched = await answerText(page, typedEmail);

      const scheduled = await subscription(running.id);
      expect(scheduled).toMatchObject({ status: 'active', cancel_at_period_end: true, cancel_at: running.current_period_end, cancellation: { type: 'extraordinary', reason: 'Moving abroad' } });

      // Another address with the same number matches nothing, and is answered alike.
      const stranger = `nobody-${lang}-${javaScriptEnabled ? 'js' : 'plain'}@example.com`;
      await page.goto(`${origin}/cancel?lang=${lang}`);
      await cancelOnPage(page, lang, { email: stranger, number: running.id, name: 'Karla Kunde', reason: 'Moving abroad', asap: true });
      expect(await answerText(page, stranger)).toBe(matched);
      expect(await subscription(running.id)).toEqual(scheduled);

      if (javaScriptEnabled) {
        await page.goto(await keepLinkOf(running.id, email));
        expect(await page.locator('html').getAttribute('lang')).toBe(lang);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(text.keptHeading);
        await shoot('kept');
        expect(await subscription(running.id)).toMatchObject({ cancel_at_period_end: false, cancel_at: null, cancellation: null });
        const tampered = await page.goto(`${origin}/cancel/keep/${running.id}?expires=${running.current_period_end}&signature=nope`);
        expect(tampered!.status()).toBe(404);
        await expectContractLinks(page);
      }
      declared.push({ subscription: running, kept: javaScriptEnabled });
      await context.close();
    });
  }

  it('advance_clock past the periods’ ends: the declared subscriptions are canceled at their end, the kept ones renew', async () => {
    expect(declared.map(({ kept }) => kept)).toEqual(FLOWS.map(({ javaScriptEnabled }) => javaScriptEnabled));
    const lastEnd = Math.max(...declared.map(({ subscription }) => subscription.current_period_end));
    const firstCreated = Math.min(...declared.map(({ subscription }) => subscription.created));
    const advanced = await callService(origin, sk, 'POST', '/api/v1/test_helpers/advance_clock', { seconds: lastEnd - firstCreated + 60 });
    expect(advanced.status).toBe(200);
    for (const { subscription: before, kept } of declared) {
      expect(await subscription(before.id)).toMatchObject(
        kept
          ? { status: 'active', cancel_at_period_end: false, current_period_start: before.current_period_end }
          : { status: 'canceled', canceled_at: before.current_period_end, ended_at: before.current_period_end },
      );
    }
  });

  it('the pages carry the hosted pages’ headers; a post from another site is refused (403)', async () => {
    const refused = await fetch(`${origin}/cancel/check`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `203.0.113.${++address}` },
      body: new URLSearchParams({ email: 'a@example.com', name: 'A' }),
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    // Its page's own policy, which allows the page's stylesheet.
    expect(refused.headers.get('content-security-policy')).toMatch(/style-src 'self' 'sha256-[^']+';/);
    expect(await refused.text()).toContain('<a href="/cancel">Cancel contracts here</a>');
    const page = await fetch(`${origin}/cancel`, { headers: { 'accept-language': 'de' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html lang="de">');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'none'/);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, noarchive');
  });
});
