import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newContext, screenshotAtWidths } from '../../support/browser';
import { adminClient, callService, payOnHostedPage, runAdminCli } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin, service } from './server';

/**
 * The dashboard's way in, in Debian's Chromium against `npm start`: the demo owner's printed
 * link, `user:invite` → set a password → the signed-in shell → sign out → sign in again, the
 * wrong-password alert, a used link, and a session ended by a password change elsewhere.
 */
const SHOTS = '/tmp/shots';

const admin = (args: string[]) => runAdminCli(origin, ADMIN_TOKEN, args);
const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

async function setPassword(page: Page, url: string, password: string) {
  await page.goto(url);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(`${origin}/dashboard`);
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export function signInSuite(): void {
  describe('dashboard sign-in', { timeout: 180_000 }, () => {
    it('npm start prints the demo owner link once; it sets the password and opens the demo store', async () => {
      const lines = service
        .output()
        .split('\n')
        .filter((line) => /\/dashboard\/accept\/[A-Za-z0-9_-]{43}/.test(line));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('owner@example.com');
      const url = /(http:\/\/\S+\/dashboard\/accept\/[A-Za-z0-9_-]{43})/.exec(lines[0]!)![1]!.replace(/^http:\/\/localhost:\d+/, origin);
      const context = await newContext(browser);
      const page = await context.newPage();
      await setPassword(page, url, 'demo owner password');
      await expect(page.locator('main h1').textContent()).resolves.toBe('Demo Store');
      await expect(page.locator('main').textContent()).resolves.toContain('Your role: owner');

      // Test mode's clock: the owner moves it 7 days; the page shows the new test time.
      await page.goto(`${origin}/dashboard/test`);
      const clockText = () => page.locator('section[aria-labelledby="test-clock"] strong').textContent();
      const before = Date.parse(`${(await clockText())!.replace(' UTC', '')}Z`);
      await page.getByLabel('Advance by').selectOption({ label: '7 days' });
      await page.getByRole('button', { name: 'Advance clock' }).click();
      await page.waitForURL(`${origin}/dashboard/test`);
      const after = Date.parse(`${(await clockText())!.replace(' UTC', '')}Z`);
      expect(after - before).toBeGreaterThanOrEqual(7 * 24 * 3600 * 1000);
      expect(after - before).toBeLessThan(7 * 24 * 3600 * 1000 + 5 * 60 * 1000);
      await shoot(page, 'home-test-clock');
      await context.close();
    });

    it('user:invite → set password → the shell → sign out → sign in → wrong password → used link', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Harbour Books' });
      const invited = await admin(['user:invite', '--store', store.id, '--email', 'Mia@Example.com', '--role', 'support']);
      expect(invited.user).toEqual({ email: 'mia@example.com', role: 'support', store: store.id });
      const context = await newContext(browser);
      const page = await context.newPage();

      // Signed out: every dashboard page sends to sign-in.
      for (const path of ['/dashboard', '/dashboard/test', '/dashboard/orders']) {
        await page.goto(`${origin}${path}`);
        expect(page.url()).toBe(`${origin}/dashboard/sign-in`);
      }

      const accept = await page.goto(invited.url);
      expect(accept!.status()).toBe(200);
      expect(accept!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(accept!.headers()['cache-control']).toBe('no-store');
      await shoot(page, 'accept');
      await page.getByLabel('New password', { exact: true }).fill('too short');
      await page.getByLabel('Confirm password', { exact: true }).fill('too short');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Use at least 12 characters.');
      await page.getByLabel('New password', { exact: true }).fill('harbour books 2026');
      await page.getByLabel('Confirm password', { exact: true }).fill('harbour books 2027');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('The two passwords are not the same.');
      await setPassword(page, invited.url, 'harbour books 2026');

      // The shell: store, role, navigation, the test-mode switch.
      await expect(page.locator('.dash-store').textContent()).resolves.toBe('Harbour Books');
      await expect(page.locator('main').textContent()).resolves.toContain('Your role: support');
      const nav = page.getByRole('navigation', { name: 'Dashboard' });
      const links = await nav.getByRole('link').evaluateAll((anchors) => anchors.map((a) => [a.textContent, a.getAttribute('href')]));
      expect(links).toEqual([
        ['Home', '/dashboard'],
        ['Orders', '/dashboard/orders'],
        ['Withdrawals', '/dashboard/withdrawals'],
        ['Disputes', '/dashboard/disputes'],
        ['Customers', '/dashboard/customers'],
        ['Products', '/dashboard/products'],
        ['Subscriptions', '/dashboard/subscriptions'],
        ['Webhooks', '/dashboard/webhooks'],
        ['Events', '/dashboard/events'],
        ['API keys', '/dashboard/api-keys'],
        ['Audit log', '/dashboard/audit'],
        ['Settings', '/dashboard/settings'],
      ]);
      expect(await page.getByText('Test mode', { exact: true }).count()).toBe(1);
      // Home's figures: one test-mode payment counts in test mode only.
      const product = await callService(origin, store.keys.sk_test, 'POST', '/api/v1/products', { name: 'Atlas', amount: 2450 });
      const session = await callService(origin, store.keys.sk_test, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'reader@example.com' });
      expect(await payOnHostedPage(session.body.url, origin, '4242 4242 4242 4242')).toBe(303);
      const figure = (label: string) => page.locator('.dash-figure', { hasText: label }).locator('dd').textContent();
      await page.reload();
      await expect(figure('Gross volume, 30 days')).resolves.toBe('€0.00');
      await shoot(page, 'home');
      await page.getByRole('link', { name: 'Test mode' }).click();
      await page.waitForURL(`${origin}/dashboard/test`);
      await expect(page.locator('.dash-banner').textContent()).resolves.toBe('Test mode');
      await expect(figure('Gross volume, 30 days')).resolves.toBe('€24.50');
      await expect(figure('Orders, 30 days')).resolves.toBe('1');
      await expect(figure('Active subscriptions')).resolves.toBe('0');
      await shoot(page, 'home-test');
      // Support sees the test clock but may not move it: no control, and a post anyway is refused.
      expect(await page.getByRole('button', { name: 'Advance clock' }).count()).toBe(0);
      const refused = await page.request.post(`${origin}/dashboard/act/advance-clock`, { form: { mode: 'test', seconds: '86400' }, headers: { origin }, maxRedirects: 0 });
      expect(refused.status()).toBe(403);
      const clock = await callService(origin, store.keys.sk_test, 'POST', '/api/v1/test_helpers/advance_clock', { seconds: 1 });
      expect(Math.abs(clock.body.now - Math.floor(Date.now() / 1000))).toBeLessThan(60);
      await page.getByRole('link', { name: 'Test mode' }).click();
      await page.waitForURL(`${origin}/dashboard`);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/dashboard/sign-in`);
      await page.goto(`${origin}/dashboard`);
      expect(page.url()).toBe(`${origin}/dashboard/sign-in`);

      await shoot(page, 'sign-in');
      await signIn(page, 'mia@example.com', 'harbour books 2026');
      await page.waitForURL(`${origin}/dashboard`);
      await expect(page.locator('.dash-store').textContent()).resolves.toBe('Harbour Books');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/dashboard/sign-in`);

      for (const [email, password] of [
        ['mia@example.com', 'not the password'],
        ['nobody@example.com', 'harbour books 2026'],
      ] as const) {
        await signIn(page, email, password);
        await page.waitForURL(/\/dashboard\/sign-in\?error=/);
        await expect(page.getByRole('alert').textContent()).resolves.toBe('The e-mail or password is not right.');
      }
      await shoot(page, 'sign-in-error');
      // A sign-in form posted from another site is refused before the form's action runs.
      const crossSite = await page.request.post(`${origin}/dashboard/sign-in`, {
        form: { email: 'mia@example.com', password: 'harbour books 2026' },
        headers: { origin: 'https://attacker.example' },
        maxRedirects: 0,
      });
      expect(crossSite.status()).toBe(403);
      await expect(crossSite.text()).resolves.toContain('Cross-site request refused');

      const used = await page.goto(invited.url);
      expect(used!.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This link is no longer valid');
      await context.close();
    });

    it('a person in two stores switches between them; a password change ends their other sessions at once', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Second Shop' });
      const first = await admin(['user:invite', '--store', store.id, '--email', 'lee@example.com', '--role', 'viewer']);
      const context = await newContext(browser);
      const page = await context.newPage();
      await setPassword(page, first.url, 'lee first password');
      const other = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Another Shop' });
      const joined = await admin(['user:invite', '--store', other.id, '--email', 'lee@example.com', '--role', 'admin']);
      const joinedPage = await context.newPage();
      await joinedPage.goto(joined.url);
      await expect(joinedPage.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('You have joined Another Shop');
      await joinedPage.close();

      await page.goto(`${origin}/dashboard`);
      await expect(page.locator('.dash-store').textContent()).resolves.toBe('Another Shop');
      await page.getByLabel('Store').selectOption({ label: 'Second Shop' });
      await page.getByRole('button', { name: 'Switch' }).click();
      await page.waitForURL(`${origin}/dashboard`);
      await expect(page.locator('.dash-store').textContent()).resolves.toBe('Second Shop');
      await expect(page.locator('main').textContent()).resolves.toContain('Your role: viewer');

      // A reset used in another browser changes the password: this session is over.
      const reset = await admin(['user:reset', '--email', 'lee@example.com']);
      const elsewhere = await newContext(browser);
      await setPassword(await elsewhere.newPage(), reset.url, 'lee second password');
      await page.goto(`${origin}/dashboard`);
      expect(page.url()).toBe(`${origin}/dashboard/sign-in`);
      await elsewhere.close();
      await context.close();
    });
  });
}
