import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { openMigratedDatabase } from '@/db/client';
import { subscriptions } from '@/db/schema';
import { chromiumAvailable, consoleErrors, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { createStore } from '../support/factories';
import { freePort, serviceDatabase, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';
import { seedCustomer, seedOrder, seedSubscription } from '../portal/factories';

/**
 * The customer portal page (read-only, noindex, 404 once a link stops resolving) in Debian's Chromium and
 * over plain HTTP against the real production server (`npm start`). The data (two customers of
 * one store, a customer of another store, orders, refunds, a subscription with payment attempts)
 * is written into the service's database before it starts. TRUST_PROXY lets the rate-limit test
 * speak from an address of its own. Set PORTAL_SCREENSHOTS=docs/screenshots to refresh the
 * README's screenshots.
 */
const SCREENSHOTS = process.env.PORTAL_SCREENSHOTS;
const DAY = 86400;
/** Portal lookups per IP per window; the window is long so the limit test does not depend on timing. */
const PORTAL_LIMIT = 60;
const WINDOW_SECONDS = 60;

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;

const world = {} as {
  sk: string;
  otherSk: string;
  ada: { id: string };
  bob: { id: string };
  newcomer: { id: string };
  adaOrders: { id: string; licenseKeys: string[] }[];
  bobOrder: { id: string };
  strangerOrder: { id: string };
  subscription: { id: string };
  /** Ada's second subscription, its end scheduled (a declared cancellation). */
  endingSubscription: { id: string };
  /** When the orders were seeded (their ages count back from it). */
  seededAt: Date;
};

async function api(method: string, route: string, body?: unknown, key = world.sk) {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function portal(body: Record<string, unknown>): Promise<{ id: string; url: string }> {
  const created = await api('POST', '/api/v1/portal/sessions', body);
  expect(created.status).toBe(201);
  return created.body;
}

async function screenshot(page: Page, name: string) {
  if (!SCREENSHOTS) return;
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** On every portal answer, the page's own and the error pages: noindex, noarchive and the rest. */
function expectPortalHeaders(headers: Record<string, string>) {
  expect(headers['x-robots-tag']).toBe('noindex, noarchive');
  expect(headers['cache-control']).toContain('no-store');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['content-security-policy']).toMatch(/script-src 'none'/);
  expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
}

/** What each page a test opened showed in its console: checked empty after every test. */
const consoles: string[][] = [];
afterEach(() => {
  expect(consoles.splice(0).flat()).toEqual([]);
});

async function open(url: string, options: { locale?: string; javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; response: Response }> {
  const context = options.locale
    ? await browser.newContext({ locale: options.locale, viewport: { width: 1280, height: 900 } })
    : await newContext(browser, { javaScriptEnabled: options.javaScriptEnabled });
  const page = await context.newPage();
  consoles.push(consoleErrors(page));
  const response = (await page.goto(url))!;
  return { context, page, response };
}

const mainText = async (page: Page) => (await page.getByRole('main').textContent())!;

/** Responsive: on a small phone nothing is wider than the screen. */
async function expectFitsPhone(page: Page) {
  await page.setViewportSize({ width: 360, height: 780 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
}

/** The service's database before `npm start` opens it: migrated, with the test's stores and data. */
async function seedDatabase(env: Record<string, string>) {
  const handle = await openMigratedDatabase(serviceDatabase(env));
  try {
    const seed = { db: handle.db, now: new Date() };
    world.seededAt = seed.now;
    const store = await createStore(handle, { name: 'Moth Books' });
    const other = await createStore(handle, { name: 'Other Shop' });
    world.sk = store.keys.sk_test;
    world.otherSk = other.keys.sk_test;
    const ada = await seedCustomer(seed, store, { email: 'ada@example.com', name: 'Ada' });
    const bob = await seedCustomer(seed, store, { email: 'bob@example.com', name: 'Bob' });
    const stranger = await seedCustomer(seed, other, { email: 'ada@example.com' });
    world.ada = ada;
    world.bob = bob;
    world.newcomer = await seedCustomer(seed, store, { email: 'new@example.com' });
    world.adaOrders = [
      await seedOrder(seed, store, {
        customer: ada,
        ageSeconds: 40 * DAY,
        lines: [{ description: 'Atlas of moths', unitAmount: 4000, amountTax: 760, licenseKeys: 1 }],
        refunds: [1500],
      }),
      await seedOrder(seed, store, { customer: ada, ageSeconds: 3 * DAY, lines: [{ description: 'Field guide to moths', unitAmount: 1250, quantity: 2 }] }),
    ];
    world.bobOrder = await seedOrder(seed, store, { customer: bob, lines: [{ description: 'Beetles of the world', unitAmount: 3100 }], card: { brand: 'mastercard', last4: '5454' } });
    world.strangerOrder = await seedOrder(seed, other, { customer: stranger, lines: [{ description: 'Stranger things', unitAmount: 777 }], card: { brand: 'visa', last4: '1881' } });
    world.subscription = await seedSubscription(seed, store, {
      customer: ada,
      planName: 'Moth club membership',
      amount: 990,
      nextBillingInSeconds: 12 * DAY,
      payments: [
        { status: 'succeeded', ageSeconds: 48 * DAY },
        { status: 'declined', ageSeconds: 18 * DAY, card: { brand: 'visa', last4: '0341' } },
        { status: 'succeeded', ageSeconds: 17 * DAY },
      ],
    });
    world.endingSubscription = await seedSubscription(seed, store, {
      customer: ada,
      planName: 'Moth journal',
      amount: 490,
      nextBillingInSeconds: 9 * DAY,
      endScheduled: true,
      card: { brand: 'mastercard', last4: '4444' },
      payments: [{ status: 'succeeded', ageSeconds: 21 * DAY }],
    });
    await seedSubscription(seed, store, { customer: bob, planName: 'Beetle box' });
    // The membership moves to the yearly plan at its next renewal, and has a credit from an earlier change.
    const pendingChange = {
      ...{ price_id: null, product_id: null, plan_name: 'Moth club (yearly)', amount: 9900, interval: 'year' as const, interval_count: 1 },
      ...{ tax_category: 'standard' as const, tax_inclusive: true, effective_at: Math.floor(seed.now.getTime() / 1000) + 12 * DAY },
    };
    await handle.db.update(subscriptions).set({ pendingChange, creditBalance: 500 }).where(eq(subscriptions.id, world.subscription.id));
  } finally {
    await handle.close();
  }
}

beforeAll(
  async () => {
    if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
    port = await freePort();
    const storage = await serviceStorage('portal-browser');
    cleanupStorage = storage.cleanup;
    await seedDatabase(storage.env);
    const env = serviceEnv({
      ...storage.env,
      PORT: String(port),
      TRUST_PROXY: 'true',
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_PORTAL_PER_IP: String(PORTAL_LIMIT),
      RATE_LIMIT_PER_IP: '100000',
      RATE_LIMIT_PER_KEY: '100000',
    });
    [service, chromium] = await Promise.all([startService(env), launchChromium()]);
    browser = chromium.browser;
    // Starts take turns with the other browser and e2e files (test/support/production-server.ts): allow for one ahead of this one.
  },
  2 * START_TIMEOUT_MS + 60_000,
);

afterAll(() => stopStarted({ chromium, service, cleanupStorage }), 60_000);

describe('the portal page in Chromium, by scope', () => {
  it('customer scope: all her orders and subscriptions with totals, statuses and refunds; nobody else’s data, no card data beyond brand and last 4', async () => {
    const session = await portal({ customer_id: world.ada.id });
    const { context, page, response } = await open(session.url);
    expect(response.status()).toBe(200);
    expectPortalHeaders(response.headers());
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, noarchive');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Your orders and subscriptions');

    const text = await mainText(page);
    for (const shown of ['Atlas of moths', 'Field guide to moths', 'Moth club membership', world.adaOrders[0]!.id, world.adaOrders[1]!.id, world.adaOrders[0]!.licenseKeys[0]!]) {
      expect(text).toContain(shown);
    }
    // Totals and statuses in EUR: 47.60 + 25.00 paid, 15.00 refunded.
    expect(text).toContain('€72.60');
    expect(text).toContain('€47.60');
    expect(text).toContain('€7.60');
    expect(text).toContain('€15.00');
    expect(text).toContain('Partially refunded');
    expect(text).toContain('Visa ending in 4242');
    expect(text).toContain('€9.90 every month');
    // Never another customer's data: Bob of the same store, nor the other store's customer.
    const html = await page.content();
    const visible = (await page.locator('body').textContent())!;
    for (const hidden of ['Beetles of the world', 'Beetle box', 'bob@example.com', world.bob.id, world.bobOrder.id, 'Stranger things', world.strangerOrder.id, 'Other Shop']) {
      expect(html).not.toContain(hidden);
    }
    expect(visible).not.toMatch(/5454|1881/);
    // No gateway ids, no fees, no full card numbers.
    expect(html).not.toMatch(/pi_seed|rec_seed|4242 4242|4242424242424242/);
    expect(visible).not.toMatch(/\bfees?\b/i);

    // The stylesheet loads under the policy (same origin).
    expect(
      await page
        .locator('.pt-badge-success')
        .first()
        .evaluate((badge) => getComputedStyle(badge).backgroundColor),
    ).toBe('rgb(230, 244, 234)');
    // Labelled landmarks.
    expect(await page.getByRole('banner').count()).toBe(1);
    expect(await page.getByRole('main', { name: /Your orders and subscriptions/ }).count()).toBe(1);
    expect(await page.getByRole('contentinfo').count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Orders' }).count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Subscriptions' }).count()).toBe(1);

    // A plan change waiting for the renewal: the plan, its price and from when.
    const changing = page.getByRole('article', { name: 'Moth club membership' });
    expect(await changing.locator('dt:text-is("Scheduled change") + dd').textContent()).toMatch(/^Moth club \(yearly\): €99\.00 every year from /);
    expect(await changing.locator('dt:text-is("Credit") + dd').textContent()).toBe('€5.00');
    // Each subscription still charged: its card, and links to give another card and to cancel it.
    const ending = page.getByRole('article', { name: 'Moth journal' });
    expect(await ending.locator('dt:text-is("Card") + dd').textContent()).toBe('Mastercard ending in 4444');
    // An end scheduled: when it ends, instead of a next payment.
    expect(await ending.locator('dt').allTextContents()).not.toContain('Next payment');
    expect(await ending.locator('dt').allTextContents()).not.toContain('Scheduled change');
    expect(await ending.locator('dt').allTextContents()).not.toContain('Credit');
    const endsOn = ending.locator('dt:text-is("Ends on") + dd time');
    expect(new Date((await endsOn.getAttribute('datetime'))!).toISOString().slice(0, 10)).toBe(new Date(world.seededAt.getTime() + 9 * DAY * 1000).toISOString().slice(0, 10));
    expect(await ending.getByRole('link', { name: 'Update payment method' }).getAttribute('href')).toMatch(
      new RegExp(`/payment-method/${world.endingSubscription.id}\\?expires=\\d+&signature=[\\w-]+$`),
    );
    expect(await ending.getByRole('link', { name: 'Cancel contracts here' }).getAttribute('href')).toBe(`/cancel?number=${world.endingSubscription.id}`);
    // The footer: both ways out of a contract, the cancel page without a number (several subscriptions are shown).
    const footer = page.getByRole('contentinfo');
    expect(await footer.getByRole('link', { name: 'Withdraw from contract here' }).getAttribute('href')).toBe('/withdraw');
    expect(await footer.getByRole('link', { name: 'Cancel contracts here' }).getAttribute('href')).toBe('/cancel');
    await screenshot(page, 'portal-customer');
    if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, 'portal-customer-links');
    await expectFitsPhone(page);
    await context.close();
  });

  it('order scope: that order’s amounts, tax, payment status, refunds and license key; not her other order', async () => {
    const [atlas, guide] = world.adaOrders;
    const session = await portal({ order_id: atlas!.id });
    // The page needs no script: read it with JavaScript off.
    const { context, page, response } = await open(session.url, { javaScriptEnabled: false });
    expect(response.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Your order');
    const text = await mainText(page);
    for (const shown of ['Atlas of moths', atlas!.id, '€40.00', 'VAT 19%', '€7.60', '€47.60', 'Refunded', '−€15.00', 'Partially refunded', 'Paid on', 'Visa ending in 4242', atlas!.licenseKeys[0]!]) {
      expect(text).toContain(shown);
    }
    expect(text).not.toContain('Field guide to moths');
    expect(text).not.toContain(guide!.id);
    expect(text).not.toContain('Moth club membership');
    await screenshot(page, 'portal-order');
    await context.close();
  });

  it('subscription scope: plan, status, next billing date and every payment attempt; no orders', async () => {
    const session = await portal({ subscription_id: world.subscription.id });
    const { context, page, response } = await open(session.url);
    expect(response.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Your subscription');
    const text = await mainText(page);
    for (const shown of ['Moth club membership', 'Active', '€9.90 every month', 'Next payment', 'Payment attempts', 'Declined', 'Visa ending in 0341']) expect(text).toContain(shown);
    expect(await page.locator('dt:text-is("Card") + dd').textContent()).toBe('Visa ending in 4242');
    const update = page.getByRole('main').getByRole('link', { name: 'Update payment method' });
    const href = (await update.getAttribute('href'))!;
    const link = new URL(href);
    expect(link.pathname).toBe(`/payment-method/${world.subscription.id}`);
    // Made for this view: valid for 7 days from now.
    expect(Number(link.searchParams.get('expires')) - Date.now() / 1000).toBeGreaterThan(7 * DAY - 120);
    expect(Number(link.searchParams.get('expires')) - Date.now() / 1000).toBeLessThanOrEqual(7 * DAY);
    // One subscription shown: the cancel links, in the card and the footer, name it.
    expect(await page.getByRole('main').getByRole('link', { name: 'Cancel contracts here' }).getAttribute('href')).toBe(`/cancel?number=${world.subscription.id}`);
    expect(await page.getByRole('contentinfo').getByRole('link', { name: 'Cancel contracts here' }).getAttribute('href')).toBe(`/cancel?number=${world.subscription.id}`);
    const attempts = page.getByRole('table', { name: /Payment attempts/ }).locator('tbody tr');
    expect(await attempts.count()).toBe(3);
    expect(await attempts.nth(1).textContent()).toContain('Declined');
    // The next billing date as a machine-readable <time>.
    const next = page.locator('dt:text-is("Next payment") + dd time');
    expect(new Date((await next.getAttribute('datetime'))!).getTime()).toBeGreaterThan(Date.now() + 11 * DAY * 1000);
    expect(text).not.toContain('Atlas of moths');
    expect(text).not.toContain('Beetle box');
    await screenshot(page, 'portal-subscription');
    if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, 'portal-subscription-links');
    await expectFitsPhone(page);
    await context.close();
  });

  it('a customer with no orders or subscriptions sees empty states', async () => {
    const session = await portal({ customer_id: world.newcomer.id });
    const { context, page } = await open(session.url);
    const text = await mainText(page);
    expect(text).toContain('No orders yet');
    expect(text).toContain('No subscriptions');
    await context.close();
  });

  it('amounts in EUR and dates in the visitor’s locale (Accept-Language)', async () => {
    const session = await portal({ order_id: world.adaOrders[0]!.id });
    const { context, page } = await open(session.url, { locale: 'de-DE' });
    const text = await mainText(page);
    expect(text).toContain('47,60');
    expect(text).toContain('€');
    const paid = new Date(world.seededAt.getTime() - 40 * DAY * 1000);
    expect(text).toContain(new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'UTC' }).format(paid));
    await context.close();
  });
});

describe('links that stop resolving', () => {
  it('expiry on the store’s test clock: the next request is a 404 page saying the link is no longer valid', async () => {
    const session = await portal({ customer_id: world.ada.id, expires_at: Math.floor(Date.now() / 1000) + 300 });
    const { context, page, response } = await open(session.url);
    expect(response.status()).toBe(200);
    expect((await api('POST', '/api/v1/test_helpers/advance_clock', { seconds: 301 })).status).toBe(200);
    const reloaded = (await page.reload())!;
    expect(reloaded.status()).toBe(404);
    expectPortalHeaders(reloaded.headers());
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This link is no longer valid');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, noarchive');
    expect(await page.locator('body').textContent()).not.toContain('Atlas of moths');
    expect((await api('GET', `/api/v1/portal/sessions/${session.id}`)).body).toMatchObject({ status: 'expired', access_count: 1 });
    await context.close();
  });

  it('revocation takes effect on the very next request', async () => {
    const session = await portal({ customer_id: world.ada.id });
    const { context, page, response } = await open(session.url);
    expect(response.status()).toBe(200);
    expect((await api('DELETE', `/api/v1/portal/sessions/${session.id}`)).body.status).toBe('revoked');
    const reloaded = (await page.reload())!;
    expect(reloaded.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This link is no longer valid');
    await context.close();
  });

  it('deleting the customer revokes her link at once', async () => {
    const seeded = await portal({ customer_id: world.bob.id });
    expect((await fetch(seeded.url)).status).toBe(200);
    expect((await api('DELETE', `/api/v1/customers/${world.bob.id}`)).status).toBe(200);
    const after = await fetch(seeded.url);
    expect(after.status).toBe(404);
    expect(await after.text()).not.toContain('Beetles of the world');
  });

  it('unknown and malformed tokens are the same 404 page, with the portal headers', async () => {
    for (const token of ['A'.repeat(43), 'not-a-token']) {
      const response = await fetch(`http://localhost:${port}/portal/${token}`);
      expect(response.status).toBe(404);
      expectPortalHeaders(Object.fromEntries(response.headers));
      expect(await response.text()).toContain('This link is no longer valid');
    }
  });
});

describe('counting and limiting', () => {
  it('concurrent views each count once', async () => {
    const session = await portal({ customer_id: world.ada.id });
    const context = await newContext(browser);
    const views = 12;
    const pages = await Promise.all(Array.from({ length: views }, () => context.newPage()));
    const responses = await Promise.all(pages.map((page) => page.goto(session.url)));
    expect(responses.map((response) => response!.status())).toEqual(Array(views).fill(200));
    const read = await api('GET', `/api/v1/portal/sessions/${session.id}`);
    expect(read.body.access_count).toBe(views);
    expect(read.body.last_accessed_at).toEqual(expect.any(Number));
    await context.close();
  });

  it('portal lookups are limited per IP: 429 with Retry-After and the portal headers; another address is unaffected', async () => {
    const session = await portal({ customer_id: world.ada.id });
    // Each answer is read to its end: a page streams on after its headers, and is in flight until then.
    const from = async (ip: string) => {
      const response = await fetch(session.url, { headers: { 'x-forwarded-for': ip } });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    };
    // In waves of ten: within what an instance always serves at once (16 on PGlite), since more at once
    // may be refused with 503 service_busy, which is the bound's answer, not the limit's.
    const burst: Awaited<ReturnType<typeof from>>[] = [];
    while (burst.length < PORTAL_LIMIT + 10) burst.push(...(await Promise.all(Array.from({ length: 10 }, () => from('203.0.113.77')))));
    expect(burst.filter((response) => response.status === 200).length).toBe(PORTAL_LIMIT);
    const limited = burst.filter((response) => response.status === 429);
    expect(limited.length).toBe(10);
    const first = limited[0]!;
    expect(Number(first.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectPortalHeaders(first.headers);
    expect(first.body).toContain('Too many requests');
    expect((await from('198.51.100.5')).status).toBe(200);
  });
});
