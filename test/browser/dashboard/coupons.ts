import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { invitedDashboardPage, screenshotAtWidths } from '../../support/browser';
import { adminClient, callService } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's Coupons pages in Debian's Chromium against `npm start`: a developer creates a
 * coupon and a promotion code, deactivates and activates the code, deletes the coupon (its code
 * deactivated), each change seen through the API and audited as the person; support is refused.
 */
const SHOTS = '/tmp/shots-coupons';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

export function couponsSuite(): void {
  describe('dashboard coupons', { timeout: 300_000 }, () => {
    it('New coupon, New promotion code, Deactivate, Activate, Delete coupon; support refused', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Coupon Corner' });
      const sk = store.keys.sk_test;
      const [page, support] = await Promise.all([
        invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'dev-coupons@example.com', role: 'developer' }),
        invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'sup-coupons@example.com', role: 'support' }),
      ]);

      // The navigation lists Coupons right after Products.
      await page.goto(`${origin}/dashboard/test/coupons`);
      const navigation = await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents();
      expect(navigation.slice(navigation.indexOf('Products'), navigation.indexOf('Products') + 2)).toEqual(['Products', 'Coupons']);
      await expect(page.getByText('No coupons yet.').count()).resolves.toBe(1);

      // New coupon: 15 % off for 3 months, at most 100 redemptions.
      const form = page.getByRole('form', { name: 'New coupon' });
      await form.getByLabel('Name').fill('Summer sale');
      await form.getByLabel('Value').fill('15');
      await form.getByLabel('Duration').selectOption('repeating');
      await form.getByLabel('Months (repeating)').fill('3');
      await form.getByLabel('Redemption limit').fill('100');
      await form.getByRole('button', { name: 'Create coupon' }).click();
      await page.waitForURL(/\/dashboard\/test\/coupons\/cpn_test_[0-9A-Za-z]+\?saved=created/);
      const couponId = new URL(page.url()).pathname.split('/').at(-1)!;
      await expect(page.getByRole('status').textContent()).resolves.toBe('Coupon created.');
      const coupon = await callService(origin, sk, 'GET', `/api/v1/coupons/${couponId}`);
      expect(coupon.body).toMatchObject({ name: 'Summer sale', percent_off: 15, amount_off: null, duration: 'repeating', duration_in_months: 3, max_redemptions: 100, valid: true });
      await shoot(page, 'coupon-created');

      // New promotion code; a taken code (other case) is refused with the reason.
      const codeForm = page.getByRole('form', { name: 'New promotion code' });
      await codeForm.getByLabel('Code').fill('SUMMER25');
      await codeForm.getByRole('button', { name: 'Create promotion code' }).click();
      await page.waitForURL(/saved=code_created/);
      await page.getByRole('form', { name: 'New promotion code' }).getByLabel('Code').fill('summer25');
      await page.getByRole('form', { name: 'New promotion code' }).getByRole('button', { name: 'Create promotion code' }).click();
      await page.waitForURL(/error=promotion_code_unavailable/);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('already used');
      const codes = (await callService(origin, sk, 'GET', `/api/v1/promotion_codes?coupon=${couponId}`)).body.data;
      expect(codes).toEqual([expect.objectContaining({ code: 'SUMMER25', active: true })]);
      await shoot(page, 'coupon-code-taken');

      // Deactivate, then Activate.
      await page.getByRole('button', { name: 'Deactivate' }).click();
      await page.waitForURL(/saved=code_deactivated/);
      expect((await callService(origin, sk, 'GET', `/api/v1/promotion_codes/${codes[0].id}`)).body.active).toBe(false);
      await shoot(page, 'coupon-code-deactivated');
      await page.getByRole('button', { name: 'Activate' }).click();
      await page.waitForURL(/saved=code_activated/);
      expect((await callService(origin, sk, 'GET', `/api/v1/promotion_codes/${codes[0].id}`)).body.active).toBe(true);

      // The list shows the coupon.
      await page.goto(`${origin}/dashboard/test/coupons`);
      expect(await page.locator('.dash-table tbody tr td:first-child').allTextContents()).toEqual(['Summer sale']);
      await shoot(page, 'coupons-list');

      // Support may neither see the pages nor post the forms.
      expect((await support.request.get(`${origin}/dashboard/test/coupons`)).status()).toBe(403);
      expect((await support.request.get(`${origin}/dashboard/test/coupons/${couponId}`)).status()).toBe(403);
      await support.goto(`${origin}/dashboard/test/orders`);
      expect(await support.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Coupons' }).count()).toBe(0);
      const refused = await support.request.post(`${origin}/dashboard/act/coupon-delete`, { form: { mode: 'test', coupon_id: couponId, confirm: 'yes' }, headers: { origin }, maxRedirects: 0 });
      expect(refused.status()).toBe(403);

      // Delete coupon: confirmed; the coupon is gone and its code inactive.
      await page.goto(`${origin}/dashboard/test/coupons/${couponId}`);
      await page.getByLabel('Yes, delete this coupon').check();
      await page.getByRole('button', { name: 'Delete coupon' }).click();
      await page.waitForURL(/\/dashboard\/test\/coupons\?deleted=/);
      await expect(page.getByRole('status').textContent()).resolves.toContain(couponId);
      expect((await callService(origin, sk, 'GET', `/api/v1/coupons/${couponId}`)).status).toBe(404);
      expect((await callService(origin, sk, 'GET', `/api/v1/promotion_codes/${codes[0].id}`)).body.active).toBe(false);
      expect((await page.request.get(`${origin}/dashboard/test/coupons/${couponId}`)).status()).toBe(404);
      await shoot(page, 'coupon-deleted');

      // Every change is audited as the person.
      await page.goto(`${origin}/dashboard/test/audit`);
      const audit = await page.locator('main').textContent();
      for (const action of ['coupon.create', 'promotion_code.create', 'promotion_code.update', 'coupon.delete']) expect(audit).toContain(action);
      expect(audit).toContain('dev-coupons@example.com');
      await Promise.all([page, support].map((person) => person.context().close()));
    });
  });
}
