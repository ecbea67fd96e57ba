import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, expectContractLinks, invitedDashboardPage, launchChromium, newContext, screenshotAtWidths, startMerchantSite, stopStarted, type LaunchedBrowser } from '../support/browser';
import { adminClient, callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

/**
 * The withdrawal function and file delivery in Debian's Chromium against `npm start`: the waiver
 * checkboxes of a checkout with a digital product, the receipt's download and its link to
 * /withdraw, both steps of /withdraw with and without JavaScript, the same answer for an order
 * that does not exist, the allowance per address, the portal's links, and the dashboard's list.
 * Screenshots of each page at 1280 and 375 px go to /tmp/shots.
 */
const ADMIN_TOKEN = 'adm_withdrawbrowsertesttoken000000000000000';
const SHOTS = '/tmp/shots';
/** Form posts per address per window: each withdrawal takes two. */
const LIMIT = 6;
const FILE = Buffer.from('%PDF-1.7 moth field guide\n'.repeat(100));

let origin = '';
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
let fileHost: Server;
let sk = '';
let storeId = '';
let guide: { id: string; price_id: string };
let poster: { id: string; price_id: string };
let address = 0;

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  const port = await freePort();
  origin = `http://localhost:${port}`;
  const host = await startMerchantSite((req, res) => {
    if (req.url !== '/private/guide-v2.pdf') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(FILE.length) });
    res.end(FILE);
  });
  fileHost = host.server;
  const storage = await serviceStorage('withdraw-browser');
  cleanupStorage = storage.cleanup;
  [service, chromium] = await Promise.all([
    startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'withdraw-browser-auth-secret', ADMIN_TOKEN, TRUST_PROXY: 'true', RATE_LIMIT_WITHDRAW_PER_IP: String(LIMIT) })),
    launchChromium(),
  ]);
  browser = chromium.browser;
  const admin = adminClient(origin, ADMIN_TOKEN);
  const store = await admin.store.create.mutate({ name: 'Moth Press' });
  sk = store.keys.sk_test;
  storeId = store.id;
  guide = (await callService(origin, sk, 'POST', '/api/v1/products', { name: 'Moth field guide', amount: 1250 })).body;
  poster = (await callService(origin, sk, 'POST', '/api/v1/products', { name: 'Moth poster', amount: 900, type: 'physical' })).body;
  expect(await admin.product.attachFile.mutate({ id: guide.id, url: `${host.origin}/private/guide-v2.pdf` })).toMatchObject({ has_file: true });
}, START_TIMEOUT_MS + 60_000);

afterAll(() => stopStarted({ chromium, service, merchant: fileHost, cleanupStorage }), 60_000);

/** A browser of a person at an address of their own (the service trusts X-Forwarded-For here). */
async function personContext(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  const context = await newContext(browser, options);
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': `203.0.113.${++address}` });
  return context;
}

const order = async (id: string) => (await callService(origin, sk, 'GET', `/api/v1/orders/${id}`)).body;

async function checkout(priceId: string, email: string) {
  const created = await callService(origin, sk, 'POST', '/api/v1/checkout/sessions', { price_id: priceId, customer_email: email });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; order_id: string };
}

async function pay(page: Page) {
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await Promise.all([page.waitForURL(/\/receipt\?/), page.getByRole('button', { name: /^Pay/ }).click()]);
}

/** Step one filled in and sent, then step two confirmed: the "Withdrawal received" page. */
async function withdrawOnPage(page: Page, typed: { order: string; email: string; name: string; reason?: string }) {
  await page.getByLabel('Order number').fill(typed.order);
  await page.getByLabel('Email').fill(typed.email);
  await page.getByLabel('Name').fill(typed.name);
  await page.getByLabel('Reason').fill(typed.reason ?? '');
  await Promise.all([page.waitForURL(/\/withdraw\/confirm\?/), page.getByRole('button', { name: 'Continue' }).click()]);
  await Promise.all([page.waitForURL(/\/withdraw\/received\?/), page.getByRole('button', { name: 'Confirm withdrawal' }).click()]);
}

/** What the answer says, with the order number and the time (which differ by design) left out. */
async function answerText(page: Page, orderId: string) {
  const text = (await page.locator('main').innerText()).replace(orderId, '<order>');
  return text.replace(/\d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC/, '<time>');
}

describe('the waiver at checkout and the delivery on the receipt', { timeout: 240_000 }, () => {
  it('a digital product: both checkboxes by their labels; ticked, the waiver is stored; the receipt offers the file and the way to withdraw', async () => {
    const session = await checkout(guide.price_id, 'reader@example.com');
    const context = await personContext();
    const page = await context.newPage();
    await page.goto(session.url);
    const consent = page.getByLabel('I agree that delivery starts before the withdrawal period ends', { exact: true });
    const acknowledgement = page.getByLabel('I acknowledge that I thereby lose my right of withdrawal', { exact: true });
    expect(await consent.isChecked()).toBe(false);
    expect(await acknowledgement.isChecked()).toBe(false);
    expect(await page.getByRole('link', { name: 'Withdraw from contract here' }).getAttribute('href')).toBe('/withdraw');
    await screenshotAtWidths(page, SHOTS, 'withdraw-checkout-waiver');
    await consent.check();
    await acknowledgement.check();
    await pay(page);

    const paid = await order(session.order_id);
    expect(paid.withdrawal_waiver).toEqual({ accepted_at: expect.any(Number), text_version: 'withdrawal-waiver-en-v1' });
    // Ticked when the payment began, a moment before it was paid.
    expect(paid.paid_at - paid.withdrawal_waiver.accepted_at).toBeGreaterThanOrEqual(0);
    expect(paid.paid_at - paid.withdrawal_waiver.accepted_at).toBeLessThan(5);
    expect(paid.withdrawal).toBeNull();

    const download = page.getByRole('link', { name: 'Download Moth field guide' });
    const href = (await download.getAttribute('href'))!;
    expect(href).toMatch(new RegExp(`^${origin}/download/${session.order_id}_l0\\?expires=\\d+&signature=`));
    expect(await page.content()).not.toContain('guide-v2.pdf');
    await screenshotAtWidths(page, SHOTS, 'withdraw-receipt-download');
    const [saved] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(saved.suggestedFilename()).toBe('Moth field guide.pdf');
    expect((await context.request.get(href)).status()).toBe(200);

    await Promise.all([page.waitForURL(`${origin}/withdraw`), page.getByRole('link', { name: 'Withdraw from contract here' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Withdraw from a contract');
    await context.close();
  });

  it('a physical product only: no checkboxes; one box alone is no waiver', async () => {
    const physical = await checkout(poster.price_id, 'poster@example.com');
    const context = await personContext();
    const page = await context.newPage();
    await page.goto(physical.url);
    expect(await page.getByRole('checkbox').count()).toBe(0);

    const digital = await checkout(guide.price_id, 'half@example.com');
    await page.goto(digital.url);
    await page.getByLabel('I agree that delivery starts before the withdrawal period ends', { exact: true }).check();
    await pay(page);
    expect((await order(digital.order_id)).withdrawal_waiver).toBeNull();
    await context.close();
  });
});

describe('/withdraw', { timeout: 240_000 }, () => {
  it('both steps with JavaScript: the details shown back, then "Withdrawal received" with date and time, recorded on the order', async () => {
    const session = await checkout(guide.price_id, 'ada@example.com');
    const context = await personContext();
    const page = await context.newPage();
    await page.goto(session.url);
    await pay(page);
    await page.goto(`${origin}/withdraw`);
    await expectContractLinks(page);
    await screenshotAtWidths(page, SHOTS, 'withdraw-step-one');
    await page.getByLabel('Order number').fill(session.order_id);
    await page.getByLabel('Email').fill('Ada@Example.com');
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Reason').fill('Bought the wrong edition');
    await Promise.all([page.waitForURL(/\/withdraw\/confirm\?/), page.getByRole('button', { name: 'Continue' }).click()]);
    const shown = await page.locator('dl').innerText();
    for (const value of [session.order_id, 'Ada@Example.com', 'Ada Lovelace', 'Bought the wrong edition']) expect(shown).toContain(value);
    await screenshotAtWidths(page, SHOTS, 'withdraw-step-two');
    await Promise.all([page.waitForURL(/\/withdraw\/received\?/), page.getByRole('button', { name: 'Confirm withdrawal' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Withdrawal received');
    await expectContractLinks(page);
    const received = await order(session.order_id);
    expect(received.withdrawal).toEqual({ status: 'requested', requested_at: expect.any(Number), refund_due_by: received.withdrawal.requested_at + 14 * 86_400, reason: 'Bought the wrong edition' });
    const time = await page.locator('time').getAttribute('datetime');
    expect(Math.abs(Date.parse(time!) / 1000 - received.withdrawal.requested_at)).toBeLessThan(5);
    expect(await page.locator('main').innerText()).toMatch(/\d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC/);
    await screenshotAtWidths(page, SHOTS, 'withdraw-received');
    await context.close();
  });

  it('without JavaScript: the same two steps work as plain forms, and a correctable mistake comes back with the field named', async () => {
    const session = await checkout(guide.price_id, 'nojs@example.com');
    const context = await personContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(session.url);
    await pay(page);
    await page.goto(`${origin}/withdraw`);
    await page.getByLabel('Order number').fill('my order');
    await page.getByLabel('Email').fill('nojs@example.com');
    await page.getByLabel('Name').fill('No Script');
    await Promise.all([page.waitForURL(/error=orderId/), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(await page.getByRole('alert').textContent()).toBe('Please correct the order number below.');
    const field = page.getByLabel('Order number');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Name').inputValue()).toBe('No Script');
    await screenshotAtWidths(page, SHOTS, 'withdraw-step-one-error');
    await field.fill(session.order_id);
    await Promise.all([page.waitForURL(/\/withdraw\/confirm\?/), page.getByRole('button', { name: 'Continue' }).click()]);
    await Promise.all([page.waitForURL(/\/withdraw\/received\?/), page.getByRole('button', { name: 'Confirm withdrawal' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Withdrawal received');
    expect((await order(session.order_id)).withdrawal).toMatchObject({ status: 'requested', reason: null });
    await context.close();
  });

  it('an order that does not exist, or another address: the same answer, nothing recorded', async () => {
    const session = await checkout(guide.price_id, 'owner@example.com');
    const context = await personContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(session.url);
    await pay(page);

    await page.goto(`${origin}/withdraw`);
    await withdrawOnPage(page, { order: session.order_id, email: 'owner@example.com', name: 'Owner' });
    const matched = await answerText(page, session.order_id);
    const unknown = 'ord_test_000000000000000000000000';
    await page.goto(`${origin}/withdraw`);
    await withdrawOnPage(page, { order: unknown, email: 'owner@example.com', name: 'Owner' });
    expect(await answerText(page, unknown)).toBe(matched);

    const other = await checkout(guide.price_id, 'victim@example.com');
    await page.goto(other.url);
    await pay(page);
    await page.goto(`${origin}/withdraw`);
    await withdrawOnPage(page, { order: other.order_id, email: 'owner@example.com', name: 'Owner' });
    expect(await answerText(page, other.order_id)).toBe(matched);
    expect((await order(other.order_id)).withdrawal).toBeNull();
    await context.close();
  });

  it(`an address gets ${LIMIT} posts per window, then "Too many requests" (429)`, async () => {
    const context = await personContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const typed = { order: 'ord_test_limitlimitlimitlimitlimit00', email: 'limit@example.com', name: 'Limit' };
    for (let n = 0; n < LIMIT / 2; n++) {
      await page.goto(`${origin}/withdraw`);
      await withdrawOnPage(page, typed);
    }
    await page.goto(`${origin}/withdraw`);
    await page.getByLabel('Order number').fill(typed.order);
    await page.getByLabel('Email').fill(typed.email);
    await page.getByLabel('Name').fill(typed.name);
    const [response] = await Promise.all([page.waitForResponse(`${origin}/withdraw/check`), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(response.status()).toBe(429);
    expect(Number(response.headers()['retry-after'])).toBeGreaterThan(0);
    expect(response.headers()['content-security-policy']).toMatch(/style-src 'self' 'sha256-[^']+';/);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Too many requests');
    await expectContractLinks(page);
    await screenshotAtWidths(page, SHOTS, 'withdraw-too-many');
    await context.close();
  });

  it('a post from another site is refused (403), and the pages carry the hosted pages’ headers', async () => {
    const refused = await fetch(`${origin}/withdraw/check`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `203.0.113.${++address}` },
      body: new URLSearchParams({ order: 'ord_test_abc', email: 'a@example.com', name: 'A' }),
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    const page = await fetch(`${origin}/withdraw`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'none'/);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, noarchive');
  });
});

describe('portal and dashboard', { timeout: 240_000 }, () => {
  it('the portal links the file and the withdrawal page; the dashboard lists the request with its refund date', async () => {
    const session = await checkout(guide.price_id, 'portal@example.com');
    const context = await personContext();
    const page = await context.newPage();
    await page.goto(session.url);
    await pay(page);
    const portal = await callService(origin, sk, 'POST', '/api/v1/portal/sessions', { order_id: session.order_id });
    await page.goto(portal.body.url);
    expect(await page.getByRole('link', { name: 'Download Moth field guide' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Withdraw from contract here' }).getAttribute('href')).toBe('/withdraw');
    await screenshotAtWidths(page, SHOTS, 'withdraw-portal');
    await page.goto(`${origin}/withdraw`);
    await withdrawOnPage(page, { order: session.order_id, email: 'portal@example.com', name: 'Portal Person', reason: 'Not needed' });
    await context.close();

    const dashboard = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId, email: 'owner@moth.example', role: 'support' });
    await dashboard.goto(`${origin}/dashboard/test/withdrawals`);
    const row = dashboard.locator('.dash-table tbody tr').filter({ hasText: session.order_id });
    const text = await row.innerText();
    for (const value of ['Portal Person', 'portal@example.com', 'to refund', 'Not needed', '€12.50']) expect(text).toContain(value);
    const { withdrawal } = await order(session.order_id);
    expect(text).toContain(new Date(withdrawal.refund_due_by * 1000).toISOString().slice(0, 16).replace('T', ' '));
    await screenshotAtWidths(dashboard, SHOTS, 'withdraw-dashboard-list');
    await dashboard.goto(`${origin}/dashboard/test/orders/${session.order_id}`);
    expect(await dashboard.locator('main').innerText()).toContain('Refund due by');
    await screenshotAtWidths(dashboard, SHOTS, 'withdraw-dashboard-order');
  });
});
