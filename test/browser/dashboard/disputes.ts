import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { invitedDashboardPage, postedFields, screenshotAtWidths } from '../../support/browser';
import { adminClient, callService, payOnHostedPage } from '../../support/production-server';
import { DISPUTE_CARDS } from '../../disputes/support';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's disputes in Debian's Chromium against `npm start`: two test payments with the
 * dispute cards open two disputes; a support person finds them under Disputes (filtered by
 * status), opens an order, saves evidence, submits it once confirmed, and then sees it read-only;
 * a viewer sees the dispute without the form or the evidence pack, and a post anyway is refused.
 */
const SHOTS = '/tmp/shots-disputes';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);
/** Epoch seconds as the dashboard writes them. */
const utcTime = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const CONFIRMATION = 'I confirm this evidence is complete: it cannot be changed after submitting';

const rows = (page: Page) => page.locator('.dash-table tbody tr');
const disputeSection = (page: Page) => page.getByRole('region', { name: 'Dispute', exact: true });

export function disputesSuite(): void {
  describe('dashboard disputes', { timeout: 240_000 }, () => {
    it('the Disputes list and its filter, the order’s Dispute section, evidence saved and then submitted once confirmed, read-only after; a viewer without the form', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Lantern Press', taxCalculation: true });
      const key = store.keys.sk_test;
      const page = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'sia@example.com', role: 'support' });

      const product = await callService(origin, key, 'POST', '/api/v1/products', { name: 'Night atlas', amount: 2000, tax_rate: 19 });
      const orders: { id: string; dispute_id: string }[] = [];
      for (const card of [DISPUTE_CARDS.fraudulent, DISPUTE_CARDS.productNotReceived]) {
        const session = await callService(origin, key, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: 'reader@example.com' });
        expect(await payOnHostedPage(session.body.url, origin, card)).toBe(303);
        orders.unshift((await callService(origin, key, 'GET', `/api/v1/orders/${session.body.order_id}`)).body);
      }
      const [newest, oldest] = orders as [{ id: string; dispute_id: string }, { id: string; dispute_id: string }];
      const dispute = (await callService(origin, key, 'GET', `/api/v1/disputes/${newest.dispute_id}`)).body;
      expect(dispute).toMatchObject({ order_id: newest.id, reason: 'product_not_received', status: 'needs_response', amount: 2380 });

      // Disputes: in the navigation of both modes; the test disputes newest first, each with its deadline.
      await page.goto(`${origin}/dashboard/test`);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Disputes' }).click();
      await page.waitForURL(`${origin}/dashboard/test/disputes`);
      await expect(page.locator('main h1').innerText()).resolves.toBe('Disputes');
      expect(await rows(page).count()).toBe(2);
      const first = await rows(page).first().innerText();
      expect(first).toContain(newest.id);
      expect(first).toContain('Product not received');
      expect(first).toContain(`Respond by ${utcTime(dispute.evidence_due_by)}`);
      expect(first).toContain('€23.80');
      await expect(rows(page).nth(1).innerText()).resolves.toContain('Fraudulent');
      await shoot(page, 'disputes-list');

      // Live mode has none.
      await page.getByRole('link', { name: 'Test mode' }).click();
      await page.waitForURL(`${origin}/dashboard/disputes`);
      await expect(page.locator('main').innerText()).resolves.toContain('No disputes yet.');
      await page.goto(`${origin}/dashboard/test/disputes`);

      // The order page: the Dispute section with its facts, the evidence pack and the empty form.
      await page.getByRole('link', { name: newest.id }).click();
      await page.waitForURL(`${origin}/dashboard/test/orders/${newest.id}`);
      const section = disputeSection(page);
      const facts = await section.locator('.dash-facts').innerText();
      expect(facts).toMatch(new RegExp(`Status\\s+needs_response\\s*Respond by ${utcTime(dispute.evidence_due_by)}`));
      expect(facts).toMatch(/Reason\s+Product not received/);
      expect(facts).toMatch(/Amount\s+€23\.80/);
      expect(facts).toMatch(/Evidence submitted\s+—/);
      expect(facts).toContain(dispute.id);
      await expect(section.getByRole('link', { name: 'Download evidence pack' }).getAttribute('href')).resolves.toBe(`/dashboard/test/disputes/${dispute.id}/evidence.pdf`);
      // The card network took the payment back: no refund form while the dispute is open.
      expect(await page.locator('form.dash-refund').count()).toBe(0);
      await expect(page.getByRole('region', { name: 'Refunds', exact: true }).innerText()).resolves.toContain('This order is disputed: it cannot be refunded');
      for (const label of ['Customer communication', 'Product description', 'Additional information']) await expect(page.getByLabel(label, { exact: true }).inputValue()).resolves.toBe('');

      // Save evidence (no confirmation needed): the notice, and the fields as saved.
      await page.getByLabel('Customer communication', { exact: true }).fill('3 March: “The download link works, thank you.”');
      await page.getByLabel('Product description', { exact: true }).fill('A printed atlas as a PDF.\nDownloaded twice on the day of purchase.');
      await shoot(page, 'order-dispute-form');
      await page.getByRole('button', { name: 'Save evidence' }).click();
      await page.waitForURL(`${origin}/dashboard/test/orders/${newest.id}?saved=evidence_saved`);
      await expect(section.getByRole('status').innerText()).resolves.toBe('Evidence saved. Submit it before the deadline; what is saved then is submitted for you.');
      await expect(page.getByLabel('Product description', { exact: true }).inputValue()).resolves.toBe('A printed atlas as a PDF.\nDownloaded twice on the day of purchase.');
      const saved = (await callService(origin, key, 'GET', `/api/v1/disputes/${dispute.id}`)).body;
      expect(saved).toMatchObject({
        status: 'needs_response',
        evidence: {
          customer_communication: '3 March: “The download link works, thank you.”',
          product_description: 'A printed atlas as a PDF.\nDownloaded twice on the day of purchase.',
          uncategorized_text: null,
        },
      });

      // Submit evidence: the box must be ticked (a post without it is refused with the reason).
      await page.getByLabel('Additional information', { exact: true }).fill('Customer since 2024.');
      const unconfirmed = { ...(await postedFields(section.locator('form'))), intent: 'submit' };
      const refusedSubmit = await page.request.post(`${origin}/dashboard/act/dispute-evidence`, { form: unconfirmed, headers: { origin }, maxRedirects: 0 });
      expect(refusedSubmit.status()).toBe(303);
      expect(refusedSubmit.headers().location).toBe(`/dashboard/test/orders/${newest.id}?error=confirm_submit`);
      await page.getByRole('button', { name: 'Submit evidence' }).click();
      expect(page.url()).toBe(`${origin}/dashboard/test/orders/${newest.id}?saved=evidence_saved`);
      await page.getByLabel(CONFIRMATION).check();
      await page.getByRole('button', { name: 'Submit evidence' }).click();
      await page.waitForURL(`${origin}/dashboard/test/orders/${newest.id}?saved=evidence_submitted`);
      await expect(section.getByRole('status').innerText()).resolves.toBe('Evidence submitted: the dispute is under review.');
      const submitted = (await callService(origin, key, 'GET', `/api/v1/disputes/${dispute.id}`)).body;
      expect(submitted).toMatchObject({ status: 'under_review', evidence: { ...saved.evidence, uncategorized_text: 'Customer since 2024.' } });
      const after = await section.innerText();
      expect(after).toMatch(new RegExp(`Evidence submitted\\s+${utcTime(submitted.evidence_submitted_at)}`));
      expect(after).not.toContain('Respond by');
      expect(after).toMatch(/Additional information\s+Customer since 2024\./);
      expect(await section.locator('form').count()).toBe(0);
      await shoot(page, 'order-dispute-submitted');

      // The same form posted again: the service's refusal on the page, nothing changed.
      const again = await page.request.post(`${origin}/dashboard/act/dispute-evidence`, { form: { ...unconfirmed, confirm: 'yes' }, headers: { origin }, maxRedirects: 0 });
      expect(again.headers().location).toBe(`/dashboard/test/orders/${newest.id}?error=dispute_not_editable`);
      await page.goto(`${origin}${again.headers().location}`);
      await expect(section.getByRole('alert').innerText()).resolves.toBe(`Dispute ${dispute.id} is under_review: its evidence can no longer change.`);
      await shoot(page, 'order-dispute-refused');
      expect((await callService(origin, key, 'GET', `/api/v1/disputes/${dispute.id}`)).body).toEqual(submitted);

      // The list filtered by status.
      await page.goto(`${origin}/dashboard/test/disputes`);
      await page.getByLabel('Status').selectOption('under_review');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=under_review/);
      expect(await rows(page).count()).toBe(1);
      const reviewed = await rows(page).first().innerText();
      expect(reviewed).toContain(newest.id);
      expect(reviewed).not.toContain('Respond by');
      await page.getByLabel('Status').selectOption('needs_response');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=needs_response/);
      await expect(rows(page).allInnerTexts()).resolves.toEqual([expect.stringContaining(oldest.id)]);
      await page.getByLabel('Status').selectOption('won');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/status=won/);
      await expect(page.locator('main').innerText()).resolves.toContain('No disputes match these filters.');

      // A viewer: the Disputes link and the dispute, no pack and no form; the form's post refused.
      const viewer = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'vik@example.com', role: 'viewer' });
      await viewer.goto(`${origin}/dashboard/test/orders/${oldest.id}`);
      const viewed = disputeSection(viewer);
      await expect(viewed.locator('.dash-facts').innerText()).resolves.toMatch(/Status\s+needs_response\s*Respond by/);
      expect(await viewed.getByRole('link', { name: 'Download evidence pack' }).count()).toBe(0);
      expect(await viewed.locator('form').count()).toBe(0);
      expect(await viewer.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Disputes' }).count()).toBe(1);
      const crafted = { ...unconfirmed, dispute_id: oldest.dispute_id, order_id: oldest.id, intent: 'save' };
      const refused = await viewer.request.post(`${origin}/dashboard/act/dispute-evidence`, { form: crafted, headers: { origin }, maxRedirects: 0 });
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('Your role may not do this in this store (vik@example.com).');
      expect((await callService(origin, key, 'GET', `/api/v1/disputes/${oldest.dispute_id}`)).body.evidence).toEqual({
        customer_communication: null,
        product_description: null,
        uncategorized_text: null,
      });
      for (const each of [page, viewer]) await each.context().close();
    });
  });
}
