import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripeReplay, serveStripeReplay, STRIPE_KEY } from '../gateway/stripe-api';
import { chromiumAvailable, launchChromium, newContext, stopStarted, type LaunchedBrowser } from '../support/browser';
import { PLAN } from '../subscriptions/support';
import { callService, freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * Live 3-D Secure through the hosted pages in Debian's Chromium, against the real production
 * server (`npm start`) whose live gateway is the Stripe replay (test/gateway/stripe-api.ts)
 * served over HTTP. The test plays the bank: it finishes the challenge at the replay and sends
 * the browser to the return_url the service gave Stripe. What this proves beyond the service tests:
 * the form's 303 to the challenge is allowed by the page's CSP `form-action` (Chromium stops a
 * form's redirect to an origin it does not list), and the return lands where the customer expects.
 */
const AUTH_SECRET = 'browser-test-auth-secret';
const ADMIN_TOKEN = 'adm_browsertestbrowsertestbrowsertest3ds1';
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');
const CHALLENGE_CARD = '4000 0000 0000 3220';

const stripe = createStripeReplay();
let gateway: Server;
let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
/** The merchant's site (live success URLs are https). */
const MERCHANT = 'https://shop.example';
let chromium: LaunchedBrowser;
let browser: Browser;
let skLive = '';

const api = (method: string, route: string, body?: unknown) => callService(`http://127.0.0.1:${port}`, skLive, method, route, body);

function admin(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSX_CLI, 'scripts/admin.ts', ...args],
      { cwd: ROOT, env: serviceEnv({ SERVICE_URL: `http://127.0.0.1:${port}`, ADMIN_TOKEN }), timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`admin ${args.join(' ')} failed: ${stderr}\nservice output:\n${service.output()}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

const BANK = 'https://hooks.stripe.com';

/**
 * Runs `action` and answers where it sent the browser: the bank's and the merchant's hosts do not
 * resolve here (and Playwright does not route a redirect's target), so the navigation request
 * itself is the evidence. A request is only made if the page's CSP let the form redirect there.
 */
async function navigationTo(page: Page, origin: string, action: () => Promise<unknown>): Promise<URL> {
  const [request] = await Promise.all([
    page.waitForRequest((candidate) => candidate.isNavigationRequest() && new URL(candidate.url()).origin === origin, { timeout: 20_000 }),
    action().catch(() => undefined),
  ]);
  return new URL(request.url());
}

async function fillCard(page: Page) {
  await page.getByLabel('Card number').fill(CHALLENGE_CARD);
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
}

/** The bank has the customer pass the challenge, and sends them back where the service asked. */
async function passChallenge(page: Page): Promise<unknown> {
  const [call] = stripe.calls.filter((recorded) => recorded.method === 'POST' && recorded.path === '/v1/payment_intents').slice(-1);
  const intent = [...stripe.intents.values()].find((candidate) => candidate.metadata.idempotency_key === call!.headers['idempotency-key'])!;
  expect(intent.status).toBe('requires_action');
  stripe.completeChallenge(intent.id, 'succeeded');
  return page.goto(call!.form.get('return_url')!);
}

beforeAll(
  async () => {
    if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
    let stripeOrigin: string;
    ({ server: gateway, origin: stripeOrigin } = await serveStripeReplay(stripe));
    port = await freePort();
    const storage = await serviceStorage('live-3ds-browser');
    cleanupStorage = storage.cleanup;
    const env = serviceEnv({
      ...storage.env,
      PORT: String(port),
      AUTH_SECRET,
      ADMIN_TOKEN,
      SUBSCRIPTIONS_ENABLED: 'true',
      GATEWAY_SECRET_KEY: STRIPE_KEY,
      GATEWAY_BASE_URL: stripeOrigin,
    });
    [service, chromium] = await Promise.all([startService(env), launchChromium()]);
    browser = chromium.browser;
    const store = await admin(['store:create', '--name', 'Moth Society', '--subscriptions']);
    expect(store.flags).toMatchObject({ live_api: true, subscriptions: true });
    skLive = store.keys.sk_live;
  },
  2 * START_TIMEOUT_MS + 60_000,
);

afterAll(async () => {
  await stopStarted({ chromium, service, cleanupStorage });
  await new Promise((resolve) => gateway?.close(resolve));
}, 60_000);

describe('live 3-D Secure on the hosted pages in Chromium', () => {
  it("checkout: Pay goes to the bank's challenge (allowed by form-action); back from it, the customer lands on success_url and the session is paid", async () => {
    const product = await api('POST', '/api/v1/products', { name: 'Atlas of moths', amount: 4200 });
    expect(product.status).toBe(201);
    const created = await api('POST', '/api/v1/checkout/sessions', {
      price_id: product.body.price_id,
      customer_email: 'ada@example.com',
      success_url: `${MERCHANT}/thanks?order=7`,
    });
    expect(created.status).toBe(201);
    const page = await (await newContext(browser)).newPage();
    const response = await page.goto(created.body.url);
    expect(response!.headers()['content-security-policy']).toContain(`form-action 'self' ${MERCHANT} ${BANK}`);

    await fillCard(page);
    const challenge = await navigationTo(page, BANK, () => page.getByRole('button', { name: /^Pay/ }).click());
    expect(challenge.pathname).toBe('/3d_secure_2/hosted');
    expect(await api('GET', `/api/v1/checkout/sessions/${created.body.id}`)).toMatchObject({ body: { status: 'open', payment_status: 'unpaid' } });

    const landed = await navigationTo(page, MERCHANT, () => passChallenge(page));
    expect(landed.origin + landed.pathname).toBe(`${MERCHANT}/thanks`);
    expect(landed.searchParams.get('session_id')).toBe(created.body.id);
    expect(await api('GET', `/api/v1/checkout/sessions/${created.body.id}`)).toMatchObject({ body: { status: 'complete', payment_status: 'paid' } });
    await page.context().close();
  });

  it('subscription: Subscribe goes to the challenge with the subscription pending; back from it, the customer lands on success_url and it is active', async () => {
    const created = await api('POST', '/api/v1/subscriptions', { ...PLAN, success_url: `${MERCHANT}/welcome` });
    expect(created.status).toBe(201);
    const page = await (await newContext(browser)).newPage();
    await page.goto(created.body.url);
    await fillCard(page);
    await navigationTo(page, BANK, () => page.getByRole('button', { name: /^Subscribe/ }).click());
    const checkout = await api('GET', `/api/v1/subscriptions/checkout/${created.body.id}`);
    expect((await api('GET', `/api/v1/subscriptions/${checkout.body.subscription}`)).body).toMatchObject({ status: 'pending', livemode: true });

    const landed = await navigationTo(page, MERCHANT, () => passChallenge(page));
    expect(landed.origin + landed.pathname).toBe(`${MERCHANT}/welcome`);
    expect(landed.searchParams.get('subscription_id')).toBe(checkout.body.subscription);
    expect((await api('GET', `/api/v1/subscriptions/${checkout.body.subscription}`)).body).toMatchObject({
      status: 'active',
      recurring_id: expect.stringMatching(/^cus_\d+\/pm_\d+$/),
    });
    await page.context().close();
  });
});
