import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newContext, screenshotAtWidths } from '../../support/browser';
import { adminClient, runAdminCli } from '../../support/production-server';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's Settings and Audit log pages in Debian's Chromium against `npm start`: an owner
 * renames the store, invites a member through the page (told how the invitation reaches them, never
 * shown a link; the member, signed in, accepts it), changes a role and removes a member (whose
 * access to the store ends at once); a
 * password change and "Sign out everywhere" end the person's other sessions; the audit log lists
 * and filters what was done; a developer's and an admin's forbidden posts change nothing.
 */
const SHOTS = '/tmp/shots-settings';

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

/** Sets the password on an accept link in a fresh context; the person lands signed in on `landing`. */
async function acceptInvitation(url: string, password: string, landing = '/dashboard'): Promise<Page> {
  const page = await (await newContext(browser)).newPage();
  await page.goto(url);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(`${origin}${landing}`);
  return page;
}

/** A second browser of the same person, signed in with the form. */
async function signedIn(email: string, password: string): Promise<Page> {
  const page = await (await newContext(browser)).newPage();
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/dashboard`);
  return page;
}

/** The next page load of an ended session goes to sign-in. */
async function expectSignedOut(page: Page): Promise<void> {
  await page.goto(`${origin}/dashboard/test/settings`);
  expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
}

const post = (page: Page, action: string, form: Record<string, string>) =>
  page.request.post(`${origin}/dashboard/act/${action}`, { form: { mode: 'test', ...form }, headers: { origin }, maxRedirects: 0 });
const memberRow = (page: Page, email: string) => page.locator('.dash-table tbody tr', { hasText: email });
const settled = (page: Page, done: string) => page.waitForURL(`${origin}/dashboard/test/settings?done=${done}`);

export function settingsSuite(): void {
  describe('dashboard settings and audit log', { timeout: 240_000 }, () => {
    it('rename, invite (no link to the inviter, accepted by the person), role change, removal ending the store’s access, password change, sign out everywhere, the audit log, refusals', async () => {
      const admin = adminClient(origin, ADMIN_TOKEN);
      const store = await admin.store.create.mutate({ name: 'Quay Prints' });
      const ownerInvitation = await runAdminCli(origin, ADMIN_TOKEN, ['user:invite', '--store', store.id, '--email', 'olive@example.com', '--role', 'owner']);
      const owner = await acceptInvitation(ownerInvitation.url, 'owner password 2026');

      // Rename.
      await owner.goto(`${origin}/dashboard/test/settings`);
      await owner.getByLabel('Store name').fill('Quay Prints Ltd');
      await owner.getByRole('button', { name: 'Rename' }).click();
      await settled(owner, 'renamed');
      await expect(owner.getByRole('status').textContent()).resolves.toBe('The store is renamed.');
      await expect(owner.locator('.dash-store').textContent()).resolves.toBe('Quay Prints Ltd');

      // Invite through the page: the inviter is told how the invitation reaches Ada, never given
      // a link (no SMTP here: the operator hands one over), and told so once.
      await owner.getByLabel('Email', { exact: true }).fill('Ada@Example.com');
      await owner.getByLabel('Role', { exact: true }).selectOption('developer');
      await owner.getByRole('button', { name: 'Invite' }).click();
      await settled(owner, 'invited');
      await expect(owner.locator('.dash-notice[data-delivery]').textContent()).resolves.toContain('ada@example.com (developer) is invited, but this service sends no e-mail');
      await expect(owner.locator('.settings-command').textContent()).resolves.toBe('npm run admin -- user:reset --email ada@example.com');
      expect(await owner.content()).not.toMatch(/\/dashboard\/accept\//);
      expect(await memberRow(owner, 'ada@example.com').textContent()).toContain('invitation pending');
      await shoot(owner, 'settings-invited');
      await owner.reload();
      expect(await owner.locator('.dash-notice[data-delivery]').count()).toBe(0);
      // The operator's link sets Ada's password; Ada, signed in, accepts the invitation.
      const adaLink = (await runAdminCli(origin, ADMIN_TOKEN, ['user:reset', '--email', 'ada@example.com'])).url as string;
      const ada = await acceptInvitation(adaLink, 'ada password 2026', '/dashboard/invitations');
      await ada.getByRole('button', { name: 'Accept the invitation to Quay Prints Ltd' }).click();
      await ada.waitForURL(`${origin}/dashboard`);

      // A developer: the store's name and the team's forms refused (403), nothing changed.
      const renameRefused = await post(ada, 'store-rename', { name: 'Taken over' });
      expect(renameRefused.status()).toBe(403);
      expect(await renameRefused.text()).toContain('Your role may not do this in this store (ada@example.com).');
      expect((await post(ada, 'team-invite', { email: 'mallory@example.com', role: 'owner' })).status()).toBe(403);
      await ada.goto(`${origin}/dashboard/test/settings`);
      await expect(ada.locator('.dash-store').textContent()).resolves.toBe('Quay Prints Ltd');
      expect(await ada.locator('.dash-table tbody tr').count()).toBe(2);
      expect(await ada.getByRole('button', { name: 'Invite' }).count()).toBe(0);
      expect(await ada.getByLabel('Store name').count()).toBe(0);

      // The owner makes Ada an admin; Ada may not remove the owner (told why, nothing changed).
      await owner.goto(`${origin}/dashboard/test/settings`);
      await memberRow(owner, 'ada@example.com').getByLabel('Role of ada@example.com').selectOption('admin');
      await memberRow(owner, 'ada@example.com').getByRole('button', { name: 'Change role' }).click();
      await settled(owner, 'role_changed');
      await expect(memberRow(owner, 'ada@example.com').locator('td[data-label="Role"] select').inputValue()).resolves.toBe('admin');
      // Nobody changes their own role: no form on one's own row, nor on an owner's row for an admin.
      expect(await memberRow(owner, 'olive@example.com').locator('form').count()).toBe(0);
      await ada.goto(`${origin}/dashboard/test/settings`);
      expect(await memberRow(ada, 'olive@example.com').locator('form').count()).toBe(0);
      const oliveId = (await memberRow(ada, 'olive@example.com').getAttribute('data-user-id'))!;
      const removeOwner = await post(ada, 'team-remove', { user_id: oliveId });
      expect(removeOwner.status()).toBe(303);
      expect(removeOwner.headers().location).toBe('/dashboard/test/settings?error=owner_only');
      await ada.goto(`${origin}${removeOwner.headers().location}`);
      await expect(ada.getByRole('alert').textContent()).resolves.toBe('Only an owner may invite, change or remove an owner, or make someone owner.');
      expect(await memberRow(ada, 'olive@example.com').textContent()).toContain('owner');

      // Removal ends the removed person's access to the store at once; with no store left, their sessions end.
      const valInvitation = await runAdminCli(origin, ADMIN_TOKEN, ['user:invite', '--store', store.id, '--email', 'vale@example.com', '--role', 'viewer']);
      const val = await acceptInvitation(valInvitation.url, 'val password 2026');
      await owner.goto(`${origin}/dashboard/test/settings`);
      await memberRow(owner, 'vale@example.com').getByRole('button', { name: 'Remove vale@example.com' }).click();
      await settled(owner, 'removed');
      expect(await memberRow(owner, 'vale@example.com').count()).toBe(0);
      await val.goto(`${origin}/dashboard/test/settings`);
      await expect(val.locator('main h1').textContent()).resolves.toBe('Sign in');
      expect(new URL(val.url()).pathname).toBe('/dashboard/sign-in');

      // A password change: this browser stays signed in, Ada's other one is signed out; the new password signs in.
      const adaElsewhere = await signedIn('ada@example.com', 'ada password 2026');
      await ada.goto(`${origin}/dashboard/test/settings`);
      await ada.getByLabel('Current password').fill('ada password 2026');
      await ada.getByLabel('New password').fill('short');
      await ada.getByLabel('Confirm password').fill('short');
      await ada.getByRole('button', { name: 'Change password' }).click();
      await ada.waitForURL(/error=too_short/);
      await expect(ada.getByRole('alert').textContent()).resolves.toBe('Use at least 12 characters.');
      await ada.getByLabel('Current password').fill('ada password 2026');
      await ada.getByLabel('New password').fill('ada new password 2027');
      await ada.getByLabel('Confirm password').fill('ada new password 2027');
      await ada.getByRole('button', { name: 'Change password' }).click();
      await settled(ada, 'password_changed');
      await expect(ada.getByRole('status').textContent()).resolves.toBe('Your password is changed and your other sessions have ended.');
      await ada.reload();
      expect(new URL(ada.url()).pathname).toBe('/dashboard/test/settings');
      await expectSignedOut(adaElsewhere);
      await (await signedIn('ada@example.com', 'ada new password 2027')).context().close();

      // The audit log: the owner's actions by who did them, then by an action prefix.
      await owner.goto(`${origin}/dashboard/test/audit`);
      await owner.getByLabel('Who').fill('user:Olive@example.com');
      await owner.getByRole('button', { name: 'Apply' }).click();
      await owner.waitForURL(/actor=user%3AOlive%40example.com/);
      const rowActions = () => owner.locator('.dash-table tbody tr td[data-label="Action"] .dash-mono').allTextContents();
      expect(await rowActions()).toEqual(['team.remove', 'team.role_change', 'team.invite', 'store.rename']);
      const removal = owner.locator('.dash-table tbody tr').first();
      await expect(removal.textContent()).resolves.toContain('user:olive@example.com');
      await expect(removal.locator('td[data-label="Mode"]').textContent()).resolves.toBe('both');
      await expect(removal.locator('td[data-label="Request"]').textContent()).resolves.toContain('POST /dashboard/act/team-remove');
      await expect(removal.locator('td[data-label="Details"]').textContent()).resolves.toBe('{"email":"vale@example.com","role":"viewer"}');
      await shoot(owner, 'audit-by-person');
      await owner.getByLabel('Who').fill('');
      await owner.getByLabel('Action').fill('team.');
      await owner.getByRole('button', { name: 'Apply' }).click();
      await owner.waitForURL(/action=team./);
      expect(await rowActions()).toEqual(['team.remove', 'team.role_change', 'team.invitation_accept', 'team.invite']);
      await owner.getByLabel('Action').fill('account.password_change');
      await owner.getByRole('button', { name: 'Apply' }).click();
      await owner.waitForURL(/action=account.password_change/);
      await expect(owner.locator('.dash-table tbody tr').textContent()).resolves.toContain('user:ada@example.com');
      await owner.goto(`${origin}/dashboard/test/settings`);
      await shoot(owner, 'settings');

      // Sign out everywhere: both of the owner's browsers are signed out at once.
      const ownerElsewhere = await signedIn('olive@example.com', 'owner password 2026');
      await owner.getByRole('button', { name: 'Sign out everywhere' }).click();
      await owner.waitForURL(`${origin}/dashboard/sign-in`);
      await expectSignedOut(owner);
      await expectSignedOut(ownerElsewhere);
      for (const page of [owner, ada, val, adaElsewhere, ownerElsewhere]) await page.context().close();
    });
  });
}
