import { createHash, createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { callService, freePort, runAdminCli, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The hosted checkout page, paid with the test cards, in Debian's Chromium against the real
 * production server (`npm start`), one server and one browser for the file. The merchant's
 * success_url is a second local origin, so the redirect after the POST leaves the service, and it
 * serves the branded store's logo. Every page's console is checked: no error, no refused script.
 * Set CHECKOUT_SCREENSHOTS=<dir> to keep screenshots of the pages at desktop and phone width.
 */
const AUTH_SECRET = 'browser-test-auth-secret';
const ADMIN_TOKEN = 'adm_checkoutbrowsertestcheckoutbrowser1';
const OPERATOR = { OPERATOR_LEGAL_NAME: 'Example Payments GmbH', OPERATOR_ADDRESS: 'Hauptstraße 1, 10115 Berlin, Germany', OPERATOR_VAT_ID: 'DE123456789', OPERATOR_EMAIL: 'billing@payments.example' };
const SCREENSHOTS = process.env.CHECKOUT_SCREENSHOTS;
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32"><rect width="96" height="32" rx="6" fill="#0f766e"/></svg>';
const APPROVED = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';
/** Pays like 4242…; test mode then disputes the payment as fraudulent. */
const DISPUTED = '4000 0000 0000 0259';

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

/** Both widths (1280 and 375 px), when CHECKOUT_SCREENSHOTS names a directory. */
async function screenshot(page: Page, name: string) {
  if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, name);
}

/** The page's one inline script and the CSP source that allows it: they must match, and be all the page runs. */
async function inlineScriptHash(page: Page): Promise<string> {
  const scripts = await page.locator('script').evaluateAll((elements) => elements.map((element) => ({ src: element.getAttribute('src'), text: element.textContent ?? '' })));
  expect(scripts.map((script) => script.src)).toEqual([null]);
  return `'sha256-${createHash('sha256').update(scripts[0]!.text).digest('base64')}'`;
}

/** A page whose console the test checks once done with it. */
async function openPage(options: Parameters<typeof newContext>[1] = {}) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  return { context, page, errors: consoleErrors(page) };
}

/** A link signed like the service's own (server/kit/links.ts), with the test's AUTH_SECRET. */
function signed(id: string, expires: number): string {
  const signature = createHmac('sha256', AUTH_SECRET).update(`checkout:${id}:${expires}`).digest('base64url');
  return `http://localhost:${port}/checkout/${id}?expires=${expires}&signature=${signature}`;
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  port = await freePort();
  const landing = merchantLandingPage('Thank you');
  ({ server: merchant, origin: merchantOrigin } = await startMerchantSite((req, res) => {
    if (req.url !== '/logo.svg') return landing(req, res);
    res.writeHead(200, { 'content-type': 'image/svg+xml' });
    res.end(LOGO);
  }));

  const storage = await serviceStorage('checkout-browser');
  cleanupStorage = storage.cleanup;
  const started = Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET, ADMIN_TOKEN, ...OPERATOR })), launchChromium()]);
  [service, chromium] = await started;
  browser = chromium.browser;
  sk = /^ {2}sk_test {2}(\S+)$/m.exec(service.output())![1]!;
  const product = await api('POST', '/api/v1/products', { name: 'Field guide to moths', amount: 1250 });
  expect(product.status).toBe(201);
  priceId = product.body.price_id;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, merchant, cleanupStorage }), 60_000);

describe('hosted checkout in Chromium', () => {
  it('approve: 4242… lands on success_url with session_id; the session reads complete/paid; strict headers; the one script is the form’s, by hash; a clean console', async () => {
    const session = await createSession({ email: 'moth@example.com' });
    const { context, page, errors } = await openPage();
    const response = await page.goto(session.url);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    // No framework code on a page that takes card numbers: the form's own script alone, by its hash.
    expect(headers['content-security-policy']).toContain(`script-src ${await inlineScriptHash(page)};`);
    expect(headers['content-security-policy']).toContain(`form-action 'self' ${merchantOrigin}`);
    expect(headers['cache-control']).toContain('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(await page.title()).toBe('Pay €25.00 to Demo Store');

    await expect.poll(() => page.getByText('Field guide to moths').count()).toBe(1);
    expect(await page.locator('main').textContent()).toContain('€25.00');
    expect(await page.getByText(`Sold by ${OPERATOR.OPERATOR_LEGAL_NAME} on behalf of Demo Store`).count()).toBe(1);
    expect(await page.getByRole('contentinfo').textContent()).toContain(
      `${OPERATOR.OPERATOR_LEGAL_NAME}, ${OPERATOR.OPERATOR_ADDRESS}, VAT ID ${OPERATOR.OPERATOR_VAT_ID}, ${OPERATOR.OPERATOR_EMAIL}.`,
    );
    await expectContractLinks(page);
    // No Email field when the session already has customer_email.
    expect(await page.getByLabel('Email').count()).toBe(0);
    expect(await page.getByRole('banner').count()).toBe(1);
    // The stylesheet loads under the policy (it is same-origin), and nothing inline was refused.
    const payButton = page.getByRole('button', { name: /^Pay/ });
    expect(await payButton.evaluate((button) => getComputedStyle(button).backgroundColor)).toBe('rgb(29, 78, 216)');
    // Before a number is typed, every network accepted is shown (as text: it needs no script).
    expect(await page.getByRole('list', { name: 'Cards accepted' }).getByRole('listitem').allTextContents()).toEqual(['Visa', 'Mastercard', 'Amex', 'Discover']);
    await screenshot(page, 'checkout');

    await fillCard(page, APPROVED);
    // The card's network is marked as the number is typed; the other marks step aside.
    const marks = page.getByRole('list', { name: 'Cards accepted' });
    expect(await marks.getAttribute('data-brand')).toBe('visa');
    expect(await marks.getByRole('listitem').allTextContents()).toEqual(['Visa']);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('session_id')).toBe(session.id);
    expect(landed.searchParams.get('order')).toBe('42');

    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'complete', payment_status: 'paid', url: null });
    const order = await api('GET', `/api/v1/orders/${session.order_id}`);
    expect(order.body).toMatchObject({ status: 'paid' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('approve without success_url: the receipt page on the service origin, with lines, total, card, order id and seller; no test-card banner', async () => {
    const session = await createSession({ successUrl: false });
    const { context, page, errors } = await openPage();
    await page.goto(session.url);
    // No customer_email on the session: the page asks for one.
    expect(await page.getByLabel('Email').count()).toBe(1);
    await fillCard(page, APPROVED, { email: 'reader@example.com' });
    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[^/]+\/receipt/), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(new URL(page.url()).origin).toBe(`http://localhost:${port}`);
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain('Field guide to moths');
    expect(text).toContain('€25.00');
    expect(text).toContain('Visa ending in 4242');
    expect(text).toContain(session.order_id);
    expect(text).toContain(`Sold by ${OPERATOR.OPERATOR_LEGAL_NAME} on behalf of Demo Store`);
    expect(await page.title()).toBe('Receipt: €25.00 paid to Demo Store');
    await expectContractLinks(page);
    // The receipt takes no card: no test-card banner, and no script at all.
    expect(await page.getByRole('complementary', { name: 'Test mode' }).count()).toBe(0);
    expect(await page.getByText('4000 0000 0000 0002').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(0);
    await screenshot(page, 'receipt');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('dispute card: 4000…0259 pays like 4242… and lands on the receipt; by then the order has its dispute, fraudulent and in full', async () => {
    const session = await createSession({ successUrl: false, email: 'chargeback@example.com' });
    const { context, page, errors } = await openPage({ width: 375 });
    await page.goto(session.url);
    await fillCard(page, DISPUTED);
    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[^/]+\/receipt/), page.getByRole('button', { name: /^Pay/ }).click()]);
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain('€25.00');
    expect(text).toContain('Visa ending in 0259');
    expect(text).toContain(session.order_id);
    expect(await page.title()).toBe('Receipt: €25.00 paid to Demo Store');
    const order = (await api('GET', `/api/v1/orders/${session.order_id}`)).body;
    expect(order).toMatchObject({ status: 'paid', amount_total: 2500, dispute_id: expect.stringMatching(/^dp_test_/) });
    const dispute = await api('GET', `/api/v1/disputes/${order.dispute_id}`);
    expect(dispute.body).toMatchObject({ order_id: order.id, amount: 2500, reason: 'fraudulent', status: 'needs_response', livemode: false });
    await screenshot(page, 'receipt-disputed');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('decline: 4000…0002 shows an alert containing "declined"; a second submit is refused', async () => {
    const session = await createSession({ email: 'decline@example.com' });
    const { context, page, errors } = await openPage();
    await page.goto(session.url);
    const payUrl = await page.locator('form').getAttribute('action');
    await fillCard(page, DECLINED);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('declined');
    // After a decline the page offers no further attempt.
    expect(await page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await screenshot(page, 'declined');

    // A replayed POST (another tab, a back button) is answered with the failed page, no charge.
    const again = await context.request.post(new URL(payUrl!, page.url()).toString(), {
      form: { card_number: APPROVED, expiry: '12/34', cvc: '123' },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toContain(`/checkout/${session.id}?`);
    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'open', payment_status: 'failed' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('mistakes are caught in the page (no request): each field says what is wrong, the first takes the focus, the card number stays; then 1230 as expiry pays', async () => {
    const session = await createSession({});
    const { context, page, errors } = await openPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.goto(session.url);
    await fillCard(page, '4242 4242 4242 4241', { email: 'typo@' });
    await page.getByLabel('Expiry').fill('13/30');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Please correct the email address, card number and expiry date below.');
    expect(posts).toEqual([]);
    for (const [label, message] of [
      ['Email', 'Enter a valid email address for your receipt.'],
      ['Card number', 'This card number is not valid. Check it and try again.'],
      ['Expiry', 'Enter the expiry date as MM/YY.'],
    ]) {
      const input = page.getByLabel(label!, { exact: true });
      expect(await input.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await input.getAttribute('aria-describedby'))!;
      expect(await page.locator(`#${describedBy.split(' ').pop()}`).textContent()).toBe(message);
    }
    expect(await page.getByLabel('CVC').getAttribute('aria-invalid')).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    expect(await page.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4241');
    await screenshot(page, 'checkout-field-errors');

    // Corrected as people type them: the expiry without a slash.
    await page.getByLabel('Email').fill('typo@example.com');
    await page.getByLabel('Card number').fill(APPROVED);
    await page.getByLabel('Expiry').fill('1230');
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(posts).toHaveLength(1);
    expect((await api('GET', `/api/v1/checkout/sessions/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid', customer_email: 'typo@example.com' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('without JavaScript the server refuses what is wrong: the email is kept, the card number is not echoed, the focus is on the field; then 12 30 as expiry pays', async () => {
    const session = await createSession({});
    const { context, page, errors } = await openPage({ javaScriptEnabled: false, width: 375, height: 812 });
    await page.goto(session.url);
    await fillCard(page, '5555 5555 5555 4444', { email: 'nojs@example.com' });
    await Promise.all([page.waitForURL(/error=unsupported_test_card/), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(await page.getByRole('alert').textContent()).toBe('Please correct the card number below.');
    const input = page.getByLabel('Card number');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await input.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${describedBy.split(' ').pop()}`).textContent()).toMatch(/not one of the test cards/);
    expect(await input.inputValue()).toBe('');
    // The whole number, spaced or not, appears nowhere in the page (a bare '4444' could be a port in a URL).
    expect((await page.content()).replace(/\s/g, '')).not.toContain('5555555555554444');
    expect(await page.getByLabel('Email').inputValue()).toBe('nojs@example.com');
    // autofocus: the field to correct has the focus without any script.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('card_number');
    await screenshot(page, 'checkout-server-error');

    await fillCard(page, APPROVED);
    await page.getByLabel('Expiry').fill('12 30');
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('375 px: with an error under the expiry, the CVC input stays level with it', async () => {
    const session = await createSession({ email: 'phone@example.com' });
    const { context, page, errors } = await openPage({ width: 375, height: 812 });
    await page.goto(session.url);
    await fillCard(page, APPROVED);
    await page.getByLabel('Expiry').fill('01/20');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.locator('#expiry-error').textContent()).toBe('This card has expired. Use another card.');
    const expiry = (await page.getByLabel('Expiry').boundingBox())!;
    const cvc = (await page.getByLabel('CVC').boundingBox())!;
    expect(cvc.y).toBe(expiry.y);
    expect(cvc.height).toBe(expiry.height);
    // Side by side, inside the screen.
    expect(cvc.x).toBeGreaterThan(expiry.x + expiry.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'checkout-expiry-error');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a store with its logo, terms and privacy links: shown, the logo allowed by the CSP and loaded; the tax line names its rate', async () => {
    const store = await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, ['store:create', '--name', 'Moth & Co', '--tax-calculation']);
    const updated = await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, [
      'store:update',
      '--id',
      store.id,
      '--logo-url',
      `${merchantOrigin}/logo.svg`,
      '--terms-url',
      `${merchantOrigin}/terms`,
      '--privacy-url',
      `${merchantOrigin}/privacy`,
    ]);
    expect(updated).toMatchObject({ logo_url: `${merchantOrigin}/logo.svg`, terms_url: `${merchantOrigin}/terms`, privacy_url: `${merchantOrigin}/privacy` });
    const branded = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, store.keys.sk_test, method, route, body);
    const product = await branded('POST', '/api/v1/products', { name: 'Atlas of moths', amount: 4000, tax_rate: 19 });
    const session = (await branded('POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id })).body;

    const { context, page, errors } = await openPage();
    const response = await page.goto(session.url);
    expect(response!.headers()['content-security-policy']).toContain(`img-src 'self' data: ${merchantOrigin};`);
    expect(await page.title()).toBe('Pay €47.60 to Moth & Co');
    const logo = page.getByRole('banner').locator('img');
    expect(await logo.getAttribute('src')).toBe(`${merchantOrigin}/logo.svg`);
    await expect.poll(() => logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(96);
    expect(await page.getByRole('link', { name: 'Terms' }).getAttribute('href')).toBe(`${merchantOrigin}/terms`);
    expect(await page.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe(`${merchantOrigin}/privacy`);
    const summary = page.getByRole('region', { name: 'Order summary' });
    expect(await summary.getByRole('term').allTextContents()).toEqual(['Subtotal', 'VAT 19%', 'Total due']);
    expect(await summary.getByRole('definition').allTextContents()).toEqual(['€40.00', '€7.60', '€47.60']);
    expect(await page.getByText(`Sold by ${OPERATOR.OPERATOR_LEGAL_NAME} on behalf of Moth & Co`).count()).toBe(1);
    await screenshot(page, 'checkout-branded');

    // Removed again: no logo, no links, and the CSP names no other origin for images.
    await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, ['store:update', '--id', store.id, '--logo-url', '', '--terms-url', '', '--privacy-url', '']);
    const again = await page.goto(session.url);
    expect(again!.headers()['content-security-policy']).toContain("img-src 'self' data:;");
    expect(await page.getByRole('banner').locator('img').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Terms' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('no-JS submit: with JavaScript disabled the plain form still pays and redirects', async () => {
    const session = await createSession({ email: 'nojs@example.com' });
    const { context, page, errors } = await openPage({ javaScriptEnabled: false });
    await page.goto(session.url);
    await fillCard(page, APPROVED);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(new URL(page.url()).searchParams.get('session_id')).toBe(session.id);
    expect((await api('GET', `/api/v1/checkout/sessions/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('double submit: two tabs paying at once are charged once and both land on success_url', async () => {
    const session = await createSession({ email: 'twice@example.com' });
    const context = await newContext(browser);
    const tabs = await Promise.all([context.newPage(), context.newPage()]);
    const errors = tabs.map(consoleErrors);
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
    expect(await tabs[0]!.title()).toBe('Paid €25.00 to Demo Store');
    expect(errors).toEqual([[], []]);
    await context.close();
  });

  it('double click on Pay in one tab charges once', async () => {
    const session = await createSession({ email: 'dblclick@example.com' });
    const { context, page, errors } = await openPage();
    await page.goto(session.url);
    await fillCard(page, APPROVED);
    await page.getByRole('button', { name: /^Pay/ }).dblclick();
    // The second submission aborts the first one's navigation (net::ERR_ABORTED), so wait for
    // where the tab ends up rather than for one particular navigation.
    await expect.poll(() => page.url().startsWith(`${merchantOrigin}/thanks`), { timeout: 20_000 }).toBe(true);
    expect((await api('GET', `/api/v1/orders/${session.order_id}`)).body).toMatchObject({ status: 'paid' });
    expect(errors).toEqual([]);
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

    const { context, page, errors } = await openPage();
    for (const tampered of [badSignature, laterExpiry, otherId]) {
      const response = await page.goto(tampered.toString());
      expect(response!.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout link is not valid');
      expect(await page.getByLabel('Card number').count()).toBe(0);
      await expectContractLinks(page);
    }
    await screenshot(page, 'tampered');
    // The receipt of a session needs its own signature; the session id alone shows nothing.
    const receipt = await page.goto(`http://localhost:${port}/checkout/${session.id}/receipt?signature=forged`);
    expect(receipt!.status()).toBe(404);
    // Beyond the 404 status each answers with: nothing.
    expect(errors).toEqual([]);
    await context.close();
  });

  it('expired link: a correctly signed link past its expiry, and a session past its deadline, show "expired"', async () => {
    const session = await createSession({ email: 'late@example.com' });
    const { context, page, errors } = await openPage();
    await page.goto(signed(session.id, Math.floor(Date.now() / 1000) - 60));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout has expired');
    expect(await page.title()).toBe('Checkout expired · Demo Store');
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await screenshot(page, 'expired');

    // The store's test clock past the session's 24-hour deadline: the original link dies.
    const advanced = await api('POST', '/api/v1/test_helpers/advance_clock', { seconds: 25 * 3600 });
    expect(advanced.status).toBe(200);
    await page.goto(session.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This checkout has expired');
    expect((await api('GET', `/api/v1/checkout/sessions/${session.id}`)).body).toMatchObject({ status: 'expired', url: null });
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the receipt of a purchase with a license key and a file', () => {
  it('shows the key and a counted download link; after a refund in full the refund and no key or link, in the portal too; 30 days after the payment its link is no longer valid', async () => {
    // A store of its own: its test clock moves here.
    const store = await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, ['store:create', '--name', 'Moth Press']);
    const call = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, store.keys.sk_test, method, route, body);
    const product = (await call('POST', '/api/v1/products', { name: 'Moth atlas', amount: 3000 })).body;
    await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, ['product:attach-license', '--id', product.id]);
    await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, ['product:attach-file', '--id', product.id, '--url', `${merchantOrigin}/files/moth-atlas.pdf`]);
    const session = (await call('POST', '/api/v1/checkout/sessions', { price_id: product.price_id, customer_email: 'atlas@example.com' })).body;

    const { context, page, errors } = await openPage();
    await page.goto(session.url);
    await fillCard(page, APPROVED);
    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[^/]+\/receipt/), page.getByRole('button', { name: /^Pay/ }).click()]);
    const receiptAddress = page.url();
    const [licenseKey] = (await call('GET', `/api/v1/orders/${session.order_id}`)).body.license_keys;
    expect(await page.getByRole('heading', { name: 'License key' }).count()).toBe(1);
    expect(await page.getByText(licenseKey).count()).toBe(1);
    const link = page.getByRole('link', { name: 'Download Moth atlas' });
    expect(await page.getByText('(downloaded 0 of 20 times)').count()).toBe(1);
    const served = await page.request.get((await link.getAttribute('href'))!.replace(/^http:\/\/localhost:\d+/, `http://localhost:${port}`));
    expect(served.status()).toBe(200);
    await page.reload();
    expect(await page.getByText('(downloaded 1 of 20 times)').count()).toBe(1);
    expect((await call('GET', `/api/v1/orders/${session.order_id}`)).body.lines[0].download_count).toBe(1);

    const portal = (await call('POST', '/api/v1/portal/sessions', { order_id: session.order_id })).body;
    const portalPage = await context.newPage();
    await portalPage.goto(portal.url);
    expect(await portalPage.getByText(licenseKey).count()).toBe(1);
    expect(await portalPage.getByRole('link', { name: 'Download Moth atlas' }).count()).toBe(1);
    expect(await portalPage.getByText('(downloaded 1 of 20 times)').count()).toBe(1);

    const refund = await call('POST', '/api/v1/refunds', { order_id: session.order_id });
    expect(refund.body.status).toBe('succeeded');
    await page.reload();
    const text = (await page.locator('main').textContent())!;
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Payment refunded€30.00');
    expect(text).toContain('Refunded€30.00 (the whole payment)');
    expect(text).not.toContain(licenseKey);
    expect(text).not.toMatch(/LK-/);
    expect(await page.getByRole('heading', { name: /License key/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /Download/ }).count()).toBe(0);
    expect(await page.locator('a[href*="/download/"]').count()).toBe(0);
    await page.screenshot({ path: '/tmp/orders-receipt-refunded.png', fullPage: true });
    await screenshot(page, 'receipt-refunded');
    await portalPage.reload();
    expect(await portalPage.getByText(licenseKey).count()).toBe(0);
    expect(await portalPage.locator('a[href*="/download/"]').count()).toBe(0);
    const validation = await call('POST', '/api/v1/licenses/validate', { key: licenseKey });
    expect(validation.body).toMatchObject({ valid: false, status: 'revoked' });

    expect((await call('POST', '/api/v1/test_helpers/advance_clock', { seconds: 30 * 86_400 })).status).toBe(200);
    const expired = await page.goto(receiptAddress);
    expect(expired!.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This receipt link is no longer valid');
    await page.screenshot({ path: '/tmp/orders-receipt-expired.png', fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});
