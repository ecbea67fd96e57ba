import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshotAtWidths, invitedDashboardPage, postedFields } from '../../support/browser';
import { adminClient, callService, payOnHostedPage } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's Orders pages in Debian's Chromium against `npm start`: a support person lists,
 * searches, filters and opens test-mode orders, refunds in part and then the rest (a double
 * submit acting once), meets the over-refund alert and exports CSV; a viewer sees no refund form
 * and a refund posted anyway is refused.
 */
const SHOTS = '/tmp/shots';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

const rowIds = (page: Page) => page.locator('.dash-table tbody tr td:first-child').allTextContents();

export function ordersSuite(): void {
  describe('dashboard orders', { timeout: 240_000 }, () => {
    it('list, search, filters, detail, refunds (a double submit acts once), the over-refund alert, CSV, and a viewer refused', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Quay Prints' });
      const page = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'sam@example.com', role: 'support' });

      const product = await callService(origin, store.keys.sk_test, 'POST', '/api/v1/products', { name: 'Harbour print', amount: 2450 });
      const ids: string[] = [];
      for (const email of ['first@example.com', 'second@example.com']) {
        const session = await callService(origin, store.keys.sk_test, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: email });
        expect(await payOnHostedPage(session.body.url, origin, '4242 4242 4242 4242')).toBe(303);
        const orders = await callService(origin, store.keys.sk_test, 'GET', '/api/v1/orders?limit=1');
        ids.push(orders.body.data[0].id);
      }
      const [first, second] = ids as [string, string];

      // The list: newest first, in test mode only.
      await page.goto(`${origin}/dashboard/orders`);
      await expect(page.locator('main').textContent()).resolves.toContain('No orders yet.');
      await page.goto(`${origin}/dashboard/test/orders`);
      expect(await rowIds(page)).toEqual([second, first]);
      await expect(page.locator('.dash-table tbody tr').first().textContent()).resolves.toContain('second@example.com');
      await expect(page.locator('.dash-table tbody tr').first().textContent()).resolves.toContain('€24.50');
      await shoot(page, 'orders-list');

      // Search by e-mail (case-insensitive), then by id, then an id of nothing here.
      await page.getByLabel('Search', { exact: true }).fill('First@Example.com');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/q=First%40Example.com/);
      expect(await rowIds(page)).toEqual([first]);
      await page.getByLabel('Search', { exact: true }).fill('not an id');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Search takes an order id (ord_…) or an e-mail address.');
      await page.getByLabel('Search', { exact: true }).fill(first.replace(/_test_/, '_live_'));
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('No order found');
      await page.getByLabel('Search', { exact: true }).fill(first);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(`${origin}/dashboard/test/orders/${first}`);

      // Another mode's or an unknown id: this page's 404.
      expect((await page.request.get(`${origin}/dashboard/orders/${first}`)).status()).toBe(404);
      expect((await page.request.get(`${origin}/dashboard/test/orders/ord_test_nothing`)).status()).toBe(404);

      // The detail: lines, totals, customer, card.
      const main = page.locator('main');
      await expect(page.locator('main h1').textContent()).resolves.toBe(first);
      await expect(main.locator('.dash-table').first().textContent()).resolves.toContain('Harbour print');
      await expect(main.textContent()).resolves.toContain('first@example.com');
      await expect(main.textContent()).resolves.toMatch(/visa •••• 4242/i);
      await expect(page.getByLabel('Amount', { exact: true }).inputValue()).resolves.toBe('24.50');
      expect(await page.getByLabel('I confirm this live refund').count()).toBe(0);
      await shoot(page, 'order-detail');

      // A partial refund of 5.00, then the rest with the same form posted twice: one refund each.
      await page.getByLabel('Amount', { exact: true }).fill('5.00');
      await page.getByRole('button', { name: 'Refund' }).click();
      await page.waitForURL(`${origin}/dashboard/test/orders/${first}`);
      await expect(page.locator('main').textContent()).resolves.toContain('partially_refunded');
      await expect(page.getByLabel('Amount', { exact: true }).inputValue()).resolves.toBe('19.50');
      const remainder = await postedFields(page.locator('form.dash-refund'));
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const posted = await page.request.post(`${origin}/dashboard/act/refund`, { form: remainder, headers: { origin }, maxRedirects: 0 });
        expect(posted.status()).toBe(303);
        expect(posted.headers().location).toBe(`/dashboard/test/orders/${first}`);
      }
      const refunded = await callService(origin, store.keys.sk_test, 'GET', `/api/v1/orders/${first}`);
      expect(refunded.body.refunds.map((refund: { amount: number }) => refund.amount)).toEqual([500, 1950]);
      expect(refunded.body.status).toBe('refunded');
      await page.reload();
      expect(await page.locator('form.dash-refund').count()).toBe(0);
      await expect(page.locator('main').textContent()).resolves.toContain('€19.50');
      await shoot(page, 'order-detail-refunded');

      // Status filter.
      await page.goto(`${origin}/dashboard/test/orders`);
      await page.getByLabel('Status').selectOption('refunded');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=refunded/);
      expect(await rowIds(page)).toEqual([first]);
      await page.getByLabel('Status').selectOption('paid');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=paid/);
      expect(await rowIds(page)).toEqual([second]);
      await page.getByLabel('From').fill('2001-01-01');
      await page.getByLabel('To').fill('2001-01-31');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/to=2001-01-31/);
      await expect(page.locator('main').textContent()).resolves.toContain('No orders match these filters.');

      // More than remains: the service's refusal as an alert, nothing refunded.
      await page.goto(`${origin}/dashboard/test/orders/${second}`);
      await page.getByLabel('Amount', { exact: true }).fill('30.00');
      await page.getByRole('button', { name: 'Refund' }).click();
      await page.waitForURL(/error=above_remainder/);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('The amount exceeds what remains to refund on this order: at most €24.50.');
      await shoot(page, 'order-detail-alert');

      // CSV: every order of the filters, as an attachment.
      await page.goto(`${origin}/dashboard/test/orders`);
      const exportHref = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
      expect(exportHref).toBe('/dashboard/test/orders.csv');
      const csv = await page.request.get(`${origin}${exportHref}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers()['content-disposition']).toBe('attachment; filename="orders-test.csv"');
      const lines = (await csv.text()).split('\r\n');
      expect(lines[0]).toBe('id,created,status,customer_email,customer_id,amount_subtotal,amount_tax,amount_total,amount_refunded,currency,card_brand,card_last4');
      expect(lines.slice(1, 3).map((line) => line.split(',')[0])).toEqual([second, first]);
      const filtered = await page.request.get(`${origin}/dashboard/test/orders.csv?status=refunded`);
      expect((await filtered.text()).split('\r\n').filter(Boolean)).toHaveLength(2);

      // A viewer: no form, and the form's post refused on the server with nothing refunded.
      await page.goto(`${origin}/dashboard/test/orders/${second}`);
      const crafted = await postedFields(page.locator('form.dash-refund'));
      const viewer = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'val@example.com', role: 'viewer' });
      await viewer.goto(`${origin}/dashboard/test/orders/${second}`);
      await expect(viewer.locator('main h1').textContent()).resolves.toBe(second);
      expect(await viewer.locator('form.dash-refund').count()).toBe(0);
      const refused = await viewer.request.post(`${origin}/dashboard/act/refund`, { form: crafted, headers: { origin }, maxRedirects: 0 });
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('Your role may not do this in this store (val@example.com).');
      // The same form from another site, by a person who may refund: refused before anything is read.
      const crossSite = await page.request.post(`${origin}/dashboard/act/refund`, { form: crafted, headers: { origin: 'https://attacker.example' }, maxRedirects: 0 });
      expect(crossSite.status()).toBe(403);
      expect(await crossSite.text()).toContain('Cross-site request refused');
      expect((await viewer.request.get(`${origin}/dashboard/test/orders.csv`)).status()).toBe(403);
      const untouched = await callService(origin, store.keys.sk_test, 'GET', `/api/v1/orders/${second}`);
      expect(untouched.body).toMatchObject({ status: 'paid', amount_refunded: 0, refunds: [] });
      await viewer.context().close();
      await page.context().close();
    });
  });
}
