import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '@/db/client';
import { chromiumAvailable, consoleErrors, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { createCoupon, createPromotionCode } from '../support/coupons';
import { createStore } from '../support/factories';
import { callService, freePort, serviceDatabase, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * Discounts on the hosted checkout page in Debian's Chromium against the real production server
 * (`npm start`): a promotion code applied (the summary's row and total), removed, refused; a
 * discounted total paid with a card; a total of 0 paid without card fields. The coupons are
 * written into the service's database before it starts. Set CHECKOUT_SCREENSHOTS=<dir> to keep
 * screenshots of the pages at desktop and phone width.
 */
const SCREENSHOTS = process.env.CHECKOUT_SCREENSHOTS;

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
const world = { sk: '', freeCoupon: '' };

const api = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, world.sk, method, route, body);

/** The store taxing at the product's 19 %, its codes and a coupon of 100 %, written before the service opens the database. */
async function seedDatabase(env: Record<string, string>) {
  const handle = await openMigratedDatabase(serviceDatabase(env));
  try {
    const store = await createStore(handle, { name: 'Moth Books', taxCalculation: true });
    world.sk = store.keys.sk_test;
    const scope = { storeId: store.id, livemode: false };
    await createPromotionCode(handle.db, await createCoupon(handle.db, scope, { name: 'Summer sale', percentOff: 15 }), 'SUMMER25');
    world.freeCoupon = (await createCoupon(handle.db, scope, { name: 'Free copy', percentOff: 100 })).id;
  } finally {
    await handle.close();
  }
}

async function createSession(body: Record<string, unknown>) {
  const product = await api('POST', '/api/v1/products', { name: 'Field guide to moths', amount: 1999, tax_rate: 19 });
  expect(product.status).toBe(201);
  const created = await api('POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'moth@example.com', ...body });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; order_id: string };
}

async function openPage(javaScriptEnabled = true) {
  const context = await newContext(browser, { javaScriptEnabled });
  const page = await context.newPage();
  return { context, page, errors: consoleErrors(page) };
}

const summary = (page: Page) => page.getByRole('region', { name: 'Order summary' });

async function screenshot(page: Page, name: string) {
  if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, name);
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  port = await freePort();
  const storage = await serviceStorage('checkout-discounts-browser');
  cleanupStorage = storage.cleanup;
  await seedDatabase(storage.env);
  [service, chromium] = await Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'discounts-browser-secret' })), launchChromium()]);
  browser = chromium.browser;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, cleanupStorage }), 60_000);

describe('discounts on the hosted checkout in Chromium', () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`a code applied in any case shows its row and the new total, Remove takes it off, an unknown code is refused (script ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const session = await createSession({ allow_promotion_codes: true });
      const { context, page, errors } = await openPage(javaScriptEnabled);
      await page.goto(session.url);
      expect(await page.getByRole('button', { name: 'Apply' }).count()).toBe(1);
      await page.getByLabel('Promotion code').fill('nope');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('This code is not valid');
      expect(await summary(page).textContent()).toContain('€23.79');
      if (javaScriptEnabled) await screenshot(page, 'checkout-code-invalid');

      await page.getByLabel('Promotion code').fill('summer25');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => summary(page).getByText('Discount (SUMMER25)').count()).toBe(1);
      const totals = await summary(page).locator('.co-totals').innerText();
      expect(totals).toMatch(/Discount \(SUMMER25\)\s+Remove\s+−€3\.00/);
      expect(totals).toMatch(/Subtotal\s+€16\.99/);
      expect(totals).toMatch(/Total due\s+€20\.22/);
      expect(await page.getByRole('button', { name: 'Pay €20.22' }).count()).toBe(1);
      expect(await page.getByRole('alert').count()).toBe(0);
      if (javaScriptEnabled) await screenshot(page, 'checkout-code-applied');

      await page.getByRole('button', { name: 'Remove Discount (SUMMER25)' }).click();
      await expect.poll(() => page.getByRole('button', { name: 'Pay €23.79' }).count()).toBe(1);
      expect(await summary(page).getByText('Discount (SUMMER25)').count()).toBe(0);
      expect(await page.getByLabel('Promotion code').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('a discounted total is paid with the card: €20.22 charged, the session complete', async () => {
    const session = await createSession({ allow_promotion_codes: true });
    const { context, page, errors } = await openPage();
    await page.goto(session.url);
    await page.getByLabel('Promotion code').fill('SUMMER25');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Pay €20.22' }).count()).toBe(1);
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: 'Pay €20.22' }).click();
    await page.waitForURL(/\/receipt\?/);
    expect(await page.getByRole('main').textContent()).toContain('€20.22');
    await screenshot(page, 'checkout-discount-receipt');
    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'complete', payment_status: 'paid', amount_discount: 300, amount_total: 2022 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a total of 0: no card fields, Pay €0.00, paid without a card; the discount given at creation has no Remove', async () => {
    const session = await createSession({ discounts: [{ coupon: world.freeCoupon }] });
    const { context, page, errors } = await openPage();
    await page.goto(session.url);
    expect(await summary(page).locator('.co-totals').innerText()).toMatch(/Discount \(Free copy\)\s+−€19\.99/);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    expect(await page.getByLabel('Promotion code').count()).toBe(0);
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await screenshot(page, 'checkout-free');
    await page.getByRole('button', { name: 'Pay €0.00' }).click();
    await page.waitForURL(/\/receipt\?/);
    const read = await api('GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ status: 'complete', payment_status: 'paid', amount_discount: 1999, amount_total: 0 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
