import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import { invitedDashboardPage, screenshotAtWidths } from '../../support/browser';
import { adminClient, callService } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * Settings' Bank account, Payout schedule and Language in Debian's Chromium against `npm start`:
 * an owner sees test mode's starting account, is told a wrong IBAN, saves a right one (shown by
 * its last four, e-mailed to the owner), saves the live account with a fresh code, and changes
 * the schedule and the language; an admin sees no bank account and is refused its post; a
 * developer sees none of the three forms and is refused their posts.
 */
const SHOTS = '/tmp/shots-bank-account';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);
const totp = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });
const post = (page: Page, action: string, form: Record<string, string>) =>
  page.request.post(`${origin}/dashboard/act/${action}`, { form: { mode: 'test', ...form }, headers: { origin }, maxRedirects: 0 });
const bankForm = (page: Page) => page.getByRole('form', { name: 'Bank account' });

export function bankAccountSuite(): void {
  describe('dashboard settings: bank account, payout schedule, language', { timeout: 240_000 }, () => {
    it('an owner saves the bank account (a wrong IBAN named in an alert; live mode with a fresh code), the schedule and the language; an admin and a developer are refused what is not theirs', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Dock Prints' });
      const service = { origin, adminToken: ADMIN_TOKEN };
      const owner = await invitedDashboardPage(browser, service, { storeId: store.id, email: 'ines@example.com', role: 'owner' });

      // Test mode starts with the test IBAN in the store's name.
      await owner.goto(`${origin}/dashboard/test/settings`);
      for (const heading of ['Language', 'Payout schedule', 'Bank account']) expect(await owner.getByRole('heading', { name: heading, exact: true }).count()).toBe(1);
      await expect(owner.getByTestId('bank-account').textContent()).resolves.toContain('Payouts go to •••• 3000, Dock Prints');

      // A wrong IBAN: an alert naming the IBAN, nothing saved.
      await bankForm(owner).getByLabel('IBAN').fill('DE88 3704 0044 0532 0130 00');
      await bankForm(owner).getByLabel('Account holder').fill('Dock Prints Ltd');
      await bankForm(owner).getByRole('button', { name: 'Save bank account' }).click();
      await owner.waitForURL(`${origin}/dashboard/test/settings?error=iban`);
      await expect(owner.getByRole('alert').textContent()).resolves.toContain('IBAN');
      await expect(owner.getByTestId('bank-account').textContent()).resolves.toContain('•••• 3000');
      await shoot(owner, 'settings-bank-account-wrong-iban');

      // A right one, typed in groups: shown by its last four; the owner is e-mailed.
      await bankForm(owner).getByLabel('IBAN').fill('gb82 west 1234 5698 7654 32');
      await bankForm(owner).getByLabel('Account holder').fill('Dock Prints Ltd');
      await bankForm(owner).getByRole('button', { name: 'Save bank account' }).click();
      await owner.waitForURL(`${origin}/dashboard/test/settings?done=bank_account_saved`);
      await expect(owner.getByRole('status').textContent()).resolves.toBe('The bank account is saved, and every owner is told by e-mail.');
      await expect(owner.getByTestId('bank-account').textContent()).resolves.toBe('Payouts go to •••• 5432, Dock Prints Ltd');
      expect(await owner.content()).not.toContain('GB82WEST12345698765432');
      const mails = (await callService(origin, store.keys.sk_test, 'GET', '/api/v1/test_helpers/emails?template=bank_account_changed')).body.data;
      expect(mails.map((mail: { to: string; subject: string }) => [mail.to, mail.subject])).toEqual([['ines@example.com', 'The bank account of Dock Prints was changed']]);
      expect((await callService(origin, store.keys.sk_test, 'GET', '/api/v1/balance')).body.payout_hold).toMatchObject({ reason: 'destination_changed' });

      // The schedule of test mode, and the store's language.
      await owner.getByLabel('Payout schedule').selectOption({ label: 'Monthly' });
      await owner.getByRole('button', { name: 'Save payout schedule' }).click();
      await owner.waitForURL(`${origin}/dashboard/test/settings?done=payout_schedule_changed`);
      await expect(owner.getByLabel('Payout schedule').inputValue()).resolves.toBe('monthly');
      expect((await callService(origin, store.keys.sk_test, 'GET', '/api/v1/balance')).body.payout_schedule).toBe('monthly');
      expect((await callService(origin, store.keys.sk_live, 'GET', '/api/v1/balance')).body.payout_schedule).toBe('weekly');
      await owner.getByLabel('Language').selectOption({ label: 'Deutsch' });
      await owner.getByRole('button', { name: 'Save language' }).click();
      await owner.waitForURL(`${origin}/dashboard/test/settings?done=language_changed`);
      await expect(owner.getByLabel('Language').inputValue()).resolves.toBe('de');
      await owner.goto(`${origin}/dashboard/test/settings`);
      await shoot(owner, 'settings-bank-account');

      // Live mode: two-factor first, then the fresh code the form asks for.
      await owner.goto(`${origin}/dashboard/settings`);
      await expect(owner.getByTestId('bank-account').textContent()).resolves.toBe('No bank account yet: live payouts are held until one is saved.');
      expect(await bankForm(owner).count()).toBe(0);
      await owner.getByRole('button', { name: 'Turn on two-factor' }).click();
      await owner.waitForURL(`${origin}/dashboard/settings`);
      const secret = (await owner.getByTestId('totp-secret').textContent())!.trim();
      await owner.getByLabel('Authentication code').fill(await totp(secret));
      await owner.getByRole('button', { name: 'Confirm' }).click();
      await owner.waitForURL(`${origin}/dashboard/settings`);
      const backupCodes = await owner.locator('.tf-code-list li').allTextContents();
      await bankForm(owner).getByLabel('IBAN').fill('NL91 ABNA 0417 1643 00');
      await bankForm(owner).getByLabel('Account holder').fill('Dock Prints BV');
      await bankForm(owner).getByLabel('Authentication code').fill('000000');
      await bankForm(owner).getByRole('button', { name: 'Save bank account' }).click();
      await owner.waitForURL(`${origin}/dashboard/settings?error=bank_account_invalid_code`);
      await expect(owner.getByRole('alert').textContent()).resolves.toBe('The authentication code is not right. Enter the current code from your app.');
      await bankForm(owner).getByLabel('IBAN').fill('NL91 ABNA 0417 1643 00');
      await bankForm(owner).getByLabel('Account holder').fill('Dock Prints BV');
      await bankForm(owner).getByLabel('Authentication code').fill(backupCodes[0]!);
      await bankForm(owner).getByRole('button', { name: 'Save bank account' }).click();
      await owner.waitForURL(`${origin}/dashboard/settings?done=bank_account_saved`);
      await expect(owner.getByTestId('bank-account').textContent()).resolves.toBe('Payouts go to •••• 4300, Dock Prints BV');
      expect((await callService(origin, store.keys.sk_live, 'GET', '/api/v1/balance')).body.payout_hold).toMatchObject({ reason: 'destination_changed' });
      await shoot(owner, 'settings-bank-account-live');

      // An admin: the schedule and the language, but no bank account; its post refused, nothing changed.
      const admin = await invitedDashboardPage(browser, service, { storeId: store.id, email: 'aldo@example.com', role: 'admin' });
      await admin.goto(`${origin}/dashboard/test/settings`);
      expect(await admin.getByRole('heading', { name: 'Bank account' }).count()).toBe(0);
      expect(await admin.getByLabel('Payout schedule').count()).toBe(1);
      expect(await admin.getByLabel('Language').count()).toBe(1);
      const forged = await post(admin, 'bank-account-save', { iban: 'DE89370400440532013000', account_holder: 'Aldo' });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toContain('Your role may not do this in this store (aldo@example.com).');
      await owner.goto(`${origin}/dashboard/test/settings`);
      await expect(owner.getByTestId('bank-account').textContent()).resolves.toBe('Payouts go to •••• 5432, Dock Prints Ltd');

      // A developer: the language as text, no form of the three; their posts refused.
      const developer = await invitedDashboardPage(browser, service, { storeId: store.id, email: 'dev@dock.example', role: 'developer' });
      await developer.goto(`${origin}/dashboard/test/settings`);
      expect(await developer.getByRole('heading', { name: 'Payout schedule' }).count()).toBe(0);
      expect(await developer.getByRole('heading', { name: 'Bank account' }).count()).toBe(0);
      expect(await developer.getByLabel('Language').count()).toBe(0);
      await expect(developer.getByTestId('settings-language').textContent()).resolves.toContain('Deutsch');
      for (const [action, form] of [
        ['payout-schedule', { payout_schedule: 'manual' }],
        ['store-language', { language: 'en' }],
        ['bank-account-save', { iban: 'DE89370400440532013000', account_holder: 'Dev' }],
      ] as const) {
        expect((await post(developer, action, form)).status()).toBe(403);
      }
      expect((await callService(origin, store.keys.sk_test, 'GET', '/api/v1/balance')).body.payout_schedule).toBe('monthly');
      for (const page of [owner, admin, developer]) await page.context().close();
    });
  });
}
