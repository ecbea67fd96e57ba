import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshotAtWidths, invitedDashboardPage, postedFields } from '../../support/browser';
import { adminClient, callService, payOnHostedPage } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's Customers and Subscriptions pages in Debian's Chromium against `npm start`: a
 * support person searches and opens a customer, creates a portal link (shown once), revokes it,
 * filters and opens a subscription with its payment attempts, edits its metadata, cancels it with a
 * reason (a double submit acting once), exports both CSVs and deletes the customer; a viewer and a
 * developer are refused on the server.
 */
const SHOTS = '/tmp/shots-custsubs';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

const rowIds = (page: Page) => page.locator('.dash-table tbody tr td:first-child').allTextContents();

export function customersSuite(): void {
  describe('dashboard customers and subscriptions', { timeout: 300_000 }, () => {
    it('search, detail, a portal link shown once then revoked, subscription filters, attempts, metadata, a cancel acting once, CSV, delete; viewer and developer refused', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Moth Society', subscriptions: true });
      const sk = store.keys.sk_test;
      const [page, viewer, developer] = await Promise.all([
        invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'sol@example.com', role: 'support' }),
        invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'vic@example.com', role: 'viewer' }),
        invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'dax@example.com', role: 'developer' }),
      ]);

      // Ada buys once and subscribes; Bob subscribes.
      const product = await callService(origin, sk, 'POST', '/api/v1/products', { name: 'Harbour print', amount: 2450 });
      const session = await callService(origin, sk, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'ada@example.com' });
      expect(await payOnHostedPage(session.body.url, origin, '4242 4242 4242 4242')).toBe(303);
      const subscriptionIds: string[] = [];
      for (const email of ['ada@example.com', 'bob@example.com']) {
        const checkout = await callService(origin, sk, 'POST', '/api/v1/subscriptions', {
          amount: 990,
          interval: 'month',
          plan_name: 'Moth club',
          total_payments: 12,
          customer_email: email,
          metadata: { plan: 'gold' },
        });
        expect(checkout.status).toBe(201);
        expect(await payOnHostedPage(checkout.body.url, origin, '4242 4242 4242 4242')).toBe(303);
        subscriptionIds.push((await callService(origin, sk, 'GET', `/api/v1/subscriptions/checkout/${checkout.body.id}`)).body.subscription);
      }
      const [adaSubscription, bobSubscription] = subscriptionIds as [string, string];
      const ada = (await callService(origin, sk, 'GET', '/api/v1/customers?email=ada@example.com')).body.data[0].id as string;
      const order = (await callService(origin, sk, 'GET', '/api/v1/orders?limit=1&billing_reason=purchase')).body.data[0].id as string;

      // Customers: search by the start of an e-mail, case-insensitive, then by id.
      await page.goto(`${origin}/dashboard/test/customers`);
      expect(await rowIds(page)).toHaveLength(2);
      await page.getByLabel('Search', { exact: true }).fill('ADA');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/q=ADA/);
      expect(await rowIds(page)).toEqual([ada]);
      await shoot(page, 'customers-list');
      await page.getByLabel('Search', { exact: true }).fill(ada);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(`${origin}/dashboard/test/customers/${ada}`);
      expect((await page.request.get(`${origin}/dashboard/customers/${ada}`)).status()).toBe(404);

      // The detail: fields, the order and the subscription linked.
      const main = page.locator('main');
      await expect(page.locator('main h1').textContent()).resolves.toBe(ada);
      await expect(main.textContent()).resolves.toContain('ada@example.com');
      expect(await main.locator(`a[href="/dashboard/test/orders/${order}"]`).count()).toBe(1);
      expect(await main.locator(`a[href="/dashboard/test/subscriptions/${adaSubscription}"]`).count()).toBe(1);

      // A portal link: its URL shown once, gone on reload; then revoked.
      await page.getByRole('button', { name: 'Create portal link' }).click();
      await page.waitForURL(`${origin}/dashboard/test/customers/${ada}`);
      const portalUrl = await page.getByLabel('New portal link').inputValue();
      expect(portalUrl).toMatch(new RegExp(`^${origin}/portal/`));
      expect(page.url()).not.toContain('portal/');
      expect((await page.request.get(portalUrl)).status()).toBe(200);
      await shoot(page, 'customer-detail-new-link');
      await page.reload();
      expect(await page.getByLabel('New portal link').count()).toBe(0);
      await expect(main.locator('.dash-table').last().textContent()).resolves.toContain('active');
      await page.getByRole('button', { name: 'Revoke' }).click();
      await page.waitForURL(`${origin}/dashboard/test/customers/${ada}`);
      await expect(main.locator('.dash-table').last().textContent()).resolves.toContain('revoked');
      const sessions = await callService(origin, sk, 'GET', `/api/v1/portal/sessions?customer_id=${ada}`);
      expect(sessions.body.data.map((entry: { status: string }) => entry.status)).toEqual(['revoked']);

      // Subscriptions: filters, then the detail with its payment attempt.
      await page.goto(`${origin}/dashboard/test/subscriptions`);
      expect(await rowIds(page)).toEqual([bobSubscription, adaSubscription]);
      await page.getByLabel('Customer', { exact: true }).fill('Bob@example.com');
      await page.getByLabel('Status').selectOption('active');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=active/);
      expect(await rowIds(page)).toEqual([bobSubscription]);
      await shoot(page, 'subscriptions-list');
      await page.goto(`${origin}/dashboard/test/subscriptions/${adaSubscription}`);
      await expect(main.textContent()).resolves.toContain('Moth club');
      await expect(main.textContent()).resolves.toContain('€9.90 / month');
      const attempts = main.locator('section', { has: page.getByRole('heading', { name: 'Payment attempts' }) });
      await expect(attempts.locator('tbody tr').textContent()).resolves.toMatch(/€9\.90.*succeeded/);
      // The payment's order, where its invoice and refunds are, is one click away.
      await expect(attempts.locator('tbody tr a').getAttribute('href')).resolves.toMatch(/^\/dashboard\/test\/orders\/ord_test_[0-9A-Za-z]{24}$/);
      await shoot(page, 'subscription-detail');

      // Metadata: a key added in a blank row.
      await page.getByLabel('Key 2', { exact: true }).fill('ticket');
      await page.getByLabel('Value 2', { exact: true }).fill('T-9');
      await page.getByRole('button', { name: 'Save metadata' }).click();
      await page.waitForURL(/updated=metadata/);
      expect((await callService(origin, sk, 'GET', `/api/v1/subscriptions/${adaSubscription}`)).body.metadata).toEqual({ plan: 'gold', ticket: 'T-9' });

      // Refused on the server: a viewer's cancel, portal link and delete, a developer's cancel.
      await page.getByLabel('Reason').fill('Moved abroad');
      const cancel = await postedFields(page.locator('form[aria-label="Cancel subscription"]'));
      const createLink = { mode: 'test', customer_id: ada, idempotency_key: 'f'.repeat(32) };
      const remove = { mode: 'test', customer_id: ada, confirm: 'yes' };
      for (const [person, action, form] of [
        [viewer, 'cancel-subscription', cancel],
        [viewer, 'create-portal-link', createLink],
        [viewer, 'delete-customer', remove],
        [developer, 'cancel-subscription', cancel],
      ] as const) {
        const refused = await person.request.post(`${origin}/dashboard/act/${action}`, { form, headers: { origin }, maxRedirects: 0 });
        expect(refused.status()).toBe(403);
      }
      expect((await callService(origin, sk, 'GET', `/api/v1/subscriptions/${adaSubscription}`)).body.status).toBe('active');
      expect((await callService(origin, sk, 'GET', `/api/v1/portal/sessions?customer_id=${ada}`)).body.data).toHaveLength(1);
      expect((await callService(origin, sk, 'GET', `/api/v1/customers/${ada}`)).status).toBe(200);
      expect((await viewer.request.get(`${origin}/dashboard/test/customers.csv`)).status()).toBe(403);

      // The cancel posted twice: canceled once, with its reason.
      const canceledAt: number[] = [];
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const posted = await page.request.post(`${origin}/dashboard/act/cancel-subscription`, { form: cancel, headers: { origin }, maxRedirects: 0 });
        expect(posted.status()).toBe(303);
        expect(posted.headers().location).toBe(`/dashboard/test/subscriptions/${adaSubscription}`);
        const after = await callService(origin, sk, 'GET', `/api/v1/subscriptions/${adaSubscription}`);
        expect(after.body.status).toBe('canceled');
        canceledAt.push(after.body.canceled_at);
      }
      expect(canceledAt[1]).toBe(canceledAt[0]);
      const events = await callService(origin, sk, 'GET', '/api/v1/events?type=subscription.canceled');
      expect(events.body.data).toHaveLength(1);
      await page.reload();
      await expect(main.textContent()).resolves.toContain('Moved abroad');
      expect(await page.getByRole('button', { name: 'Cancel subscription' }).count()).toBe(0);
      await shoot(page, 'subscription-detail-canceled');

      // CSV: both exports keep the list's filters.
      await page.goto(`${origin}/dashboard/test/subscriptions?status=canceled`);
      expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe('/dashboard/test/subscriptions.csv?status=canceled');
      const subscriptionsCsv = await page.request.get(`${origin}/dashboard/test/subscriptions.csv?status=canceled`);
      expect(subscriptionsCsv.headers()['content-disposition']).toBe('attachment; filename="subscriptions-test.csv"');
      const subscriptionLines = (await subscriptionsCsv.text()).split('\r\n');
      expect(subscriptionLines[0]).toBe('id,created,status,customer_email,plan_name,amount,currency,interval,interval_count,current_period_end,canceled_at');
      expect(
        subscriptionLines
          .slice(1)
          .filter(Boolean)
          .map((line) => line.split(',').slice(0, 4).join(',')),
      ).toEqual([expect.stringMatching(new RegExp(`^${adaSubscription},[^,]+,canceled,ada@example.com$`))]);
      await page.goto(`${origin}/dashboard/test/customers?q=bob`);
      expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe('/dashboard/test/customers.csv?q=bob');
      const customersCsv = await page.request.get(`${origin}/dashboard/test/customers.csv?q=bob`);
      expect(customersCsv.status()).toBe(200);
      expect(customersCsv.headers()['content-type']).toBe('text/csv; charset=utf-8');
      const customerLines = (await customersCsv.text()).split('\r\n');
      expect(customerLines[0]).toBe('id,created,email,name');
      expect(
        customerLines
          .slice(1)
          .filter(Boolean)
          .map((line) => line.split(',')[2]),
      ).toEqual(['bob@example.com']);

      // Delete the customer: confirmed, gone from the API.
      await page.goto(`${origin}/dashboard/test/customers/${ada}`);
      await page.getByLabel('I confirm deleting this customer').check();
      await page.getByRole('button', { name: 'Delete customer' }).click();
      await page.waitForURL(/\/dashboard\/test\/customers\?deleted=/);
      await expect(page.getByRole('status').textContent()).resolves.toContain(ada);
      expect((await callService(origin, sk, 'GET', `/api/v1/customers/${ada}`)).status).toBe(404);
      expect((await page.request.get(`${origin}/dashboard/test/customers/${ada}`)).status()).toBe(404);
      await shoot(page, 'customers-deleted');
      await Promise.all([page, viewer, developer].map((person) => person.context().close()));
    });
  });
}
