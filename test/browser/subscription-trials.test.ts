import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '@/db/client';
import { chromiumAvailable, consoleErrors, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { createCoupon, createPromotionCode } from '../support/coupons';
import { createStore } from '../support/factories';
import { callService, freePort, serviceDatabase, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * Free trials and promotion codes on the hosted subscription checkout in Debian's Chromium against
 * the real production server (`npm start` with SUBSCRIPTIONS_ENABLED=true): the trial's wording
 * and a subscribe that charges nothing, the code field (applied, refused, removed) and a
 * subscription paid with the code. The store and its codes are written into the service's
 * database before it starts. Set SUBSCRIBE_SCREENSHOTS=<dir> to keep screenshots at desktop and
 * phone width.
 */
const SCREENSHOTS = process.env.SUBSCRIBE_SCREENSHOTS;

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
const world = { sk: '' };

const api = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, world.sk, method, route, body);

/** A store with subscriptions and the code SUMMER25 (15 % off, once), written before the service opens the database. */
async function seedDatabase(env: Record<string, string>) {
  const handle = await openMigratedDatabase(serviceDatabase(env));
  try {
    const store = await createStore(handle, { name: 'Moth Society', subscriptions: true });
    world.sk = store.keys.sk_test;
    await createPromotionCode(handle.db, await createCoupon(handle.db, { storeId: store.id, livemode: false }, { name: 'Summer sale', percentOff: 15 }), 'SUMMER25');
  } finally {
    await handle.close();
  }
}

async function createCheckout(body: Record<string, unknown>) {
  const created = await api('POST', '/api/v1/subscriptions', { amount: 1999, interval: 'month', plan_name: 'Moth club monthly', total_payments: 12, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; url: string };
}

async function openPage(javaScriptEnabled = true) {
  const context = await newContext(browser, { javaScriptEnabled });
  const page = await context.newPage();
  return { context, page, errors: consoleErrors(page) };
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
}

const subscribeButton = (page: Page) => page.getByRole('button', { name: /^Subscribe/ });
const summary = (page: Page) => page.getByRole('region', { name: 'Your subscription' });

async function screenshot(page: Page, name: string) {
  if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, name);
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  port = await freePort();
  const storage = await serviceStorage('subscription-trials-browser');
  cleanupStorage = storage.cleanup;
  await seedDatabase(storage.env);
  [service, chromium] = await Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'trials-browser-secret', SUBSCRIPTIONS_ENABLED: 'true' })), launchChromium()]);
  browser = chromium.browser;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, cleanupStorage }), 60_000);

describe('a free trial on the hosted subscription checkout', () => {
  it('reads `Free for 14 days, then €19.99 per month`, `Due today` `€0.00`, `Subscribe: free for 14 days`; 4242 starts the trial and nothing is charged', async () => {
    const checkout = await createCheckout({ customer_email: 'trial@example.com', trial_days: 14 });
    const { context, page, errors } = await openPage();
    expect((await page.goto(checkout.url))!.status()).toBe(200);
    expect(await page.title()).toBe('Subscribe to Moth club monthly: free for 14 days · Moth Society');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Subscribe to Moth club monthlyFree for 14 days, then €19.99 per month');
    const terms = await summary(page).getByRole('term').allTextContents();
    const definitions = await summary(page).getByRole('definition').allTextContents();
    expect(terms).toEqual(['Billed', 'Payments', 'Free trial', 'First payment', 'Due today']);
    expect(definitions[2]).toBe('14 days');
    expect(definitions.at(-1)).toBe('€0.00');
    expect(await page.locator('.co-mandate').textContent()).toContain('Nothing is charged today: your card is only checked.');
    expect(await subscribeButton(page).textContent()).toBe('Subscribe: free for 14 days');
    await screenshot(page, 'subscribe-trial');

    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(/\/subscribe\/.*\/receipt/), subscribeButton(page).click()]);
    const read = await api('GET', `/api/v1/subscriptions/checkout/${checkout.id}`);
    const subscription = (await api('GET', `/api/v1/subscriptions/${read.body.subscription}`)).body;
    expect(subscription).toMatchObject({ status: 'trialing', trial_end: subscription.trial_start + 14 * 86_400, next_billing_at: subscription.trial_end });
    await page.goto(checkout.url);
    expect(await page.getByRole('heading', { name: 'Your free trial has started' }).count()).toBe(1);
    await screenshot(page, 'subscribe-trial-started');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('one day, every 3 months: `Free for 1 day, then €19.99 per 3 months`', async () => {
    const checkout = await createCheckout({ customer_email: 'short@example.com', trial_days: 1, interval_count: 3 });
    const { context, page, errors } = await openPage();
    await page.goto(checkout.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Free for 1 day, then €19.99 per 3 months');
    expect(await subscribeButton(page).textContent()).toBe('Subscribe: free for 1 day');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the promotion code field on the subscription page', () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`summer25 applies (row \`Discount (SUMMER25)\` \`−€3.00\`, due €16.99, \`Subscribe: pay €16.99 today\`); an unknown code is refused; Remove takes it off; subscribing with it charges €16.99 (script ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const checkout = await createCheckout({ customer_email: 'code@example.com', allow_promotion_codes: true });
      const { context, page, errors } = await openPage(javaScriptEnabled);
      await page.goto(checkout.url);
      await page.getByLabel('Promotion code').fill('NOPE-NOPE');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('This code is not valid');
      if (javaScriptEnabled) await screenshot(page, 'subscribe-code-refused');

      await page.getByLabel('Promotion code').fill('summer25');
      await Promise.all([page.waitForURL((url) => !url.searchParams.has('error')), page.getByRole('button', { name: 'Apply' }).click()]);
      expect(await summary(page).getByText('Discount (SUMMER25)').count()).toBe(1);
      expect(await summary(page).getByText('−€3.00').count()).toBe(1);
      expect((await summary(page).getByRole('definition').allTextContents()).at(-1)).toBe('€16.99');
      // The plan's price every month; the discounted first charge today.
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('€19.99 every month');
      expect(await subscribeButton(page).textContent()).toBe('Subscribe: pay €16.99 today');
      // The mandate is for the plan's price; the discount reaches what its terms allow.
      expect(await page.locator('.co-mandate').textContent()).toContain('to charge your card €19.99 every month until');
      expect(await page.locator('.co-mandate').textContent()).toContain('The discount (SUMMER25) is taken off the payments its terms reach, €3.00 off the first.');
      if (javaScriptEnabled) await screenshot(page, 'subscribe-code-applied');

      await page.getByRole('button', { name: 'Remove Discount (SUMMER25)' }).click();
      // Polled, not read once: between the two pages the summary is briefly not there at all.
      await expect.poll(async () => (await summary(page).getByRole('definition').allTextContents()).at(-1)).toBe('€19.99');
      expect(await summary(page).getByText('Discount (SUMMER25)').count()).toBe(0);

      await page.getByLabel('Promotion code').fill('SUMMER25');
      await Promise.all([page.waitForURL((url) => !url.searchParams.has('error')), page.getByRole('button', { name: 'Apply' }).click()]);
      await expect.poll(() => summary(page).getByText('Discount (SUMMER25)').count()).toBe(1);
      await fillCard(page, '4242 4242 4242 4242');
      await Promise.all([page.waitForURL(/\/subscribe\/.*\/receipt/), subscribeButton(page).click()]);
      const read = await api('GET', `/api/v1/subscriptions/checkout/${checkout.id}`);
      const subscription = (await api('GET', `/api/v1/subscriptions/${read.body.subscription}`)).body;
      expect(subscription).toMatchObject({ status: 'active', amount: 1999, discount: { percent_off: 15, duration: 'once' } });
      expect(await page.getByRole('main').textContent()).toContain('€16.99');
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
