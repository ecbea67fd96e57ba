import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, merchantLandingPage, newContext, startMerchantSite, stopStarted, type LaunchedBrowser } from '../support/browser';
import { callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The hosted checkout page, paid with the test cards, in Debian's Chromium against the real
 * production server (`npm start`), one server and one browser for the file. The merchant's
 * success_url is a second local origin, so the redirect after the POST leaves the service.
 * Set CHECKOUT_SCREENSHOTS=<dir> to keep screenshots of the pages at desktop and phone width.
 */
const AUTH_SECRET = 'browser-test-auth-secret';
const SCREENSHOTS = process.env.CHECKOUT_SCREENSHOTS;
const APPROVED = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let merchant: Server;
let merchantOrigin = '';
let chromium: LaunchedBrowser;
let browser: Browser;
let sk = '';
let priceId = '';

const api = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, sk, method, route, body);

async function createSession(options: { successUrl?: boolean; email?: string } = {}) {
  const created = await api('POST', '/api/v1/checkout/sessions', {
    price_id: priceId,
    quantity: 2,
    ...(options.successUrl === false ? {} : { success_url: `${merchantOrigin}/thanks?order=42`, cancel_url: `${merchantOrigin}/cart` }),
    ...(options.email ? { customer_email: options.email } : {}),
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; order_id: string };
}

async function fillCard(page: Page, number: string, options: { email?: string } = {}) {
  if (options.email) await page.getByLabel('Email').fill(options.email);
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
}

async function screenshot(page: Page, name: string) {
  if (!SCREENSHOTS) return;
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A link signed like the service's own (server/kit/links.ts), with the test's AUTH_SECRET. */
function signed(id: string, expires: number): string {
  const signature = createHmac('sha256', AUTH_SECRET).update(`checkout:${id}:${expires}`).digest('base64url');
  return `http://localhost:${port}/checkout/${id}?expires=${expires}&signature=${signature}`;
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  port = await freePort();
  ({ server: merchant, origin: merchantOrigin } = await startMerchantSite(merchantLandingPage('Thank you')));

  const storage = await serviceStorage('checkout-browser');
  cleanupStorage = storage.cleanup;
  const started = Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET })), launchChromium()]);
  [service, chromium] = await started;
  browser = chromium.browser;
  sk = /^ {2}sk_test {2}(\S+)$/m.exec(service.output())![1]!;
  const product = await api('POST', '/api/v1/products', { name: 'Field guide to moths', amount: 1250 });
  expect(product.status).toBe(201);
  priceId = product.body.price_id;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, merchant, cleanupStorage }), 60_000);

describe('hosted checkout in Chromium', () => {
  it('approve: 4242… lands on success_url with session_id; the session reads complete/paid; strict headers', async () => {
    const session = await createSession({ email: 'moth@example.com' });
    const context = await newContext(browser);
    const page = await context.newPage();
    const styleViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/.test(message.text()) && /style/i.test(message.text())) styleViolations.push(message.text());
    });
    const response = await page.goto(session.url);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    // No script at all on a page that takes card numbers; the form needs none.
    expect(headers['content-security-policy']).toMatch(/script-src 'none'/);
    expect(headers['content-security-policy']).toContain(`form-action 'self' ${merchantOrigin}`);
    expect(headers['cache-control']).toContain('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-content-type-options']).toBe('nosniff');

    await expect.poll(() => page.getByText('Field guide to moths').count()).toBe(1);
    expect(await page.locator('main').textContent()).toContain('€25.00');
    // No Email field when the session already has customer_email.
    expect(await page.getByLabel('Email').count()).toBe(0);
    expect(await page.getByRole('banner').count()).toBe(1);
    // The stylesheet loads under the policy (it is same-origin), and nothing inline was refused.
    const payButton = page.getByRole('button', { name: /^Pay/ });
    expect(await payButton.evaluate((button) => getComputedStyle(button).backgroundColor)).toBe('rgb(29, 78, 216)');
    expect(styleViolations).toEqual([]);
    await screenshot(page, 'checkout-desktop');

    await fillCard(page, APPROVED);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('session_id')).toBe(session.id);
    expect(landed.searchParams.get('order')).toBe('42');

    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'complete', payment_status: 'paid', url: null });
    const order = await api('GET', `/api/v1/orders/${session.order_id}`);
    expect(order.body).toMatchObject({ status: 'paid' });
    await context.close();
  });

  it('approve without success_url: the receipt page on the service origin, with lines, total, card and order id', async () => {
    const session = await createSession({ successUrl: false });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(session.url);
    // No customer_email on the session: the page asks for one.
    expect(await page.getByLabel('Email').count()).toBe(1);
    await fillCard(page, APPROVED, { email: 'reader@example.com' });
    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[^/]+\/receipt/), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(new URL(page.url()).origin).toBe(`http://localhost:${port}`);
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain('Field guide to moths');
    expect(text).toContain('€25.00');
    expect(text).toContain('4242');
    expect(text).toContain(session.order_id);
    await screenshot(page, 'receipt-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'receipt-mobile');
    await context.close();
  });

  it('decline: 4000…0002 shows an alert containing "declined"; a second submit is refused', async () => {
    const session = await createSession({ email: 'decline@example.com' });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(session.url);
    const payUrl = await page.locator('form').getAttribute('action');
    await fillCard(page, DECLINED);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('declined');
    // After a decline the page offers no further attempt.
    expect(await page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await screenshot(page, 'declined-desktop');

    // A replayed POST (another tab, a back button) is answered with the failed page, no charge.
    const again = await context.request.post(new URL(payUrl!, page.url()).toString(), {
      form: { card_number: APPROVED, expiry: '12/34', cvc: '123' },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toContain(`/checkout/${session.id}?`);
    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'open', payment_status: 'failed' });
    await context.close();
  });

  it('field errors: a Luhn-invalid number is flagged on its field, with aria-invalid; the card number is not echoed, the email is kept', async () => {
    const session = await createSession({});
    const context = await newContext(browser, { width: 390, height: 844 });
    const page = await context.newPage();
    await page.goto(session.url);
    await screenshot(page, 'checkout-mobile');
    await fillCard(page, '4242 4242 4242 4241', { email: 'typo@example.com' });
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    const input = page.getByLabel('Card number');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await input.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${describedBy.split(' ').pop()}`).textContent()).toMatch(/not valid/);
    expect(await input.inputValue()).toBe('');
    // The whole number, spaced or not, appears nowhere in the page (a bare '4241' could be a port in a URL).
    expect((await page.content()).replace(/\s/g, '')).not.toContain('4242424242424241');
    expect(await page.getByLabel('Email').inputValue()).toBe('typo@example.com');
    await screenshot(page, 'field-error-mobile');

    // The session is still payable after a local validation failure.
    await fillCard(page, APPROVED);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    await context.close();
  });

  it('no-JS submit: with JavaScript disabled the plain form still pays and redirects', async () => {
    const session = await createSession({ email: 'nojs@example.com' });
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(session.url);
    await fillCard(page, APPROVED);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(new URL(page.url()).searchParams.get('session_id')).toBe(session.id);
    expect((await api('GET', `/api/v1/checkout/sessions/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
    await context.close();
  });

  it('double submit: two tabs paying at once are charged once and both land on success_url', async () => {
    const session = await createSession({ email: 'twice@example.com' });
    const context = await newContext(browser);
    const tabs = await Promise.all([context.newPage(), context.newPage()]);
    for (const tab of tabs) {
      await tab.goto(session.url);
      await fillCard(tab, APPROVED);
    }
    await Promise.all(tabs.map((tab) => Promise.all([tab.waitForURL(`${merchantOrigin}/thanks**`), tab.getByRole('button', { name: /^Pay/ }).click()])));
    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'complete', payment_status: 'paid' });
    const order = await api('GET', `/api/v1/orders/${session.order_id}`);
    expect(order.body).toMatchObject({ status: 'paid', amount_total: 2500 });
    // Revisiting the link afterwards shows the payment, not a form.
    await tabs[0]!.goto(session.url);
    expect(await tabs[0]!.getByRole('heading', { name: 'Already paid' }).count()).toBe(1);
    expect(await tabs[0]!.getByLabel('Card number').count()).toBe(0);
    await context.close();
  });

  it('double click on Pay in one tab charges once', async () => {
    const session = await createSession({ email: 'dblclick@example.com' });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(session.url);
    await fillCard(page, APPROVED);
    await page.getByRole('button', { name: /^Pay/ }).dblclick();
    // The second submission aborts the first one's navigation (net::ERR_ABORTED), so wait for
    // where the tab ends up rather than for one particular navigation.
    await expect.poll(() => page.url().startsWith(`${merchantOrigin}/thanks`), { timeout: 20_000 }).toBe(true);
    expect((await api('GET', `/api/v1/orders/${session.order_id}`)).body).toMatchObject({ status: 'paid' });
    await context.close();
  });

  it('tampered link: a changed signature, expiry or id shows the error page with 404', async () => {
    const session = await createSession({ email: 'tamper@example.com' });
    const other = await createSession({ email: 'tamper2@example.com' });
    const url = new URL(session.url);
    const badSignature = new URL(url);
    const signature = url.searchParams.get('signature')!;
    badSignature.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const laterExpiry = new URL(url);
    laterExpiry.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const otherId = new URL(url);
    otherId.pathname = `/checkout/${other.id}`;

    const context = await newContext(browser);
    const page = await context.newPage();
    for (const tampered of [badSignature, laterExpiry, otherId]) {
      const response = await page.goto(tampered.toString());
      expect(response!.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout link is not valid');
      expect(await page.getByLabel('Card number').count()).toBe(0);
    }
    await screenshot(page, 'tampered-desktop');
    // The receipt of a session needs its own signature; the session id alone shows nothing.
    const receipt = await page.goto(`http://localhost:${port}/checkout/${session.id}/receipt?signature=forged`);
    expect(receipt!.status()).toBe(404);
    await context.close();
  });

  it('expired link: a correctly signed link past its expiry, and a session past its deadline, show "expired"', async () => {
    const session = await createSession({ email: 'late@example.com' });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(signed(session.id, Math.floor(Date.now() / 1000) - 60));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout has expired');
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await screenshot(page, 'expired-desktop');

    // The store's test clock past the session's 24-hour deadline: the original link dies.
    const advanced = await api('POST', '/api/v1/test_helpers/advance_clock', { seconds: 25 * 3600 });
    expect(advanced.status).toBe(200);
    await page.goto(session.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout has expired');
    expect((await api('GET', `/api/v1/checkout/sessions/${session.id}`)).body).toMatchObject({ status: 'expired', url: null });
    await context.close();
  });
});
