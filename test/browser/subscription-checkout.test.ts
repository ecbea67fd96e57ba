import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, merchantLandingPage, newContext, startMerchantSite, stopStarted, type LaunchedBrowser } from '../support/browser';
import { callService, freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The hosted subscription checkout (signed single-use link, test cards) in Debian's Chromium against
 * the real production server (`npm start` with SUBSCRIPTIONS_ENABLED=true), with a store made by
 * the operator CLI (`store:create --subscriptions`). The merchant's success_url is a second
 * local origin, so the redirect after the POST leaves the service.
 */
const AUTH_SECRET = 'browser-test-auth-secret';
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
    execFile(process.execPath, [TSX_CLI, 'scripts/admin.ts', ...args], { cwd: ROOT, env: serviceEnv({ SERVICE_URL: `http://127.0.0.1:${port}`, ADMIN_TOKEN }), timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`admin ${args.join(' ')} failed: ${stderr}\nservice output:\n${service.output()}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

async function createCheckout(options: { successUrl?: boolean } = {}) {
  const created = await api('POST', '/api/v1/subscriptions', {
    amount: 990,
    interval: 'month',
    plan_name: 'Moth club monthly',
    total_payments: 12,
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

beforeAll(async () => {
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
}, 2 * START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, merchant, cleanupStorage }), 60_000);

describe('hosted subscription checkout in Chromium', () => {
  it('approve: plan, amount, interval and the read-only email; 4242 lands on success_url with checkout_id and subscription_id; the subscription is active', async () => {
    const checkout = await createCheckout();
    const context = await newContext(browser);
    const page = await context.newPage();
    const response = await page.goto(checkout.url);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toMatch(/script-src 'none'/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy']).toContain(`form-action 'self' ${merchantOrigin}`);
    expect(headers['cache-control']).toContain('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');

    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Moth club monthly');
    expect(await page.getByText('every month').count()).toBeGreaterThan(0);
    expect(await page.getByText('€9.90').count()).toBeGreaterThan(0);
    const email = page.getByLabel('Email');
    expect(await email.inputValue()).toBe('ada@example.com');
    expect(await email.getAttribute('readonly')).not.toBeNull();
    expect(await subscribeButton(page).textContent()).toMatch(/^Subscribe/);

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
    await context.close();
  });

  it('decline: 4000…0002 shows an alert containing "declined", the subscription is incomplete, and the link cannot be reused', async () => {
    const checkout = await createCheckout();
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(checkout.url);
    await fillCard(page, '4000 0000 0000 0002');
    await subscribeButton(page).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('declined');
    expect(await subscribeButton(page).count()).toBe(0);
    const read = await api('GET', `/api/v1/subscriptions/checkout/${checkout.id}`);
    expect(read.body).toMatchObject({ status: 'complete', url: null });
    expect((await api('GET', `/api/v1/subscriptions/${read.body.subscription}`)).body.status).toBe('incomplete');
    await context.close();
  });

  it('a field error (expired card) keeps the link usable; the corrected card subscribes without JavaScript and lands on the receipt', async () => {
    const checkout = await createCheckout({ successUrl: false });
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(checkout.url);
    await fillCard(page, '4242 4242 4242 4242', '01/20');
    await subscribeButton(page).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(await page.getByLabel('Expiry').getAttribute('aria-invalid')).toBe('true');
    // The card number is never echoed back into the form.
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(/\/subscribe\/subchk_test_[^/]+\/receipt/), subscribeButton(page).click()]);
    expect(await page.getByRole('heading', { name: 'Subscription confirmed' }).count()).toBe(1);
    expect(await page.getByText('ending 4242').count()).toBe(1);
    await context.close();
  });

  it('two tabs subscribing at once: one subscription, one charge, and both tabs land somewhere sensible', async () => {
    const checkout = await createCheckout();
    const context = await newContext(browser);
    const tabs = await Promise.all([context.newPage(), context.newPage()]);
    for (const tab of tabs) {
      await tab.goto(checkout.url);
      await fillCard(tab, '4242 4242 4242 4242');
    }
    await Promise.all(tabs.map((tab) => Promise.all([tab.waitForURL(`${merchantOrigin}/welcome**`), subscribeButton(tab).click()])));
    const ids = new Set(tabs.map((tab) => new URL(tab.url()).searchParams.get('subscription_id')));
    expect(ids.size).toBe(1);
    const list = await api('GET', '/api/v1/subscriptions?limit=100');
    expect(list.body.data.filter((row: any) => ids.has(row.id))).toHaveLength(1);
    await context.close();
  });

  it('a tampered link shows the not-valid page with 404', async () => {
    const checkout = await createCheckout();
    const context = await newContext(browser);
    const page = await context.newPage();
    const tampered = checkout.url.replace(/signature=([^&])/, (_match, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
    const response = await page.goto(tampered);
    expect(response!.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout link is not valid');
    await context.close();
  });
});
