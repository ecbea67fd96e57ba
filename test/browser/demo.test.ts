import { readFile, stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page, Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, consoleErrors, launchChromium, newContext, startMerchantSite, stopStarted, type LaunchedBrowser } from '../support/browser';
import { callService, freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The browser client library on the demo merchant pages (/demo), in Debian's Chromium
 * against the real production server (`npm start`): Buy → hosted page → the merchant's success
 * page; the embedded forms end on three_d_secure_required with a way on to the hosted page.
 * Then on a merchant page of another origin (a second local server with the library bundled
 * by esbuild, as a merchant's build would): the frame, CORS and origin checks across origins.
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
let merchant: Server;
let merchantOrigin = '';
const merchantSessions = new Map<string, { client_secret: string; url: string }>();

const api = (route: string, body?: unknown) => callService(origin, sk, body === undefined ? 'GET' : 'POST', route, body);

/** The merchant's page script: React and the library from source, bundled for the browser. */
const MERCHANT_APP = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { CheckoutForm, SecureCheckoutForm, ServiceProvider } from './packages/client/index.ts';
const config = JSON.parse(document.getElementById('config').textContent);
const props = { clientSecret: config.clientSecret, checkoutUrl: config.checkoutUrl };
createRoot(document.getElementById('root')).render(
  h(ServiceProvider, { publishableKey: config.publishableKey, apiBaseUrl: config.apiBaseUrl },
    h('section', { 'aria-label': 'Secure form' }, h(SecureCheckoutForm, props)),
    h('section', { 'aria-label': 'In-page form' }, h(CheckoutForm, { ...props, submitLabel: 'Pay in page' }))));
`;

async function startMerchant(publishableKey: string): Promise<void> {
  const bundled = await build({
    stdin: { contents: MERCHANT_APP, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'iife',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
  });
  const script = bundled.outputFiles[0]!.text;
  ({ server: merchant, origin: merchantOrigin } = await startMerchantSite((req, res) => {
    const url = new URL(req.url ?? '/', merchantOrigin);
    const session = merchantSessions.get(url.searchParams.get('session') ?? '');
    if (url.pathname === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(script);
    }
    if (url.pathname === '/checkout' && session) {
      const config = JSON.stringify({ publishableKey, apiBaseUrl: origin, clientSecret: session.client_secret, checkoutUrl: session.url }).replace(/</g, '\\u003c');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        `<!doctype html><html lang="en"><title>Merchant checkout</title><main id="root"></main><script type="application/json" id="config">${config}</script><script src="/app.js"></script></html>`,
      );
    }
    if (url.pathname === '/impostor') {
      // Frames the card page claiming to be another origin.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><title>Impostor</title><iframe title="card" src="${origin}/embed/card?origin=${encodeURIComponent('https://shop.example')}"></iframe>`);
    }
    res.writeHead(404).end();
  }));
}

async function createMerchantSession(): Promise<string> {
  const listed = await api('/api/v1/products?mode=one_time&limit=1');
  const created = await api('/api/v1/checkout/sessions', { price_id: listed.body.data[0].price_id, success_url: `${merchantOrigin}/thanks` });
  expect(created.status).toBe(201);
  merchantSessions.set(created.body.id, created.body);
  return created.body.id;
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
  await startMerchant(/^ {2}pk_test {2}(\S+)$/m.exec(service.output())![1]!);
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, merchant, cleanupStorage }), 60_000);

/**
 * The console of an embedded form's page: the confirm answers 400 three_d_secure_required by
 * contract (the card must be entered on the hosted page), and Chromium reports that status; any
 * other entry is an error.
 */
function beyondTheConfirmRefusal(errors: string[]): string[] {
  return errors.filter(
    (error) => !/^console: Failed to load resource: the server responded with a status of 400 \(Bad Request\) \(.*\/api\/v1\/checkout\/sessions\/cs_test_[0-9A-Za-z]+\/confirm\)$/.test(error),
  );
}

describe('the service’s own pages', () => {
  it('the landing page, the API reference and the card frame open with a clean console; the favicon is served', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = consoleErrors(page);
    await page.goto(`${origin}/`);
    expect(await page.getByRole('link', { name: 'Demo shop' }).getAttribute('href')).toBe('/demo');
    await page.goto(`${origin}/docs`);
    expect(await page.getByRole('heading', { level: 1 }).count()).toBeGreaterThan(0);
    await page.goto(`${origin}/embed/card?origin=${encodeURIComponent(origin)}`);
    expect(await page.getByLabel('Card number').count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
    const icon = await fetch(`${origin}/favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/x-icon']);
    expect(Buffer.from(await icon.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  });
});

describe('demo merchant page', () => {
  it('the demo store’s test keys (and only those) are kept for the demo, mode 0600', async () => {
    const file = path.join(dataDir, 'demo-store-test-keys.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await readFile(file, 'utf8'));
    expect(kept).toEqual({ storeId: expect.stringMatching(/^acct_/), sk_test: sk, pk_test: /^ {2}pk_test {2}(\S+)$/m.exec(service.output())![1] });
  });

  it('Buy creates a session on the merchant server, redirectToCheckout opens the hosted page, paying with 4242… lands on /demo/success, which reads the session as paid', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = consoleErrors(page);
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
    // The ebook issues a license key: the success page hands it over.
    const order = await api(`/api/v1/orders/${read.body.order_id}`);
    expect(order.body.license_keys).toHaveLength(1);
    expect(await page.getByRole('heading', { name: 'Your license key' }).count()).toBe(1);
    expect(await page.locator('main li code').allTextContents()).toEqual(order.body.license_keys);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('/demo/success without a valid session id says so, and an unpaid session is not shown as paid', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = consoleErrors(page);
    await page.goto(`${origin}/demo/success?session_id=cs_test_000000000000000000000000`);
    expect(await page.getByRole('heading', { name: 'Order not found' }).count()).toBe(1);
    await page.goto(`${origin}/demo/success?session_id=%3Cscript%3E`);
    expect(await page.getByRole('heading', { name: 'Order not found' }).count()).toBe(1);
    // Landing on the success URL proves nothing: an open, unpaid session reads as such.
    const listed = await api('/api/v1/products?mode=one_time&limit=1');
    const unpaid = await api('/api/v1/checkout/sessions', { price_id: listed.body.data[0].price_id });
    await page.goto(`${origin}/demo/success?session_id=${unpaid.body.id}`);
    expect(await page.getByRole('heading', { name: 'Payment not received' }).count()).toBe(1);
    expect(await page.getByRole('status').textContent()).toContain('This checkout is open and unpaid.');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('embedded forms on /demo/embedded', () => {
  it('SecureCheckoutForm: card inputs in a frame from the service origin under its own CSP; local errors send nothing; a confirm ends on three_d_secure_required and the continue button opens the hosted page', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = consoleErrors(page);
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
    // Next's route announcer is a second role=alert on the page: look inside the form's section.
    const alert = page.getByRole('region', { name: 'Card in a secure frame (SecureCheckoutForm)' }).getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('3-D Secure');
    expect(confirms).toHaveLength(1);
    // The card went nowhere: the confirm carries the client secret only, to the service origin.
    expect(new URL(confirms[0]!.url()).origin).toBe(origin);
    expect(Object.keys(confirms[0]!.postDataJSON())).toEqual(['client_secret']);
    expect(await page.locator('main').textContent()).toContain('three_d_secure_required');

    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[0-9A-Za-z]+\?expires=/), alert.getByRole('button', { name: 'Continue on the secure payment page' }).click()]);
    expect(await page.getByLabel('Card number').count()).toBe(1);
    expect(beyondTheConfirmRefusal(errors)).toEqual([]);
    await context.close();
  });

  it('CheckoutForm, keyboard only: labelled fields, the number formatted as typed, Enter confirms, three_d_secure_required with the continue button', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = consoleErrors(page);
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
    expect(beyondTheConfirmRefusal(errors)).toEqual([]);
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

describe('the library on a merchant page of another origin', () => {
  it('the card frame comes from the service origin; every request with card data goes there only; CORS lets the in-page form confirm; both end on three_d_secure_required', async () => {
    const sessionId = await createMerchantSession();
    const context = await newContext(browser);
    const page = await context.newPage();
    const posts: BrowserRequest[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request);
    });
    await page.goto(`${merchantOrigin}/checkout?session=${sessionId}`);

    const secure = page.getByRole('region', { name: 'Secure form' });
    const frame = secure.frameLocator('iframe[title="Secure card payment"]');
    expect(new URL((await secure.locator('iframe').getAttribute('src'))!).origin).toBe(origin);
    await expect.poll(() => frame.getByRole('button', { name: 'Pay' }).isEnabled()).toBe(true);
    await frame.getByLabel('Card number').fill(APPROVED);
    await frame.getByLabel('Expiry').fill('12/34');
    await frame.getByLabel('CVC').fill('123');
    await frame.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => secure.getByRole('alert').textContent()).toContain('3-D Secure');

    const inPage = page.getByRole('region', { name: 'In-page form' });
    await inPage.getByLabel('Card number').fill(APPROVED);
    await inPage.getByLabel('Expiry').fill('12/34');
    await inPage.getByLabel('CVC').fill('123');
    await inPage.getByRole('button', { name: 'Pay in page' }).click();
    // A CORS refusal would be a network_error ("could not be reached").
    await expect.poll(() => inPage.getByRole('alert').textContent()).toContain('3-D Secure');

    expect(posts.map((request) => new URL(request.url()).pathname)).toEqual([`/api/v1/checkout/sessions/${sessionId}/confirm`, `/api/v1/checkout/sessions/${sessionId}/confirm`]);
    for (const request of posts) {
      expect(new URL(request.url()).origin).toBe(origin);
      expect(request.postDataJSON()).toEqual({ client_secret: merchantSessions.get(sessionId)!.client_secret });
    }

    await Promise.all([page.waitForURL(`${origin}/checkout/${sessionId}?**`), secure.getByRole('button', { name: 'Continue on the secure payment page' }).click()]);
    expect(await page.getByLabel('Card number').count()).toBe(1);
    await context.close();
  });

  it('frame-ancestors: a page framing the card frame under another origin’s name is refused by the browser', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
    });
    const framed = page.waitForResponse((response) => new URL(response.url()).pathname === '/embed/card');
    await page.goto(`${merchantOrigin}/impostor`);
    expect((await framed).headers()['content-security-policy']).toContain('frame-ancestors https://shop.example');
    await expect.poll(() => refusals.length).toBeGreaterThan(0);
    expect(await page.frameLocator('iframe[title="card"]').getByLabel('Card number').count()).toBe(0);
    await context.close();
  });
});
