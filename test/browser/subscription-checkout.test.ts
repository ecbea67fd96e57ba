import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_OPERATOR } from '@/server/config';
import { MAX_TOTAL_PAYMENTS } from '@/server/subscriptions/schemas';
import {
  chromiumAvailable,
  consoleErrors,
  expectContractLinks,
  launchChromium,
  merchantLandingPage,
  newContext,
  screenshotAtWidths,
  startMerchantSite,
  stopStarted,
  type LaunchedBrowser,
} from '../support/browser';
import { callService, freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The hosted subscription checkout (signed single-use link, test cards) in Debian's Chromium against
 * the real production server (`npm start` with SUBSCRIPTIONS_ENABLED=true), with a store made by
 * the operator CLI (`store:create --subscriptions`). The merchant's success_url is a second
 * local origin, so the redirect after the POST leaves the service. No OPERATOR_* settings: the
 * pages name the demo operator, marked as such. Every page's console is checked. Set
 * SUBSCRIBE_SCREENSHOTS=<dir> to keep screenshots at desktop and phone width.
 */
const AUTH_SECRET = 'browser-test-auth-secret';
const SCREENSHOTS = process.env.SUBSCRIBE_SCREENSHOTS;
const ADMIN_TOKEN = 'adm_browsertestbrowsertestbrowsertest1234';
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let merchant: Server;
let merchantOrigin = '';
let chromium: LaunchedBrowser;
let browser: Browser;
let sk = '';

const api = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, sk, method, route, body);

function admin(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSX_CLI, 'scripts/admin.ts', ...args],
      { cwd: ROOT, env: serviceEnv({ SERVICE_URL: `http://127.0.0.1:${port}`, ADMIN_TOKEN }), timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`admin ${args.join(' ')} failed: ${stderr}\nservice output:\n${service.output()}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

async function createCheckout(options: { successUrl?: boolean; totalPayments?: number } = {}) {
  const created = await api('POST', '/api/v1/subscriptions', {
    amount: 990,
    interval: 'month',
    plan_name: 'Moth club monthly',
    total_payments: options.totalPayments ?? 12,
    customer_email: 'ada@example.com',
    ...(options.successUrl === false ? {} : { success_url: `${merchantOrigin}/welcome?ref=7` }),
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string };
}

async function fillCard(page: Page, number: string, expiry = '12/34') {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry').fill(expiry);
  await page.getByLabel('CVC').fill('123');
}

const subscribeButton = (page: Page) => page.getByRole('button', { name: /^Subscribe/ });

/** A page whose console the test checks once done with it. */
async function openPage(options: Parameters<typeof newContext>[1] = {}) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  return { context, page, errors: consoleErrors(page) };
}

async function screenshot(page: Page, name: string) {
  if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, name);
}

/** `26 December 2026`: a date as the pages write it, `months` after today (UTC, as billing counts). */
function monthsFromToday(months: number): string {
  const today = new Date();
  const date = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + months, 1));
  date.setUTCDate(Math.min(today.getUTCDate(), new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate()));
  return new Intl.DateTimeFormat('en-IE', { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

const SELLER = DEMO_OPERATOR.legalName;

beforeAll(
  async () => {
    if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
    port = await freePort();
    ({ server: merchant, origin: merchantOrigin } = await startMerchantSite(merchantLandingPage('Welcome')));

    const storage = await serviceStorage('subscription-browser');
    cleanupStorage = storage.cleanup;
    const env = serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET, ADMIN_TOKEN, SUBSCRIPTIONS_ENABLED: 'true' });
    [service, chromium] = await Promise.all([startService(env), launchChromium()]);
    browser = chromium.browser;
    const store = await admin(['store:create', '--name', 'Moth Society', '--subscriptions']);
    expect(store.flags.subscriptions).toBe(true);
    sk = store.keys.sk_test;
    // Starts take turns with the other browser and e2e suites (one build into .next): room to wait for one.
  },
  2 * START_TIMEOUT_MS + 60_000,
);

afterAll(() => stopStarted({ chromium, service, merchant, cleanupStorage }), 60_000);

describe('hosted subscription checkout in Chromium', () => {
  it('approve: plan, amount, interval, the read-only email, the mandate naming the seller with the next and last payment and how to cancel; 4242 lands on success_url; the subscription is active', async () => {
    const checkout = await createCheckout();
    const { context, page, errors } = await openPage();
    const response = await page.goto(checkout.url);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    // The form's own script alone, by its hash.
    const scripts = await page.locator('script').evaluateAll((elements) => elements.map((element) => ({ src: element.getAttribute('src'), text: element.textContent ?? '' })));
    expect(scripts.map((script) => script.src)).toEqual([null]);
    expect(headers['content-security-policy']).toContain(`script-src 'sha256-${createHash('sha256').update(scripts[0]!.text).digest('base64')}';`);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy']).toContain(`form-action 'self' ${merchantOrigin}`);
    expect(headers['cache-control']).toContain('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(await page.title()).toBe('Subscribe to Moth club monthly: €9.90 every month · Moth Society');

    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Moth club monthly');
    expect(await page.getByText('every month').count()).toBeGreaterThan(0);
    expect(await page.getByText('€9.90').count()).toBeGreaterThan(0);
    expect(await page.getByText(`Sold by ${SELLER} on behalf of Moth Society`).count()).toBe(1);
    // The demo operator is marked as one.
    expect(await page.getByRole('contentinfo').textContent()).toContain('(demo seller details, not a real company)');
    await expectContractLinks(page);
    // The plan's name is the heading; no second "Plan" label.
    expect(await page.getByText('Plan', { exact: true }).count()).toBe(0);
    const summary = page.getByRole('region', { name: 'Your subscription' });
    expect(await summary.getByRole('term').allTextContents()).toEqual(['Billed', 'Payments', 'Next payment', 'Due today']);
    expect(await summary.getByRole('definition').allTextContents()).toEqual(['every month', `12 in all, the last on ${monthsFromToday(11)}`, monthsFromToday(1), '€9.90']);
    const mandate = (await page.locator('.co-mandate').textContent())!;
    expect(mandate).toContain(`By subscribing you allow ${SELLER} to charge your card €9.90 every month until the last payment on ${monthsFromToday(11)} (12 payments in all).`);
    expect(mandate).toContain(
      `The first payment is taken today, the next on ${monthsFromToday(1)}. To cancel, use Cancel contracts here or ask Moth Society: no payment is taken after the period you have paid for.`,
    );

    const email = page.getByLabel('Email');
    expect(await email.inputValue()).toBe('ada@example.com');
    expect(await email.getAttribute('readonly')).not.toBeNull();
    // Read-only looks read-only: a dashed border on the page's background, unlike the card inputs.
    const look = (label: string) => page.getByLabel(label, { exact: true }).evaluate((input) => [getComputedStyle(input).borderStyle, getComputedStyle(input).backgroundColor]);
    expect(await look('Email')).toEqual(['dashed', 'rgb(244, 245, 247)']);
    expect(await look('Card number')).toEqual(['solid', 'rgb(255, 255, 255)']);
    expect(await subscribeButton(page).textContent()).toMatch(/^Subscribe/);
    await screenshot(page, 'subscribe');

    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(`${merchantOrigin}/welcome**`), subscribeButton(page).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('ref')).toBe('7');
    expect(landed.searchParams.get('checkout_id')).toBe(checkout.id);
    const subscriptionId = landed.searchParams.get('subscription_id')!;
    expect(subscriptionId).toMatch(/^sub_test_/);
    const subscription = await api('GET', `/api/v1/subscriptions/${subscriptionId}`);
    expect(subscription.body).toMatchObject({ status: 'active', amount: 990, customer_email: 'ada@example.com' });

    // The link is spent: opening it again shows the outcome, not a form.
    await page.goto(checkout.url);
    expect(await page.getByRole('heading', { name: 'You are subscribed' }).count()).toBe(1);
    expect(await subscribeButton(page).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it(`a plan of ${MAX_TOTAL_PAYMENTS.toLocaleString('en-IE')} payments runs until canceled`, async () => {
    const checkout = await createCheckout({ totalPayments: MAX_TOTAL_PAYMENTS });
    const { context, page, errors } = await openPage({ width: 375, height: 812 });
    await page.goto(checkout.url);
    const summary = page.getByRole('region', { name: 'Your subscription' });
    expect(await summary.getByRole('definition').allTextContents()).toEqual(['every month', 'until you cancel', monthsFromToday(1), '€9.90']);
    expect(await page.locator('.co-mandate').textContent()).toContain(`By subscribing you allow ${SELLER} to charge your card €9.90 every month until you cancel.`);
    expect(await page.getByText('10000').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'subscribe-until-canceled');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('decline: 4000…0002 shows an alert containing "declined", the subscription is incomplete, and the link cannot be reused', async () => {
    const checkout = await createCheckout();
    const { context, page, errors } = await openPage();
    await page.goto(checkout.url);
    await fillCard(page, '4000 0000 0000 0002');
    await subscribeButton(page).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('declined');
    expect(await subscribeButton(page).count()).toBe(0);
    const read = await api('GET', `/api/v1/subscriptions/checkout/${checkout.id}`);
    expect(read.body).toMatchObject({ status: 'complete', url: null });
    expect((await api('GET', `/api/v1/subscriptions/${read.body.subscription}`)).body.status).toBe('incomplete');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a mistake is caught in the page and sends nothing (the link stays unspent); 12/2030 as expiry subscribes and the receipt has no test-card banner', async () => {
    const checkout = await createCheckout({ successUrl: false });
    const { context, page, errors } = await openPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.goto(checkout.url);
    await fillCard(page, '4242 4242 4242 4242', '01/20');
    await subscribeButton(page).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Please correct the expiry date below.');
    expect(await page.getByLabel('Expiry').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('expiry');
    expect(posts).toEqual([]);
    await page.getByLabel('Expiry').fill('12/2030');
    await Promise.all([page.waitForURL(/\/subscribe\/subchk_test_[^/]+\/receipt/), subscribeButton(page).click()]);
    expect(await page.getByRole('heading', { name: 'Subscription confirmed' }).count()).toBe(1);
    expect(await page.title()).toBe('Subscription confirmed: Moth club monthly, €9.90 every month · Moth Society');
    expect(await page.getByText('Visa ending in 4242').count()).toBe(1);
    expect(await page.getByText(`Sold by ${SELLER} on behalf of Moth Society`).count()).toBe(1);
    // The receipt is about one subscription: its cancel link names it.
    await expectContractLinks(page, `/cancel?number=${(await api('GET', `/api/v1/subscriptions/checkout/${checkout.id}`)).body.subscription}`);
    expect(await page.getByRole('complementary', { name: 'Test mode' }).count()).toBe(0);
    expect(await page.locator('script').count()).toBe(0);
    await screenshot(page, 'subscribe-receipt');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('without JavaScript a field error (expired card) comes from the server, focused, and keeps the link usable; the corrected card subscribes', async () => {
    const checkout = await createCheckout({ successUrl: false });
    const { context, page, errors } = await openPage({ javaScriptEnabled: false });
    await page.goto(checkout.url);
    await fillCard(page, '4242 4242 4242 4242', '01/20');
    await subscribeButton(page).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(await page.getByLabel('Expiry').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('expiry');
    // The card number is never echoed back into the form.
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    await fillCard(page, '4242 4242 4242 4242', '1230');
    await Promise.all([page.waitForURL(/\/subscribe\/subchk_test_[^/]+\/receipt/), subscribeButton(page).click()]);
    expect(await page.getByRole('heading', { name: 'Subscription confirmed' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('two tabs subscribing at once: one subscription, one charge, and both tabs land somewhere sensible', async () => {
    const checkout = await createCheckout();
    const context = await newContext(browser);
    const tabs = await Promise.all([context.newPage(), context.newPage()]);
    const errors = tabs.map(consoleErrors);
    for (const tab of tabs) {
      await tab.goto(checkout.url);
      await fillCard(tab, '4242 4242 4242 4242');
    }
    await Promise.all(tabs.map((tab) => Promise.all([tab.waitForURL(`${merchantOrigin}/welcome**`), subscribeButton(tab).click()])));
    const ids = new Set(tabs.map((tab) => new URL(tab.url()).searchParams.get('subscription_id')));
    expect(ids.size).toBe(1);
    const list = await api('GET', '/api/v1/subscriptions?limit=100');
    expect(list.body.data.filter((row: any) => ids.has(row.id))).toHaveLength(1);
    expect(errors).toEqual([[], []]);
    await context.close();
  });

  it('a tampered link shows the not-valid page with 404', async () => {
    const checkout = await createCheckout();
    const { context, page, errors } = await openPage();
    const tampered = checkout.url.replace(/signature=([^&])/, (_match, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
    const response = await page.goto(tampered);
    expect(response!.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout link is not valid');
    await expectContractLinks(page);
    expect(errors).toEqual([]);
    await context.close();
  });
});
