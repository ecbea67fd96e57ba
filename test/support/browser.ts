import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { runAdminCli, stopService, type Service } from './production-server';

/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). The flags keep it
 * off the network this machine does not have. Playwright gives each launch a fresh, temporary
 * profile directory (it refuses a --user-data-dir argument) and removes it on close.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/**
 * Below a test's own time-out: a step that hangs fails naming itself (the locator or the URL
 * awaited), where the test's time-out would only say the test took too long.
 */
const STEP_TIMEOUT_MS = 20_000;

/** A context as a person's browser would be; `javaScriptEnabled: false` for the no-JS path, `locale` for a person's language (its Accept-Language). */
export async function newContext(browser: Browser, options: { javaScriptEnabled?: boolean; width?: number; height?: number; locale?: string } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    locale: options.locale ?? 'en-IE',
  });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  return context;
}

/**
 * What the developer tools would show in red for `page` from now on: console errors (a script or
 * style the CSP refused, a missing favicon), uncaught errors, and requests that failed (an
 * aborted one is not an error: a navigation cancels what the old page still loaded). A page
 * answered with an error status on purpose (the 404 of a link that is not valid) is not one
 * either, though Chromium reports that status too. A test asserts the list is empty when it is
 * done with the page.
 */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  const documents = new Set<string>();
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) documents.add(request.url());
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (documents.has(message.location().url) && /^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
    errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText;
    if (reason !== 'net::ERR_ABORTED') errors.push(`request failed: ${request.method()} ${request.url()} ${reason}`);
  });
  return errors;
}

/** A merchant's site on a second local origin, so success URLs and embedding pages leave the service's origin. */
export async function startMerchantSite(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A merchant's landing page: `heading` and the address it was reached by (what a success_url receives). */
export function merchantLandingPage(heading: string): RequestListener {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Merchant</title><h1>${heading}</h1><p>${req.url?.replace(/[<>&"]/g, '')}</p>`);
  };
}

/** What a browser test file started, stopped in turn; any part may be missing when starting failed. */
export async function stopStarted(parts: { chromium: LaunchedBrowser | undefined; service: Service | undefined; merchant?: Server | undefined; cleanupStorage: () => Promise<void> }): Promise<void> {
  await parts.chromium?.close();
  if (parts.service) await stopService(parts.service);
  await new Promise<void>((resolve) => (parts.merchant ? parts.merchant.close(() => resolve()) : resolve()));
  await parts.cleanupStorage();
}

/** Full-page screenshots at desktop and phone width into `directory`, for a person to look at. */
export async function screenshotAtWidths(page: Page, directory: string, name: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${directory}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The footer's ways out of a contract, on every hosted page: to withdraw, and to cancel (the one subscription prefilled where the page is about it). */
export async function expectContractLinks(page: Page, cancelHref = '/cancel'): Promise<void> {
  const footer = page.getByRole('contentinfo');
  expect(await footer.getByRole('link', { name: 'Withdraw from contract here', exact: true }).getAttribute('href')).toBe('/withdraw');
  expect(await footer.getByRole('link', { name: 'Cancel contracts here', exact: true }).getAttribute('href')).toBe(cancelHref);
}

/** A form's fields as the browser would post them (to post the same form directly, e.g. as another role). */
export function postedFields(form: Locator): Promise<Record<string, string>> {
  return form.evaluate((element) => Object.fromEntries([...new FormData(element as HTMLFormElement)].map(([name, value]) => [name, String(value)])));
}

/**
 * A person invited with `npm run admin -- user:invite`, who set their password through the link
 * in a browser context of their own and landed signed in on the dashboard.
 */
export async function invitedDashboardPage(
  browser: Browser,
  service: { origin: string; adminToken: string },
  person: { storeId: string; email: string; role: string; password?: string },
): Promise<Page> {
  const invited = await runAdminCli(service.origin, service.adminToken, ['user:invite', '--store', person.storeId, '--email', person.email, '--role', person.role]);
  const password = person.password ?? `${person.role} password 2026`;
  const page = await (await newContext(browser)).newPage();
  await page.goto(invited.url);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(`${service.origin}/dashboard`);
  return page;
}
