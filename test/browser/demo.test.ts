import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page, Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, newContext, type LaunchedBrowser } from '../support/browser';
import { freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, stopService, type Service } from '../support/production-server';

/**
 * Issue 6: the browser client library on the demo merchant pages (/demo), in Debian's Chromium
 * against the real production server (`npm start`): Buy → hosted page → the merchant's success
 * page; the embedded forms end on three_d_secure_required with a way on to the hosted page.
 */
const APPROVED = '4242 4242 4242 4242';

let port = 0;
let origin = '';
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
let sk = '';
let dataDir = '';

async function api(route: string) {
  const response = await fetch(`${origin}${route}`, { headers: { authorization: `Bearer ${sk}` } });
  return { status: response.status, body: (await response.json()) as any };
}

function confirmRequests(page: Page): BrowserRequest[] {
  const seen: BrowserRequest[] = [];
  page.on('request', (request) => {
    if (/\/api\/v1\/checkout\/sessions\/[^/]+\/confirm$/.test(request.url()) && request.method() === 'POST') seen.push(request);
  });
  return seen;
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  port = await freePort();
  origin = `http://localhost:${port}`;
  const storage = await serviceStorage('demo-browser');
  cleanupStorage = storage.cleanup;
  dataDir = storage.env.DATA_DIR!;
  [service, chromium] = await Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'demo-browser-auth-secret' })), launchChromium()]);
  browser = chromium.browser;
  sk = /^ {2}sk_test {2}(\S+)$/m.exec(service.output())![1]!;
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await chromium?.close();
  if (service) await stopService(service);
  await cleanupStorage();
}, 60_000);

describe('demo merchant page (issue 6)', () => {
  it('the demo store’s test keys (and only those) are kept for the demo, mode 0600', async () => {
    const file = path.join(dataDir, 'demo-store-test-keys.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await readFile(file, 'utf8'));
    expect(kept).toEqual({ storeId: expect.stringMatching(/^acct_/), sk_test: sk, pk_test: /^ {2}pk_test {2}(\S+)$/m.exec(service.output())![1] });
  });

  it('Buy creates a session on the merchant server, redirectToCheckout opens the hosted page, paying with 4242… lands on /demo/success, which reads the session as paid', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${origin}/demo`);
    expect(await page.getByRole('heading', { name: 'Demo ebook' }).count()).toBe(1);
    expect(await page.locator('main').textContent()).toContain('€19.99');

    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[0-9A-Za-z]+\?expires=/), page.getByRole('button', { name: 'Buy' }).click()]);
    const sessionId = /\/checkout\/(cs_test_[0-9A-Za-z]+)/.exec(page.url())![1]!;
    await page.getByLabel('Email').fill('demo-buyer@example.com');
    await page.getByLabel('Card number').fill(APPROVED);
    await page.getByLabel('Expiry').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await Promise.all([page.waitForURL(`${origin}/demo/success?session_id=${sessionId}`), page.getByRole('button', { name: /^Pay/ }).click()]);

    expect(await page.getByRole('heading', { name: 'Thank you for your order' }).count()).toBe(1);
    expect(await page.getByRole('status').textContent()).toContain(`Paid: €19.99. Checkout ${sessionId}.`);
    const read = await api(`/api/v1/checkout/sessions/${sessionId}`);
    expect(read.body).toMatchObject({ status: 'complete', payment_status: 'paid', amount_total: 1999, success_url: `${origin}/demo/success`, metadata: { source: 'demo' } });
    await context.close();
  });

  it('/demo/success without a valid session id says so, and an unpaid session is not shown as paid', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${origin}/demo/success?session_id=cs_test_000000000000000000000000`);
    expect(await page.getByRole('heading', { name: 'Order not found' }).count()).toBe(1);
    await page.goto(`${origin}/demo/success?session_id=%3Cscript%3E`);
    expect(await page.getByRole('heading', { name: 'Order not found' }).count()).toBe(1);
    await context.close();
  });
});

describe('embedded forms on /demo/embedded (spec 4.5)', () => {
  it('SecureCheckoutForm: card inputs in a frame from the service origin under its own CSP; local errors send nothing; a confirm ends on three_d_secure_required and the continue button opens the hosted page', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const confirms = confirmRequests(page);
    await page.goto(`${origin}/demo/embedded`);
    const frameResponse = page.waitForResponse((response) => new URL(response.url()).pathname === '/embed/card');
    await page.getByRole('button', { name: 'Start an embedded checkout' }).click();
    const headers = (await frameResponse).headers();
    expect(headers['content-security-policy']).toContain(`frame-ancestors ${origin}`);
    expect(headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['x-frame-options']).toBeUndefined();
    expect(headers['cache-control']).toContain('no-store');

    const frame = page.frameLocator('iframe[title="Secure card payment"]');
    const pay = frame.getByRole('button', { name: 'Pay' });
    await expect.poll(() => pay.isEnabled()).toBe(true);
    // Nothing valid yet: field errors in the frame, tied to their fields, and no request.
    await pay.click();
    await expect.poll(() => frame.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    const describedBy = await frame.getByLabel('Card number').getAttribute('aria-describedby');
    expect(await frame.locator(`#${describedBy}`).textContent()).toContain('card number');
    expect(await frame.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    expect(confirms).toHaveLength(0);

    await frame.getByLabel('Email').fill('embedded@example.com');
    // Formatted as typed.
    await frame.getByLabel('Card number').pressSequentially('4242424242424242');
    expect(await frame.getByLabel('Card number').inputValue()).toBe(APPROVED);
    await frame.getByLabel('Expiry').fill('12/34');
    await frame.getByLabel('CVC').fill('123');
    await pay.click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('3-D Secure');
    expect(confirms).toHaveLength(1);
    // The card went nowhere: the confirm carries the client secret only, to the service origin.
    expect(new URL(confirms[0]!.url()).origin).toBe(origin);
    expect(Object.keys(confirms[0]!.postDataJSON())).toEqual(['client_secret']);
    expect(await page.locator('main').textContent()).toContain('three_d_secure_required');

    await Promise.all([
      page.waitForURL(/\/checkout\/cs_test_[0-9A-Za-z]+\?expires=/),
      alert.getByRole('button', { name: 'Continue on the secure payment page' }).click(),
    ]);
    expect(await page.getByLabel('Card number').count()).toBe(1);
    await context.close();
  });

  it('CheckoutForm, keyboard only: labelled fields, the number formatted as typed, Enter confirms, three_d_secure_required with the continue button', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const confirms = confirmRequests(page);
    await page.goto(`${origin}/demo/embedded`);
    await page.getByRole('button', { name: 'Start an embedded checkout' }).focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('region', { name: 'Card fields in this page (CheckoutForm)' });
    await form.getByLabel('Card number').focus();
    await page.keyboard.type('4000000000000002');
    expect(await form.getByLabel('Card number').inputValue()).toBe('4000 0000 0000 0002');
    await page.keyboard.press('Tab');
    await page.keyboard.type('01/20');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    // A past expiry is caught in the page: tied to its field, focused, nothing sent.
    await expect.poll(() => form.getByLabel('Expiry').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('expiry');
    expect(confirms).toHaveLength(0);

    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('12/34');
    await page.keyboard.press('Enter');
    const alert = form.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('3-D Secure');
    expect(confirms).toHaveLength(1);
    expect(await form.getByLabel('Expiry').getAttribute('aria-invalid')).toBeNull();
    await alert.getByRole('button', { name: 'Continue on the secure payment page' }).focus();
    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[0-9A-Za-z]+\?expires=/), page.keyboard.press('Enter')]);
    await context.close();
  });

  it('the card frame refuses an address without the embedding origin; the confirm endpoint answers CORS preflights for merchant pages', async () => {
    const bare = await fetch(`${origin}/embed/card`);
    expect(bare.status).toBe(400);
    expect(bare.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const preflight = await fetch(`${origin}/api/v1/checkout/sessions/cs_test_x/confirm`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
  });
});
