import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapi from '../../openapi/openapi.json';
import { chromiumAvailable, consoleErrors, launchChromium, newContext, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * /docs in Debian's Chromium against the real production server: pages without console errors,
 * the search working without JavaScript, and at 375 px no page wider than the screen, each table
 * row a card. `DOCS_SCREENSHOTS=<dir>` also writes each page at 1280 and 375 px, to look at.
 */
let origin = '';
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  const port = await freePort();
  origin = `http://localhost:${port}`;
  const storage = await serviceStorage('docs-browser');
  cleanupStorage = storage.cleanup;
  [service, chromium] = await Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port) })), launchChromium()]);
  browser = chromium.browser;
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, cleanupStorage }), 60_000);

describe('/docs in a browser', () => {
  it('the overview and every domain page load without a console error, each one h1 and the domains linked', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = consoleErrors(page);
    await page.goto(`${origin}/docs`);
    const domains = await page
      .getByRole('navigation', { name: 'Domains' })
      .getByRole('link')
      .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).pathname));
    // The overview and one page per tag of the OpenAPI document.
    const tags = new Set(Object.values(openapi.paths).flatMap((item) => Object.values(item as Record<string, { tags?: string[] }>).flatMap((operation) => operation.tags ?? [])));
    expect(tags.size).toBeGreaterThan(10);
    expect(domains).toHaveLength(tags.size + 1);
    for (const path of domains) {
      const response = await page.goto(`${origin}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await page.locator('h1').count(), path).toBe(1);
      if (process.env.DOCS_SCREENSHOTS && (path === '/docs' || path === '/docs/checkout-sessions')) {
        await screenshotAtWidths(page, process.env.DOCS_SCREENSHOTS, path.slice(1).replace('/', '-'));
      }
    }
    expect(problems).toEqual([]);
    expect((await page.goto(`${origin}/docs/no-such-domain`))?.status()).toBe(404);
    await context.close();
  });

  it('without JavaScript: the search form finds an error code, and its link leads to the table that lists it', async () => {
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${origin}/docs/refunds`);
    await page.getByLabel('Search the reference').fill('order_already_processed');
    await Promise.all([page.waitForURL(`${origin}/docs?q=order_already_processed`), page.getByRole('button', { name: 'Search' }).click()]);
    expect(await page.getByRole('heading', { name: '1 result for “order_already_processed”' }).count()).toBe(1);
    await Promise.all([page.waitForURL(`${origin}/docs#errors`), page.getByRole('link', { name: 'order_already_processed' }).click()]);
    expect(await page.getByRole('region', { name: 'Error codes by HTTP status' }).textContent()).toContain('order_already_processed');
    await context.close();
  });

  it('at 375 px: nothing wider than the screen; a table row is a card naming each column beside its value', async () => {
    const context = await newContext(browser, { width: 375, height: 800 });
    const page = await context.newPage();
    for (const path of ['/docs', '/docs/checkout-sessions', '/docs/webhooks', '/docs/events']) {
      await page.goto(`${origin}${path}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
    }
    await page.goto(`${origin}/docs/checkout-sessions`);
    const row = page.getByRole('region', { name: 'Price mode of Create a checkout session' }).locator('tbody tr').first();
    expect(await row.evaluate((element) => getComputedStyle(element).display)).toBe('block');
    const cell = row.locator('td').first();
    expect(await cell.evaluate((element) => getComputedStyle(element, '::before').content)).toBe('"Type"');
    const box = (await row.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    await context.close();
  });
});
