import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium, stopStarted, type LaunchedBrowser } from '../../support/browser';
import { freePort, serviceEnv, serviceStorage, startService, type Service } from '../../support/production-server';

/**
 * One `npm start` and one Chromium for the dashboard's browser suites of one test file (two
 * files, so that the suites fill both workers): a start costs seconds of a loaded CI machine.
 * Each suite works in stores of its own, and its people have
 * e-mail addresses of their own (a person is one account across stores). The server carries
 * every setting a suite needs: subscriptions on and webhook passes every 200 ms. Sign-in limits
 * stay at their defaults: the dozens of sign-ins the suites make from one address succeed, and
 * only failures count.
 */
export const ADMIN_TOKEN = 'adm_dashboardbrowsertesttoken0000000000000';

// Live bindings: the suites read them inside their tests, after startDashboardServer has run.
export let origin = '';
export let service: Service;
export let browser: Browser;

let chromium: LaunchedBrowser | undefined;
let cleanupStorage: () => Promise<void> = async () => {};

export async function startDashboardServer(): Promise<void> {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  const port = await freePort();
  origin = `http://localhost:${port}`;
  const storage = await serviceStorage('dashboard-browser');
  cleanupStorage = storage.cleanup;
  [service, chromium] = await Promise.all([
    startService(
      serviceEnv({
        ...storage.env,
        PORT: String(port),
        AUTH_SECRET: 'dashboard-browser-auth-secret',
        ADMIN_TOKEN,
        SUBSCRIPTIONS_ENABLED: 'true',
        WEBHOOK_DELIVERY_INTERVAL_MS: '200',
      }),
    ),
    launchChromium(),
  ]);
  browser = chromium.browser;
}

export const stopDashboardServer = () => stopStarted({ chromium, service, cleanupStorage });
