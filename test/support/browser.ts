import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { stopService, type Service } from './production-server';

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
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/** A context as a person's browser would be; `javaScriptEnabled: false` for the no-JS path. */
export function newContext(browser: Browser, options: { javaScriptEnabled?: boolean; width?: number; height?: number } = {}): Promise<BrowserContext> {
  return browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    locale: 'en-IE',
  });
}

/** What a browser test file started, stopped in turn; any part may be missing when starting failed. */
export async function stopStarted(parts: { chromium: LaunchedBrowser | undefined; service: Service | undefined; merchant?: Server | undefined; cleanupStorage: () => Promise<void> }): Promise<void> {
  await parts.chromium?.close();
  if (parts.service) await stopService(parts.service);
  await new Promise<void>((resolve) => (parts.merchant ? parts.merchant.close(() => resolve()) : resolve()));
  await parts.cleanupStorage();
}
