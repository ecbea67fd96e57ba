import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, consoleErrors, launchChromium, merchantLandingPage, newContext, screenshotAtWidths, startMerchantSite, stopStarted, type LaunchedBrowser } from '../support/browser';
import { callService, freePort, runAdminCli, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The hosted checkout and subscription pages of a store taxing by the buyer's country, in
 * Debian's Chromium against the real production server (`npm start`): the billing details before
 * the card, the VAT row and the amounts following them (in place with the form's script, with
 * `Update total` without it), refusals on their fields, and a total that changed before `Pay`
 * charging nothing. The store is switched to that mode in its database while the service is
 * stopped (PGlite is the service's alone). Every page's console is checked. Set
 * BUYER_COUNTRY_SCREENSHOTS=<dir> to keep screenshots at desktop and phone width.
 */
const AUTH_SECRET = 'browser-test-auth-secret';
const ADMIN_TOKEN = 'adm_buyercountrybrowsertestbuyercountry1';
const OPERATOR = { OPERATOR_LEGAL_NAME: 'Example Payments GmbH', OPERATOR_ADDRESS: 'Hauptstraße 1, 10115 Berlin, Germany', OPERATOR_VAT_ID: 'DE123456789', OPERATOR_EMAIL: 'billing@payments.example' };
const SCREENSHOTS = process.env.BUYER_COUNTRY_SCREENSHOTS;
const AUSTRIAN_CARD = '4000 0004 0000 0008';
const GERMAN_CARD = '4000 0027 6000 0016';
const OTHER_COUNTRY = 'This VAT ID belongs to another country than the billing country.';

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let merchant: Server;
let merchantOrigin = '';
let chromium: LaunchedBrowser;
let browser: Browser;
let sk = '';
let oneTime = '';
let monthly = '';

const api = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, sk, method, route, body);

async function createSession() {
  const created = await api('POST', '/api/v1/checkout/sessions', { price_id: oneTime, customer_email: 'ada@example.com', success_url: `${merchantOrigin}/thanks` });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; order_id: string };
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
}

/** Types into a billing field and leaves it, as a person moves on to the next one. */
async function enter(page: Page, label: string, value: string) {
  await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByLabel(label, { exact: true }).blur();
}

/** The summary's VAT row: its label and amount, then the total due. */
async function summary(page: Page) {
  const totals = page.locator('.co-totals');
  const vat = totals.locator('div', { has: page.locator('dt', { hasText: /VAT/ }) });
  return { vat: (await vat.locator('dt').textContent())!, tax: (await vat.locator('dd').textContent())!, total: (await totals.locator('.co-total dd').textContent())! };
}

const payButton = (page: Page) => page.getByRole('button', { name: /^Pay/ });

/** A field refused: aria-invalid, and its message tied to it. */
async function refusal(page: Page, label: string) {
  const field = page.getByLabel(label, { exact: true });
  const invalid = await field.getAttribute('aria-invalid');
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
  return { invalid, message: errorId ? await page.locator(`#${errorId}`).textContent() : null };
}

async function openPage(options: Parameters<typeof newContext>[1] = {}) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  return { context, page, errors: consoleErrors(page) };
}

async function screenshot(page: Page, name: string) {
  if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, name);
}

beforeAll(
  async () => {
    if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
    port = await freePort();
    ({ server: merchant, origin: merchantOrigin } = await startMerchantSite(merchantLandingPage('Thank you')));
    const storage = await serviceStorage('buyer-country-browser');
    cleanupStorage = storage.cleanup;
    const env = serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET, ADMIN_TOKEN, SUBSCRIPTIONS_ENABLED: 'true', ...OPERATOR });
    [service, chromium] = await Promise.all([startService(env), launchChromium()]);
    browser = chromium.browser;
    const created = await runAdminCli(`http://127.0.0.1:${port}`, ADMIN_TOKEN, ['store:create', '--name', 'Atlas Books', '--subscriptions', '--tax-mode', 'buyer_country']);
    expect(created.tax_mode).toBe('buyer_country');
    sk = created.keys.sk_test;
    oneTime = (await api('POST', '/api/v1/products', { name: 'Field guide to moths', amount: 1999 })).body.price_id;
    monthly = (await api('POST', '/api/v1/products', { name: 'Moth club', amount: 1999, mode: 'recurring', interval: 'month' })).body.price_id;
  },
  2 * START_TIMEOUT_MS + 60_000,
);

afterAll(() => stopStarted({ chromium, service, merchant, cleanupStorage }), 60_000);

describe('the checkout page with its script', () => {
  it('the VAT row asks for the country; each country, VAT ID and company updates the summary, heading, button and title in place; a VAT ID of another country is refused on its field; paid at the total shown', async () => {
    const session = await createSession();
    const { context, page, errors } = await openPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
    });
    await page.goto(session.url);
    expect(await summary(page)).toEqual({ vat: 'VAT (select your country)', tax: '€0.00', total: '€19.99' });
    // The script updates the total itself: no button for it.
    expect(await page.getByRole('button', { name: 'Update total' }).count()).toBe(0);
    const country = page.getByLabel('Country', { exact: true });
    expect(await country.inputValue()).toBe('');
    expect(await country.getAttribute('required')).not.toBeNull();
    const options = await country.locator('option').evaluateAll((elements) => elements.map((option) => [(option as HTMLOptionElement).value, option.textContent]));
    expect(options[0]).toEqual(['', 'Select your country']);
    expect(options.length).toBe(250);
    expect(options).toContainEqual(['DE', 'Germany']);
    expect(options).toContainEqual(['AT', 'Austria']);
    // Before the card: Country, Name, Company name, VAT ID, Address, Postal code, City.
    const labels = await page.locator('form label').allTextContents();
    expect(labels.slice(0, 8)).toEqual(['Country', 'Name', 'Company name', 'VAT ID', 'Address', 'Postal code', 'City', 'Card number']);
    await screenshot(page, 'checkout-before-country');

    await country.selectOption('DE');
    await expect.poll(() => summary(page)).toEqual({ vat: 'VAT 19% (Germany)', tax: '€3.80', total: '€23.79' });
    expect(await payButton(page).textContent()).toBe('Pay €23.79');
    expect(await page.locator('.co-amount').textContent()).toBe('€23.79');
    expect(await page.title()).toBe('Pay €23.79 to Atlas Books');
    await screenshot(page, 'checkout-germany');

    await country.selectOption('AT');
    await expect.poll(() => summary(page)).toEqual({ vat: 'VAT 20% (Austria)', tax: '€4.00', total: '€23.99' });
    expect(await payButton(page).textContent()).toBe('Pay €23.99');

    // An Austrian VAT ID with Germany as the country: refused on its field, with the fields a VAT ID needs.
    await country.selectOption('DE');
    await expect.poll(() => summary(page)).toMatchObject({ total: '€23.79' });
    await enter(page, 'VAT ID', 'ATU13585627');
    await expect.poll(() => refusal(page, 'VAT ID')).toEqual({ invalid: 'true', message: OTHER_COUNTRY });
    expect(await refusal(page, 'Company name')).toEqual({ invalid: 'true', message: "Enter the company name: a VAT ID needs the company's name and address on the invoice." });
    expect(await summary(page)).toMatchObject({ total: '€23.79' });
    await screenshot(page, 'checkout-refusal');

    // An Austrian company: reverse charge once its name and address are given.
    await country.selectOption('AT');
    await enter(page, 'Company name', 'Analytical Engines GmbH');
    await enter(page, 'Address', 'Ringstraße 1');
    await enter(page, 'Postal code', '1010');
    await enter(page, 'City', 'Wien');
    await expect.poll(() => summary(page)).toEqual({ vat: 'VAT 0% (reverse charge)', tax: '€0.00', total: '€19.99' });
    expect(await refusal(page, 'VAT ID')).toEqual({ invalid: null, message: null });
    expect(await payButton(page).textContent()).toBe('Pay €19.99');
    await screenshot(page, 'checkout-reverse-charge');

    await enter(page, 'VAT ID', '');
    await country.selectOption('US');
    await expect.poll(() => summary(page)).toEqual({ vat: 'No EU VAT', tax: '€0.00', total: '€19.99' });

    await country.selectOption('AT');
    await expect.poll(() => summary(page)).toMatchObject({ total: '€23.99' });
    // Only the billing fields go to the page's endpoint: never the card.
    expect(new Set(posts)).toEqual(new Set([`/checkout/${session.id}/billing`]));
    await fillCard(page, AUSTRIAN_CARD);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), payButton(page).click()]);
    const order = await api('GET', `/api/v1/orders/${session.order_id}`);
    expect(order.body).toMatchObject({ status: 'paid', amount_subtotal: 1999, amount_tax: 400, amount_total: 2399 });
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the checkout page without script', () => {
  it('Update total answers with the amounts for Germany; Pay after changing to Austria charges nothing and says the total changed; Pay again: paid 2399', async () => {
    const session = await createSession();
    const { context, page, errors } = await openPage({ javaScriptEnabled: false });
    await page.goto(session.url);
    await page.getByLabel('Country', { exact: true }).selectOption('DE');
    await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Update total' }).click();
    await expect.poll(() => summary(page)).toEqual({ vat: 'VAT 19% (Germany)', tax: '€3.80', total: '€23.79' });
    expect(await payButton(page).textContent()).toBe('Pay €23.79');
    expect(await page.getByLabel('Country', { exact: true }).inputValue()).toBe('DE');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Lovelace');

    await page.getByLabel('Country', { exact: true }).selectOption('AT');
    await fillCard(page, AUSTRIAN_CARD);
    await payButton(page).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('The total has changed to €23.99. Please check it and confirm.');
    expect(await summary(page)).toEqual({ vat: 'VAT 20% (Austria)', tax: '€4.00', total: '€23.99' });
    expect(await page.getByLabel('Country', { exact: true }).inputValue()).toBe('AT');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Lovelace');
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect((await api('GET', `/api/v1/orders/${session.order_id}`)).body.status).not.toBe('paid');
    await screenshot(page, 'checkout-total-changed');

    await fillCard(page, AUSTRIAN_CARD);
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks**`), payButton(page).click()]);
    expect((await api('GET', `/api/v1/orders/${session.order_id}`)).body).toMatchObject({ status: 'paid', amount_total: 2399 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a refusal comes back on its fields with what was typed; corrected, Update total gives the reverse charge', async () => {
    const session = await createSession();
    const { context, page, errors } = await openPage({ javaScriptEnabled: false });
    await page.goto(session.url);
    await page.getByLabel('Country', { exact: true }).selectOption('DE');
    await page.getByLabel('VAT ID', { exact: true }).fill('ATU13585627');
    await page.getByLabel('Company name', { exact: true }).fill('Analytical Engines GmbH');
    await page.getByRole('button', { name: 'Update total' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Please correct the VAT ID, address, postal code and city below.');
    expect(await refusal(page, 'VAT ID')).toEqual({ invalid: 'true', message: OTHER_COUNTRY });
    expect(await refusal(page, 'City')).toEqual({ invalid: 'true', message: "Enter the city: a VAT ID needs the company's name and address on the invoice." });
    expect(await refusal(page, 'Company name')).toEqual({ invalid: null, message: null });
    expect(await page.getByLabel('VAT ID', { exact: true }).inputValue()).toBe('ATU13585627');
    expect(await page.getByLabel('Company name', { exact: true }).inputValue()).toBe('Analytical Engines GmbH');
    expect(await page.getByLabel('Country', { exact: true }).inputValue()).toBe('DE');
    expect(await summary(page)).toEqual({ vat: 'VAT (select your country)', tax: '€0.00', total: '€19.99' });
    await screenshot(page, 'checkout-refusal-without-script');

    await page.getByLabel('Country', { exact: true }).selectOption('AT');
    await page.getByLabel('Address', { exact: true }).fill('Ringstraße 1');
    await page.getByLabel('Postal code', { exact: true }).fill('1010');
    await page.getByLabel('City', { exact: true }).fill('Wien');
    await page.getByRole('button', { name: 'Update total' }).click();
    await expect.poll(() => summary(page)).toEqual({ vat: 'VAT 0% (reverse charge)', tax: '€0.00', total: '€19.99' });
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByLabel('City', { exact: true }).inputValue()).toBe('Wien');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the subscription page', () => {
  it('the Name is the customer_name given; Germany taxes the first charge in place; subscribed at 2379 with a German card', async () => {
    const created = await api('POST', '/api/v1/subscriptions', {
      price_id: monthly,
      total_payments: 12,
      customer_email: 'ada@example.com',
      customer_name: 'Ada Lovelace',
      success_url: `${merchantOrigin}/welcome`,
    });
    expect(created.status).toBe(201);
    const { context, page, errors } = await openPage();
    await page.goto(created.body.url);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada Lovelace');
    expect(await summary(page)).toEqual({ vat: 'VAT (select your country)', tax: '€0.00', total: '€19.99' });
    await page.getByLabel('Country', { exact: true }).selectOption('DE');
    await expect.poll(() => summary(page)).toEqual({ vat: 'VAT 19% (Germany)', tax: '€3.80', total: '€23.79' });
    const subscribe = page.getByRole('button', { name: /^Subscribe/ });
    expect(await subscribe.textContent()).toBe('Subscribe: €23.79 every month');
    expect(await page.locator('.co-amount').textContent()).toBe('€23.79 every month');
    expect(await page.locator('.co-mandate').textContent()).toContain('to charge your card €23.79 every month until');
    await screenshot(page, 'subscription-germany');

    await fillCard(page, GERMAN_CARD);
    await Promise.all([page.waitForURL(`${merchantOrigin}/welcome**`), subscribe.click()]);
    const subscription = await api('GET', `/api/v1/subscriptions/${new URL(page.url()).searchParams.get('subscription_id')}`);
    expect(subscription.body).toMatchObject({ status: 'active', amount: 1999 });
    const orders = await api('GET', `/api/v1/orders?limit=1`);
    expect(orders.body.data[0]).toMatchObject({ amount_subtotal: 1999, amount_tax: 380, amount_total: 2379 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
