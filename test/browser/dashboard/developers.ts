import type { IncomingHttpHeaders, Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotAtWidths, startMerchantSite, invitedDashboardPage, postedFields } from '../../support/browser';
import { adminClient, callService } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's Products, Webhooks and Events pages in Debian's Chromium against `npm start`: a
 * developer creates, edits and deletes a product; registers an endpoint (its secret shown once),
 * edits, disables, enables it and rolls its secret; sees a delivery to a local receiver and
 * resends it (confirming, as it was delivered); filters the event log, reads a payload and resends
 * the event from its page (confirming again: the endpoint has it). A
 * support person's product and endpoint creates and a viewer's resend are refused (403).
 */
const SHOTS = '/tmp/shots-prodhooks';

let receiver: Server;
let receiverOrigin = '';
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

/** Reloads until `ready` holds (deliveries happen in the background). */
async function reloadUntil(page: Page, ready: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 40 && !(await ready()); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    await page.reload();
  }
  expect(await ready()).toBe(true);
}

const main = (page: Page) => page.locator('main');

export function developersSuite(): void {
  describe('dashboard products, webhooks and events', { timeout: 240_000 }, () => {
    beforeAll(async () => {
      const site = await startMerchantSite((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => {
          received.push({ headers: request.headers, body });
          response.writeHead(200).end('ok');
        });
      });
      receiver = site.server;
      receiverOrigin = site.origin;
    });
    afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    it('product create, edit, delete; endpoint secret once, edit, disable, roll, deliveries and resend; events; refusals', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Harbour Tools' });
      const key = store.keys.sk_test;
      const page = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'dev@example.com', role: 'developer' });

      // Products: create in test mode; the live list stays empty.
      await page.goto(`${origin}/dashboard/test/products`);
      await expect(main(page).textContent()).resolves.toContain('No products yet.');
      const create = page.getByRole('form', { name: 'New product' });
      await create.getByLabel('Name', { exact: true }).fill('Tide clock');
      await create.getByLabel('Description', { exact: true }).fill('Shows the tide.');
      await create.getByLabel('Price', { exact: true }).fill('19.9');
      await create.getByLabel('Billing', { exact: true }).selectOption('recurring');
      await create.getByLabel('Interval', { exact: true }).selectOption('year');
      await create.getByLabel('Tax rate (%)', { exact: true }).fill('20');
      expect(await create.getByLabel('Tax category', { exact: true }).inputValue()).toBe('standard');
      expect(await create.getByLabel('Tax category', { exact: true }).locator('option').allTextContents()).toEqual(['Standard', 'E-book', 'E-newspaper']);
      await create.getByLabel('Tax category', { exact: true }).selectOption({ label: 'E-book' });
      await shoot(page, 'product-create');
      await create.getByRole('button', { name: 'Create product' }).click();
      await page.waitForURL(/\/dashboard\/test\/products\/prod_test_\w+\?saved=created$/);
      const productId = new URL(page.url()).pathname.split('/').at(-1)!;
      await expect(page.getByRole('status').textContent()).resolves.toBe('Product created.');
      await expect(main(page).textContent()).resolves.toContain('€19.90 / year');
      await expect(main(page).textContent()).resolves.toContain('20 %');
      await expect(main(page).textContent()).resolves.toContain('Tax categoryE-book');
      await shoot(page, 'product-detail');
      await page.goto(`${origin}/dashboard/test/products`);
      await expect(page.locator('.dash-table tbody tr').first().textContent()).resolves.toContain('Tide clock');
      await expect(page.locator('.dash-table tbody tr').first().textContent()).resolves.toContain('€19.90 / year');
      await shoot(page, 'products-list');
      await page.goto(`${origin}/dashboard/products`);
      await expect(main(page).textContent()).resolves.toContain('No products yet.');
      expect((await page.request.get(`${origin}/dashboard/products/${productId}`)).status()).toBe(404);

      // Edit: the API's rules apply (a bad price is an alert), then saved.
      await page.goto(`${origin}/dashboard/test/products/${productId}`);
      const edit = page.getByRole('form', { name: 'Edit product' });
      await edit.getByLabel('Name', { exact: true }).fill('Tide clock (brass)');
      await edit.getByLabel('Billing', { exact: true }).selectOption('one_time');
      await edit.getByLabel('Price', { exact: true }).fill('24.50');
      expect(await edit.getByLabel('Tax category', { exact: true }).inputValue()).toBe('ebook');
      await edit.getByLabel('Tax category', { exact: true }).selectOption('enewspaper');
      await edit.getByRole('button', { name: 'Save product' }).click();
      await page.waitForURL(/saved=updated/);
      await expect(page.locator('main h1').textContent()).resolves.toBe('Tide clock (brass)');
      await expect(main(page).textContent()).resolves.toContain('€24.50');
      const product = await callService(origin, key, 'GET', `/api/v1/products/${productId}`);
      expect(product.body).toMatchObject({
        name: 'Tide clock (brass)',
        amount: 2450,
        tax_rate: 20,
        tax_category: 'enewspaper',
        description: 'Shows the tide.',
        price: { mode: 'one_time', interval: null },
      });
      const badPrice = await page.request.post(`${origin}/dashboard/act/product-update`, {
        form: { ...(await postedFields(page.getByRole('form', { name: 'Edit product' }).first())), price: '1.234' },
        headers: { origin },
        maxRedirects: 0,
      });
      expect(badPrice.headers().location).toBe(`/dashboard/test/products/${productId}?error=invalid_price`);
      await page.goto(`${origin}${badPrice.headers().location}`);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Enter a price in euros with at most two decimals, e.g. 19.99 (at most 999999.99).');

      // Refusals by direct POST: a support person may not create products or endpoints.
      const createFields = await (async () => {
        await page.goto(`${origin}/dashboard/test/products`);
        return { ...(await postedFields(page.getByRole('form', { name: 'New product' }).first())), name: 'Smuggled', price: '1.00' };
      })();
      await page.goto(`${origin}/dashboard/test/webhooks`);
      const endpointFields = { ...(await postedFields(page.getByRole('form', { name: 'New endpoint' }).first())), url: `${receiverOrigin}/smuggled` };
      const support = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'sue@example.com', role: 'support' });
      await support.goto(`${origin}/dashboard/test/products`);
      expect(await support.getByRole('form', { name: 'New product' }).count()).toBe(0);
      for (const [action, form] of [
        ['product-create', createFields],
        ['webhook-create', endpointFields],
      ] as const) {
        const refused = await support.request.post(`${origin}/dashboard/act/${action}`, { form, headers: { origin }, maxRedirects: 0 });
        expect(refused.status()).toBe(403);
        expect(await refused.text()).toContain('Your role may not do this in this store (sue@example.com).');
      }
      expect((await callService(origin, key, 'GET', '/api/v1/products')).body.data.map((item: { id: string }) => item.id)).toEqual([productId]);
      expect((await callService(origin, key, 'GET', '/api/v1/webhook_endpoints')).body.data).toEqual([]);
      await support.context().close();

      // Delete: a confirmation, then gone.
      await page.goto(`${origin}/dashboard/test/products/${productId}`);
      await page.getByLabel('Yes, delete this product', { exact: true }).check();
      await page.getByRole('button', { name: 'Delete product' }).click();
      await page.waitForURL(/\/dashboard\/test\/products\?deleted=/);
      await expect(page.getByRole('status').textContent()).resolves.toBe(`Product ${productId} deleted.`);
      await expect(main(page).textContent()).resolves.toContain('No products yet.');
      expect((await callService(origin, key, 'GET', `/api/v1/products/${productId}`)).status).toBe(404);

      // Webhooks: create; the secret is shown once, a reload no longer shows it.
      await page.goto(`${origin}/dashboard/test/webhooks`);
      await expect(main(page).textContent()).resolves.toContain('No webhook endpoints yet.');
      await page.getByLabel('URL', { exact: true }).fill(`${receiverOrigin}/hooks`);
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.waitForURL(/\/dashboard\/test\/webhooks\/we_test_\w+$/);
      const endpointId = new URL(page.url()).pathname.split('/').at(-1)!;
      const firstSecret = await page.locator('[data-secret]').textContent();
      expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
      expect(page.url()).not.toContain('whsec_');
      await shoot(page, 'webhook-created');
      await page.reload();
      expect(await page.locator('[data-secret]').count()).toBe(0);
      expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain('dash_webhook_secret');
      await expect(main(page).textContent()).resolves.toContain('Enabled');

      // Edit: product events only.
      const editEndpoint = page.getByRole('form', { name: 'Edit endpoint' });
      await editEndpoint.getByLabel('All event types', { exact: true }).uncheck();
      await editEndpoint.getByLabel('product.created', { exact: true }).check();
      await editEndpoint.getByLabel('product.updated', { exact: true }).check();
      await editEndpoint.getByRole('button', { name: 'Save endpoint' }).click();
      await page.waitForURL(/saved=updated/);
      await expect(page.locator('.dash-facts').textContent()).resolves.toContain('product.created, product.updated');

      // Disable, enable, roll the secret (the old one signs one more hour).
      await page.getByRole('button', { name: 'Disable endpoint' }).click();
      await page.waitForURL(/saved=disabled/);
      await expect(page.locator('.dash-facts').textContent()).resolves.toContain('Disabled');
      expect((await callService(origin, key, 'GET', `/api/v1/webhook_endpoints/${endpointId}`)).body.disabled).toBe(true);
      await page.getByRole('button', { name: 'Enable endpoint' }).click();
      await page.waitForURL(/saved=enabled/);
      await page.getByLabel('Old secret expires', { exact: true }).selectOption('3600');
      await page.getByRole('button', { name: 'Roll secret' }).click();
      const rolledSecret = await page.locator('[data-secret]').textContent();
      expect(rolledSecret).toMatch(/^whsec_/);
      expect(rolledSecret).not.toBe(firstSecret);
      const rolled = await callService(origin, key, 'GET', `/api/v1/webhook_endpoints/${endpointId}`);
      expect(rolled.body.previous_secret_expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);
      await page.reload();
      expect(await page.locator('[data-secret]').count()).toBe(0);

      // A product created through the API: its product.created reaches the receiver, signed with both secrets.
      const buoy = await callService(origin, key, 'POST', '/api/v1/products', { name: 'Buoy <b>&</b> "bell"', amount: 900 });
      const rows = page.locator('.dash-deliveries tbody tr');
      await reloadUntil(page, async () => (await rows.count()) === 1 && (await rows.first().textContent())!.includes('succeeded'));
      await expect(rows.first().textContent()).resolves.toContain('product.created');
      await expect(rows.first().textContent()).resolves.toContain('HTTP 200');
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'product.created', data: { object: { id: buoy.body.id } } });
      expect(String(received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      await shoot(page, 'webhook-deliveries');

      // Resend of a delivered event: the post without the confirmation is refused with an alert, then confirmed.
      const resendFields = await postedFields(page.getByRole('form', { name: `Resend ${JSON.parse(received[0]!.body).id}` }).first());
      const unconfirmed = await page.request.post(`${origin}/dashboard/act/event-resend`, { form: resendFields, headers: { origin }, maxRedirects: 0 });
      expect(unconfirmed.headers().location).toBe(`/dashboard/test/webhooks/${endpointId}?error=confirm_resend`);
      await page.goto(`${origin}${unconfirmed.headers().location}`);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('This delivery already succeeded: tick “Resend although delivered” to send the event again.');
      expect(received).toHaveLength(1);
      // A viewer may read the log but not resend.
      const viewer = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'vee@example.com', role: 'viewer' });
      await viewer.goto(`${origin}/dashboard/test/webhooks/${endpointId}`);
      await expect(viewer.locator('.dash-deliveries').textContent()).resolves.toContain('product.created');
      expect(await viewer.getByRole('button', { name: 'Resend' }).count()).toBe(0);
      const viewerResend = await viewer.request.post(`${origin}/dashboard/act/event-resend`, { form: { ...resendFields, confirm: 'yes' }, headers: { origin }, maxRedirects: 0 });
      expect(viewerResend.status()).toBe(403);
      await viewer.context().close();
      await page.getByLabel('Resend although delivered', { exact: true }).check();
      await page.getByRole('button', { name: 'Resend', exact: true }).click();
      await page.waitForURL(/saved=resent/);
      await reloadUntil(page, async () => (await rows.count()) === 2 && !(await rows.first().textContent())!.includes('pending'));
      expect(received).toHaveLength(2);
      expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
      // Status filter: both succeeded, none failed.
      await page.getByLabel('Status', { exact: true }).selectOption('failed');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=failed/);
      await expect(main(page).textContent()).resolves.toContain('No deliveries match.');

      // Events: filter by type and by object; the payload pretty-printed and escaped.
      await page.goto(`${origin}/dashboard/test/events`);
      await page.getByLabel('Type', { exact: true }).selectOption('product.*');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/type=product.\*/);
      const types = await page.locator('.dash-table tbody td[data-label="Type"]').allTextContents();
      expect(types).toEqual(['product.created', 'product.deleted', 'product.updated', 'product.created']);
      await shoot(page, 'events-list');
      await page.getByLabel('Object id', { exact: true }).fill(buoy.body.id);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/object_id=/);
      expect(await page.locator('.dash-table tbody tr').count()).toBe(1);
      await page.locator('.dash-table tbody a').first().click();
      await page.waitForURL(/\/dashboard\/test\/events\/evt_test_/);
      const payload = page.locator('[data-payload]');
      await expect(payload.textContent()).resolves.toContain('"name": "Buoy <b>&</b> \\"bell\\""');
      expect(await payload.locator('b').count()).toBe(0);
      expect(JSON.parse((await payload.textContent())!)).toMatchObject({ type: 'product.created', data: { object: { id: buoy.body.id } } });
      await shoot(page, 'event-detail');
      // The endpoint already received this event: the page asks to confirm, and nothing is sent before.
      expect(await page.getByLabel('Resend although delivered', { exact: true }).count()).toBe(0);
      await page.getByLabel('Endpoint', { exact: true }).selectOption(endpointId);
      await page.getByRole('button', { name: 'Resend event' }).click();
      await page.waitForURL(/error=confirm_resend_received/);
      expect(new URL(page.url()).searchParams.get('endpoint_id')).toBe(endpointId);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('This endpoint already received this event: tick “Resend although delivered” to send it again.');
      await expect(page.getByLabel('Endpoint', { exact: true }).inputValue()).resolves.toBe(endpointId);
      await shoot(page, 'event-resend-confirm');
      const unconfirmedLog = await callService(origin, key, 'GET', `/api/v1/webhook_endpoints/${endpointId}/deliveries?event_id=${JSON.parse(received[0]!.body).id}`);
      expect(unconfirmedLog.body.data).toHaveLength(2);
      await page.getByLabel('Resend although delivered', { exact: true }).check();
      await page.getByRole('button', { name: 'Resend event' }).click();
      await page.waitForURL(/saved=resent/);
      await expect(page.getByRole('status').textContent()).resolves.toContain('Event resent');
      const log = await callService(origin, key, 'GET', `/api/v1/webhook_endpoints/${endpointId}/deliveries?event_id=${JSON.parse(received[0]!.body).id}`);
      expect(log.body.data).toHaveLength(3);
      await page.context().close();
    });
  });
}
