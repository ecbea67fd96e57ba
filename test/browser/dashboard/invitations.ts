import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { invitedDashboardPage, newContext, screenshotAtWidths } from '../../support/browser';
import { adminClient, runAdminCli } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * Invitations across two stores in Debian's Chromium against `npm start` (no SMTP): the owner of
 * store B invites store A's owner (who has a password), a person the operator invited to A who has
 * none yet, and a fresh e-mail. B never sees a link that sets a password, and cannot sign in as
 * any of them; A's session in store A goes on through all of it; A sees store B only once A,
 * signed in, accepts; B's removal of A ends A's access to B alone. "Forgot password?" answers
 * without a link; `user:reset --clear-two-factor` (the operator's CLI) turns a lost two-factor off.
 */
const SHOTS = '/tmp/shots-invitations';
const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);
const totp = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

const ACCEPT_LINK = /\/dashboard\/accept\//;
const memberRow = (page: Page, email: string) => page.locator('.dash-table tbody tr', { hasText: email });

/** Invites through Settings' form and answers the notice the page shows once. */
async function inviteFromSettings(page: Page, email: string, role: string) {
  await page.goto(`${origin}/dashboard/test/settings`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption(role);
  await page.getByRole('button', { name: 'Invite' }).click();
  await page.waitForURL(`${origin}/dashboard/test/settings?done=invited`);
  const notice = page.locator('.dash-notice[data-delivery]');
  return { delivery: await notice.getAttribute('data-delivery'), text: (await notice.textContent())!, html: await page.content() };
}

/** Sets a password on a link in a fresh browser; answers the page the person lands on. */
async function setPasswordWith(url: string, password: string): Promise<Page> {
  const page = await (await newContext(browser)).newPage();
  await page.goto(url);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL((address) => address.pathname !== new URL(url).pathname);
  return page;
}

/** A sign-in attempt with the form in a fresh browser; answers where it ended. */
async function trySignIn(email: string, password: string): Promise<string> {
  const page = await (await newContext(browser)).newPage();
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((address) => address.search !== '' || address.pathname !== '/dashboard/sign-in');
  const where = `${new URL(page.url()).pathname}${new URL(page.url()).search}`;
  await page.context().close();
  return where;
}

/** Store A's page in A's one browser: still signed in, in store A. */
async function expectStillInStoreA(page: Page, storeName: string) {
  await page.goto(`${origin}/dashboard/test`);
  expect(new URL(page.url()).pathname).toBe('/dashboard/test');
  await expect(page.locator('.dash-store').textContent()).resolves.toBe(storeName);
}

export function invitationsSuite(): void {
  describe('dashboard invitations across two stores', { timeout: 300_000 }, () => {
    it('B invites A, an operator-invited person and a fresh e-mail: no link reaches B; A accepts signed in, then sees B; removal ends B alone', async () => {
      const admin = adminClient(origin, ADMIN_TOKEN);
      const storeA = await admin.store.create.mutate({ name: 'Alder Goods' });
      const storeB = await admin.store.create.mutate({ name: 'Birch Supplies' });
      const amy = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: storeA.id, email: 'amy.alder@example.com', role: 'owner', password: 'amy password 2026' });
      const ben = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: storeB.id, email: 'ben.birch@example.com', role: 'owner', password: 'ben password 2026' });
      await expectStillInStoreA(amy, 'Alder Goods');

      // 1. B invites A's e-mail: nothing B gets sets a password; A's membership waits for A.
      const invitedAmy = await inviteFromSettings(ben, 'Amy.Alder@example.com', 'admin');
      expect(invitedAmy.delivery).toBe('awaiting_sign_in');
      expect(invitedAmy.text).toBe(
        'amy.alder@example.com (admin) already has an account: the invitation waits for them when they next sign in. They join the store once they accept it, signed in as themselves.',
      );
      expect(invitedAmy.html).not.toMatch(ACCEPT_LINK);
      expect(await memberRow(ben, 'amy.alder@example.com').textContent()).toContain('invitation pending');
      await shoot(ben, 'settings-invited-existing');
      expect(await trySignIn('amy.alder@example.com', 'ben password 2026')).toBe('/dashboard/sign-in?error=invalid_credentials');

      // A's session in store A is untouched, and store B is not A's yet: only a notice.
      await expectStillInStoreA(amy, 'Alder Goods');
      expect(await amy.locator('#dash-store-select').count()).toBe(0);
      await expect(amy.locator('aside[aria-label="Invitations"]').textContent()).resolves.toBe('You are invited to Birch Supplies. Accept or decline');

      // A accepts, signed in as A: only now is B A's.
      await amy.getByRole('link', { name: 'Accept or decline' }).click();
      await amy.waitForURL(`${origin}/dashboard/invitations`);
      await expect(amy.locator('main').textContent()).resolves.toContain('Birch Supplies invites you as admin.');
      await shoot(amy, 'invitations-pending');
      await amy.getByRole('button', { name: 'Accept the invitation to Birch Supplies' }).click();
      await amy.waitForURL(`${origin}/dashboard`);
      await expect(amy.locator('.dash-store').textContent()).resolves.toBe('Birch Supplies');
      expect(await amy.locator('#dash-store-select option').allTextContents()).toEqual(['Alder Goods', 'Birch Supplies']);
      expect(await amy.locator('aside[aria-label="Invitations"]').count()).toBe(0);
      await ben.goto(`${origin}/dashboard/test/settings`);
      expect(await memberRow(ben, 'amy.alder@example.com').textContent()).not.toContain('invitation pending');

      // B removes A: A's access to B ends at once, A's session (and store A) goes on.
      await ben.getByRole('button', { name: 'Remove amy.alder@example.com' }).click();
      await ben.waitForURL(`${origin}/dashboard/test/settings?done=removed`);
      await expect(ben.getByRole('status').textContent()).resolves.toBe('The member is removed: their access to this store has ended.');
      await expectStillInStoreA(amy, 'Alder Goods');
      expect(await amy.locator('#dash-store-select').count()).toBe(0);

      // 2. A person the operator invited to A, who has not opened their link yet: B's invitation
      //    makes a link for their e-mail only (no SMTP here: the page says the operator hands it over).
      const cleoLink = (await runAdminCli(origin, ADMIN_TOKEN, ['user:invite', '--store', storeA.id, '--email', 'cleo.alder@example.com', '--role', 'viewer'])).url as string;
      const invitedCleo = await inviteFromSettings(ben, 'cleo.alder@example.com', 'owner');
      expect(invitedCleo.delivery).toBe('link_not_sent');
      expect(invitedCleo.html).not.toMatch(ACCEPT_LINK);
      await expect(ben.locator('.settings-command').textContent()).resolves.toBe('npm run admin -- user:reset --email cleo.alder@example.com');
      await shoot(ben, 'settings-invited-no-mail');
      // "Forgot password?" for Cleo: the same answer as for anyone, and no link on the page.
      const forgot = await (await newContext(browser)).newPage();
      await forgot.goto(`${origin}/dashboard/sign-in`);
      await forgot.getByRole('link', { name: 'Forgot password?' }).click();
      await forgot.waitForURL(`${origin}/dashboard/sign-in/forgot`);
      await shoot(forgot, 'forgot-password');
      await forgot.getByLabel('Email', { exact: true }).fill('cleo.alder@example.com');
      await forgot.getByRole('button', { name: 'Send reset link' }).click();
      await forgot.waitForURL(/\/dashboard\/sign-in\/forgot\?/);
      const answerForCleo = await forgot.getByRole('alert').textContent();
      expect(answerForCleo).toBe('This service sends no e-mail, so it cannot send you a link. Ask the person who runs it for a password reset link.');
      expect(await forgot.content()).not.toMatch(ACCEPT_LINK);
      await shoot(forgot, 'forgot-password-answered');
      await forgot.goto(`${origin}/dashboard/sign-in/forgot`);
      await forgot.getByLabel('Email', { exact: true }).fill('nobody.at.all@example.com');
      await forgot.getByRole('button', { name: 'Send reset link' }).click();
      await forgot.waitForURL(/\/dashboard\/sign-in\/forgot\?/);
      await expect(forgot.getByRole('alert').textContent()).resolves.toBe(answerForCleo);
      await forgot.context().close();
      // The operator's link is still Cleo's: it sets her password and lands her on B's invitation, pending.
      const cleo = await setPasswordWith(cleoLink, 'cleo password 2026');
      expect(cleo.url()).toBe(`${origin}/dashboard/invitations`);
      await expect(cleo.locator('main').textContent()).resolves.toContain('Birch Supplies invites you as owner.');
      await cleo.getByRole('button', { name: 'Decline the invitation to Birch Supplies' }).click();
      await cleo.waitForURL(`${origin}/dashboard/invitations?done=declined`);
      await expect(cleo.locator('main').textContent()).resolves.toContain('No invitation is waiting for you.');
      await ben.goto(`${origin}/dashboard/test/settings`);
      expect(await memberRow(ben, 'cleo.alder@example.com').count()).toBe(0);

      // 3. Pre-registration: a fresh e-mail. B gets no link; only the operator's CLI (or the
      //    person's own e-mail) can hand one over, and the invitation still waits for its person.
      const invitedDora = await inviteFromSettings(ben, 'dora.new@example.com', 'admin');
      expect(invitedDora.delivery).toBe('link_not_sent');
      expect(invitedDora.html).not.toMatch(ACCEPT_LINK);
      await shoot(ben, 'settings-invited-new');
      expect(await trySignIn('dora.new@example.com', 'ben password 2026')).toBe('/dashboard/sign-in?error=invalid_credentials');
      const doraReset = (await runAdminCli(origin, ADMIN_TOKEN, ['user:reset', '--email', 'dora.new@example.com'])).url as string;
      const dora = await setPasswordWith(doraReset, 'dora password 2026');
      expect(dora.url()).toBe(`${origin}/dashboard/invitations`);
      await dora.getByRole('button', { name: 'Accept the invitation to Birch Supplies' }).click();
      await dora.waitForURL(`${origin}/dashboard`);
      await expect(dora.locator('.dash-store').textContent()).resolves.toBe('Birch Supplies');

      // 4. A lost second factor: A turns two-factor on; the operator's reset with
      //    --clear-two-factor turns it off, and A's new password signs in without a code.
      await amy.goto(`${origin}/dashboard/test/settings`);
      await amy.getByRole('button', { name: 'Turn on two-factor' }).click();
      await amy.waitForURL(`${origin}/dashboard/test/settings`);
      const secret = (await amy.getByTestId('totp-secret').textContent())!.trim();
      await amy.getByLabel('Authentication code').fill(await totp(secret));
      await amy.getByRole('button', { name: 'Confirm' }).click();
      await amy.waitForURL(`${origin}/dashboard/test/settings`);
      expect(await trySignIn('amy.alder@example.com', 'amy password 2026')).toBe('/dashboard/sign-in?step=code');
      const cleared = await runAdminCli(origin, ADMIN_TOKEN, ['user:reset', '--email', 'amy.alder@example.com', '--clear-two-factor']);
      expect(cleared).toEqual({ url: expect.stringMatching(new RegExp(`^${origin}/dashboard/accept/[A-Za-z0-9_-]{43}$`)), two_factor_cleared: true });
      const amyAgain = await setPasswordWith(cleared.url, 'amy new password 2027');
      expect(amyAgain.url()).toBe(`${origin}/dashboard`);
      await amyAgain.goto(`${origin}/dashboard/test/settings`);
      expect(await amyAgain.getByRole('button', { name: 'Turn on two-factor' }).count()).toBe(1);

      for (const page of [amy, ben, cleo, dora, amyAgain]) await page.context().close();
    });
  });
}
