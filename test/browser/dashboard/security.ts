import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshotAtWidths, invitedDashboardPage } from '../../support/browser';
import { adminClient, callService } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * Two-factor and API keys in Debian's Chromium against `npm start`: an owner without two-factor is
 * refused a live change, turns two-factor on (the code computed here from the secret on the
 * page), signs in again with a code and with a backup code (once), and manages keys: created and
 * shown once, rolled with a grace period, revoked; live key actions ask for a fresh code; a
 * developer may not create, roll or revoke live secret keys; a support person may not create keys.
 */
const SHOTS = '/tmp/shots-security';
const PASSWORD = 'owner password 2026';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);
/** The code of the step `stepsAhead` after now (the service accepts one step either side). */
const totp = (secret: string, stepsAhead = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

async function signInWithCode(page: Page, email: string, code: string): Promise<void> {
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/step=code/);
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
}

const post = (page: Page, action: string, form: Record<string, string>) => page.request.post(`${origin}/dashboard/act/${action}`, { form, headers: { origin }, maxRedirects: 0 });
const keyRow = (page: Page, hint: string) => page.locator('.dash-table tbody tr', { hasText: hint });

export function securitySuite(): void {
  describe('dashboard security', { timeout: 240_000 }, () => {
    it('two-factor on, sign-in with a code and a backup code, the live-change rule, and API keys created, rolled and revoked', async () => {
      const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Lock & Key' });
      const email = 'oona@example.com';
      const page = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: email, role: 'owner', password: PASSWORD });

      // An owner without two-factor: every live-mode change refused, nothing made.
      const refused = await post(page, 'api-key-create', { mode: 'live', kind: 'secret' });
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('turn it on in Settings');

      // Turn on: the secret and QR code, then a code computed from the secret on the page.
      await page.goto(`${origin}/dashboard/settings`);
      await page.getByRole('button', { name: 'Turn on two-factor' }).click();
      await page.waitForURL(`${origin}/dashboard/settings`);
      const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(await page.locator('.tf-qr svg').count()).toBe(1);
      await shoot(page, 'two-factor-setup');
      await page.getByLabel('Authentication code').fill(await totp(secret));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.waitForURL(`${origin}/dashboard/settings`);
      const backupCodes = await page.locator('.tf-code-list li').allTextContents();
      expect(backupCodes).toHaveLength(10);
      await expect(page.locator('main').textContent()).resolves.toContain('Two-factor is on. 10 of 10 backup codes left.');
      await shoot(page, 'two-factor-backup-codes');
      await page.reload();
      expect(await page.locator('.tf-code-list').count()).toBe(0);

      // Sign out; the password then asks for the code: a wrong one is an alert, the next step's code signs in.
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(/\/dashboard\/sign-in/);
      await signInWithCode(page, email, '000000');
      await page.waitForURL(/error=invalid_code/);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('The authentication code is not right.');
      await shoot(page, 'sign-in-code-alert');
      await page.getByLabel('Authentication code').fill(await totp(secret, 1));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(`${origin}/dashboard`);

      // A backup code signs in once.
      for (const outcome of ['signed in', 'refused']) {
        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        await page.waitForURL(/\/dashboard\/sign-in/);
        await signInWithCode(page, email, backupCodes[0]!);
        if (outcome === 'signed in') await page.waitForURL(`${origin}/dashboard`);
        else await expect(page.getByRole('alert').textContent()).resolves.toBe('The authentication code is not right.');
      }
      await page.getByLabel('Authentication code').fill(backupCodes[1]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(`${origin}/dashboard`);

      // Test-mode keys: a new key shown once and working; reload hides it.
      await page.goto(`${origin}/dashboard/test/api-keys`);
      await page.getByLabel('Kind').selectOption('secret');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForURL(`${origin}/dashboard/test/api-keys`);
      const created = (await page.getByTestId('new-api-key').textContent())!.trim();
      expect(created).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
      expect(page.url()).not.toContain(created);
      expect((await callService(origin, created, 'GET', '/api/v1/products')).status).toBe(200);
      await shoot(page, 'api-keys-created');
      await page.reload();
      expect(await page.getByTestId('new-api-key').count()).toBe(0);
      await expect(page.locator('main').textContent()).resolves.not.toContain(created);
      const createdHint = `sk_test_…${created.slice(-4)}`;
      await expect(keyRow(page, createdHint).textContent()).resolves.toContain('active');

      // Roll the store's first key with an hour's grace: both keys work meanwhile.
      const firstHint = `sk_test_…${store.keys.sk_test.slice(-4)}`;
      await keyRow(page, firstHint).locator('summary').click();
      const roll = page.getByRole('form', { name: `Roll ${firstHint}` });
      await roll.getByLabel('Old key stops working').selectOption('3600');
      await roll.getByRole('button', { name: 'Roll key' }).click();
      await page.waitForURL(`${origin}/dashboard/test/api-keys`);
      const rolled = (await page.getByTestId('new-api-key').textContent())!.trim();
      expect(rolled).toMatch(/^sk_test_/);
      await expect(keyRow(page, firstHint).textContent()).resolves.toMatch(/expires \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      expect((await callService(origin, store.keys.sk_test, 'GET', '/api/v1/products')).status).toBe(200);
      expect((await callService(origin, rolled, 'GET', '/api/v1/products')).status).toBe(200);

      // Revoke with the confirmation: at once.
      await keyRow(page, createdHint).locator('summary').click();
      const revoke = page.getByRole('form', { name: `Revoke ${createdHint}` });
      await revoke.getByLabel(/I confirm revoking this key/).check();
      await revoke.getByRole('button', { name: 'Revoke key' }).click();
      await page.waitForURL(`${origin}/dashboard/test/api-keys`);
      await expect(keyRow(page, createdHint).textContent()).resolves.toContain('revoked');
      expect((await callService(origin, created, 'GET', '/api/v1/products')).status).toBe(401);
      await shoot(page, 'api-keys-test');

      // Live keys: no fresh code, refused; with one (a backup code), made.
      const noCode = await post(page, 'api-key-create', { mode: 'live', kind: 'secret' });
      expect(noCode.status()).toBe(303);
      expect(noCode.headers().location).toBe('/dashboard/api-keys?error=code_required');
      await page.goto(`${origin}/dashboard/api-keys?error=code_required`);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Enter a current authentication code from your app to change live-mode keys.');
      await page.getByRole('form', { name: 'Create a key' }).getByLabel('Authentication code').fill(backupCodes[2]!);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForURL(`${origin}/dashboard/api-keys`);
      await expect(page.getByTestId('new-api-key').textContent()).resolves.toMatch(/^sk_live_/);
      await keyRow(page, `sk_live_…${store.keys.sk_live.slice(-4)}`)
        .locator('summary')
        .click();
      await shoot(page, 'api-keys-live');

      // A developer keeps test keys and live publishable keys; live secret keys, which can refund,
      // are the owners' and admins': no control on the page, and crafted posts refused, nothing changed.
      const liveSecretHint = `sk_live_…${store.keys.sk_live.slice(-4)}`;
      const liveSecretId = await page
        .getByRole('form', { name: `Roll ${liveSecretHint}` })
        .locator('input[name="key_id"]')
        .getAttribute('value');
      expect(liveSecretId).toMatch(/^key_/);
      const developer = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'dev.keys@example.com', role: 'developer' });
      await developer.goto(`${origin}/dashboard/api-keys`);
      await expect(developer.locator('main').textContent()).resolves.toContain('Live secret keys are created, rolled and revoked by the store’s owners and admins.');
      expect(await developer.getByLabel('Kind').locator('option').allTextContents()).toEqual(['publishable']);
      expect(await keyRow(developer, liveSecretHint).locator('summary').count()).toBe(0);
      expect(
        await keyRow(developer, `pk_live_…${store.keys.pk_live.slice(-4)}`)
          .locator('summary')
          .count(),
      ).toBe(1);
      await shoot(developer, 'api-keys-live-developer');
      const liveRows = await developer.locator('.dash-table tbody tr').count();
      for (const [action, form] of [
        ['api-key-create', { mode: 'live', kind: 'secret' }],
        ['api-key-roll', { mode: 'live', key_id: liveSecretId!, expires_in: '0' }],
        ['api-key-revoke', { mode: 'live', key_id: liveSecretId!, confirm: 'yes' }],
      ] as const) {
        const refusedKey = await post(developer, action, form);
        expect(refusedKey.status(), action).toBe(403);
      }
      await developer.reload();
      expect(await developer.locator('.dash-table tbody tr').count()).toBe(liveRows);
      await expect(keyRow(developer, liveSecretHint).textContent()).resolves.toContain('active');
      expect((await callService(origin, store.keys.sk_live, 'GET', '/api/v1/products')).status).toBe(200);
      for (const [mode, kind, keys] of [
        ['test', 'secret', '/dashboard/test/api-keys'],
        ['live', 'publishable', '/dashboard/api-keys'],
      ] as const) {
        const made = await post(developer, 'api-key-create', { mode, kind });
        expect(made.status()).toBe(303);
        expect(made.headers().location).toBe(keys);
      }
      await developer.context().close();

      // A support person: no key forms, and a crafted post refused.
      const support = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'sid@example.com', role: 'support', password: 'support password 2026' });
      await support.goto(`${origin}/dashboard/test/api-keys`);
      expect(await support.getByRole('button', { name: 'Create key' }).count()).toBe(0);
      const supportPost = await post(support, 'api-key-create', { mode: 'test', kind: 'secret' });
      expect(supportPost.status()).toBe(403);
      await support.context().close();
      await page.context().close();
    });
  });
}
