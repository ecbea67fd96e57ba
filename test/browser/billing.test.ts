import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, newContext, type LaunchedBrowser } from '../support/browser';
import { freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, stopService, type Service } from '../support/production-server';

/**
 * Recurring billing end to end (renewals, retries, cancel, expiry) on the production server
 * (`npm start`, background work on): a customer subscribes in Chromium on the hosted page with a
 * test card, then the merchant moves the store's test clock with advance_clock and
 * reads the subscription through the API; the events arrive signed at the merchant's endpoint.
 */
const ADMIN_TOKEN = 'adm_billingbrowsertestbillingbrowser1234';
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');
const DAY = 24 * 60 * 60;
const WEEK = 7 * DAY;

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
let receiver: Server;
let receiverUrl = '';
const received: { body: string; headers: Record<string, string> }[] = [];

/** Each test has its own store, so each starts its test clock at wall time. */
async function newStore(): Promise<string> {
  const store = await new Promise<any>((resolve, reject) => {
    execFile(
      process.execPath,
      [TSX_CLI, 'scripts/admin.ts', 'store:create', '--name', 'Moth Society', '--subscriptions'],
      { cwd: ROOT, env: serviceEnv({ SERVICE_URL: `http://127.0.0.1:${port}`, ADMIN_TOKEN }), timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`store:create failed: ${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
  return store.keys.sk_test;
}

async function api(key: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function advance(key: string, seconds: number) {
  const response = await api(key, 'POST', '/api/v1/test_helpers/advance_clock', { seconds });
  expect(response.status).toBe(200);
}

/** A weekly subscription paid on the hosted page in Chromium with `card`; answers it as the API reads it. */
async function subscribeInBrowser(key: string, card: string, totalPayments = 12) {
  const created = await api(key, 'POST', '/api/v1/subscriptions', {
    amount: 990,
    interval: 'week',
    plan_name: 'Moth club weekly',
    total_payments: totalPayments,
    customer_email: 'ada@example.com',
    metadata: { member: 'M-77' },
  });
  expect(created.status).toBe(201);
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(created.body.url);
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await Promise.all([page.waitForURL(/\/subscribe\/subchk_test_[^/]+\/receipt/), page.getByRole('button', { name: /^Subscribe/ }).click()]);
  await context.close();
  const checkout = await api(key, 'GET', `/api/v1/subscriptions/checkout/${created.body.id}`);
  const subscription = await api(key, 'GET', `/api/v1/subscriptions/${checkout.body.subscription}`);
  expect(subscription.body).toMatchObject({ status: 'active', failure_count: 0, metadata: { member: 'M-77' } });
  return subscription.body;
}

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  port = await freePort();
  const receiverPort = await freePort();
  receiverUrl = `http://127.0.0.1:${receiverPort}/hooks`;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ body, headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
  const storage = await serviceStorage('billing-browser');
  cleanupStorage = storage.cleanup;
  const env = serviceEnv({ ...storage.env, PORT: String(port), ADMIN_TOKEN, AUTH_SECRET: 'billing-browser-secret', SUBSCRIPTIONS_ENABLED: 'true', WEBHOOK_DELIVERY_INTERVAL_MS: '200' });
  [service, chromium] = await Promise.all([startService(env), launchChromium()]);
  browser = chromium.browser;
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await chromium?.close();
  if (service) await stopService(service);
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await cleanupStorage();
}, 60_000);

describe('recurring billing on the production server', () => {
  it('4000 0000 0000 0341: renewal declined → past_due, retries at +1/+3/+5/+7 days → canceled; the events arrive signed, in order', async () => {
    const key = await newStore();
    const endpoint = await api(key, 'POST', '/api/v1/webhook_endpoints', { url: receiverUrl });
    expect(endpoint.status).toBe(201);
    const subscription = await subscribeInBrowser(key, '4000 0000 0000 0341');
    const renewal = subscription.next_billing_at;
    expect(renewal - subscription.current_period_start).toBe(WEEK);

    // The store's clock starts at wall time, which keeps moving: each step lands a minute past the due time.
    await advance(key, WEEK + 60);
    const pastDue = (await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body;
    expect(pastDue).toMatchObject({ status: 'past_due', failure_count: 1, current_period_start: subscription.current_period_start });
    const failedAt = pastDue.next_billing_at - DAY;
    expect(failedAt).toBeGreaterThanOrEqual(renewal);
    for (const [retry, nextDay] of [
      [1, 3],
      [2, 5],
      [3, 7],
    ] as const) {
      await advance(key, (retry === 1 ? 1 : 2) * DAY);
      const read = (await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body;
      expect(read, `retry ${retry}`).toMatchObject({ status: 'past_due', failure_count: retry + 1, next_billing_at: failedAt + nextDay * DAY });
    }
    await advance(key, 2 * DAY);
    const canceled = (await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body;
    expect(canceled).toMatchObject({ status: 'canceled', failure_count: 5, ended_at: canceled.canceled_at });
    expect(canceled.canceled_at).toBeGreaterThanOrEqual(failedAt + 7 * DAY);

    const verifier = new Webhook(endpoint.body.secret);
    const expected = [
      'subscription.created',
      'subscription.payment_failed',
      'subscription.past_due',
      'subscription.updated',
      ...Array.from({ length: 3 }, () => ['subscription.payment_failed', 'subscription.updated']).flat(),
      'subscription.payment_failed',
      'subscription.canceled',
      'subscription.updated',
    ];
    const delivered = () => received.map((webhook) => verifier.verify(webhook.body, webhook.headers) as any).filter((event) => event.data.object.id === subscription.id);
    await expect.poll(() => delivered().length, { timeout: 30_000 }).toBe(expected.length);
    expect(delivered().map((event) => event.type)).toEqual(expected);
    expect(delivered().at(-1).data.object).toEqual(canceled);
    expect(delivered().every((event) => event.data.object.metadata.member === 'M-77')).toBe(true);
  });

  it('4000 0000 0000 3063: the first renewal is declined (past_due); the retry a day later succeeds and the subscription is active for the next period', async () => {
    const key = await newStore();
    const subscription = await subscribeInBrowser(key, '4000 0000 0000 3063');
    await advance(key, WEEK + 60);
    expect((await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body).toMatchObject({ status: 'past_due', failure_count: 1 });
    await advance(key, DAY);
    expect((await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body).toMatchObject({
      status: 'active',
      failure_count: 0,
      current_period_start: subscription.next_billing_at,
      current_period_end: subscription.next_billing_at + WEEK,
      next_billing_at: subscription.next_billing_at + WEEK,
    });
  });

  it('4242 with total_payments 2: the renewal is the final payment and the subscription expires; nothing is charged after it', async () => {
    const key = await newStore();
    const subscription = await subscribeInBrowser(key, '4242 4242 4242 4242', 2);
    await advance(key, WEEK + 60);
    const expired = (await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body;
    expect(expired).toMatchObject({ status: 'expired', current_period_start: subscription.next_billing_at, canceled_at: null });
    expect(expired.ended_at).toBeGreaterThanOrEqual(subscription.next_billing_at);
    await advance(key, 10 * WEEK);
    expect((await api(key, 'GET', `/api/v1/subscriptions/${subscription.id}`)).body).toEqual(expired);
  });
});
