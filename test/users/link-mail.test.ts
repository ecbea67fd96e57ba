import type { AddressInfo } from 'node:net';
import { createTRPCClient, httpLink } from '@trpc/client';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig, type Config } from '@/server/config';
import { ADMIN_ENDPOINT } from '@/server/admin/constants';
import { createAdminHandler } from '@/server/admin/handler';
import type { AdminRouter } from '@/server/admin/router';
import { randomBase62 } from '@/server/ids';
import { mailLinkInBackground } from '@/server/users/link-mail';
import { inviteUser, requestPasswordReset, setPasswordWithLink, type PersonActing } from '@/server/users/service';
import { inviteMember } from '@/server/users/team';
import { freePort } from '../support/production-server';
import { serveFetchHandler, useTestApi } from '../support/server';
import { log } from '@/server/observability/log';

/**
 * Invitation and reset links by e-mail when SMTP_URL is set: a local SMTP server receives them
 * after the admin call answers, as a text and an HTML part carrying the same link the call printed.
 */
interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    let raw = '';
    stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    stream.on('end', () => {
      received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
      callback();
    });
  },
});
const overrides: Partial<Config> = { emailFrom: 'Harbour Payments <dashboard@payments.example>' };

// Before useTestApi's own hook, which reads the overrides.
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  overrides.smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

const api = useTestApi(overrides);
const TOKEN = `adm_${randomBase62(40)}`;
let admin: ReturnType<typeof createTRPCClient<AdminRouter>>;
let closeAdmin: () => Promise<void> = async () => {};

beforeAll(async () => {
  const server = await serveFetchHandler(createAdminHandler(api.services, TOKEN));
  closeAdmin = server.close;
  admin = createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${server.baseUrl}${ADMIN_ENDPOINT}`, headers: { authorization: `Bearer ${TOKEN}` } })] });
});
afterAll(() => closeAdmin());

/** The decoded body of a quoted-printable message: soft line breaks joined, `=XX` as bytes. */
const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

async function mailTo(address: string): Promise<Received> {
  await expect.poll(() => received.some((mail) => mail.to.includes(address))).toBe(true);
  return received.find((mail) => mail.to.includes(address))!;
}

/** A store and its owner, who has a password. */
async function ownerOf(storeName: string, email: string): Promise<PersonActing> {
  const store = await admin.store.create.mutate({ name: storeName });
  const invited = await inviteUser(api.services, { storeId: store.id, email, role: 'owner', accepted: true });
  const done = await setPasswordWithLink(api.services, invited.token, 'owner password 2026');
  return { userId: done!.userId, email, storeId: store.id, ip: '203.0.113.9', path: '/dashboard/act/team-invite' };
}

describe('links by e-mail with SMTP_URL', () => {
  it('an invitation: From, To, subject, a text and an HTML part with the printed link', async () => {
    const store = await admin.store.create.mutate({ name: 'Harbour Books' });
    const invited = await admin.user.invite.mutate({ store: store.id, email: 'Pat@Example.com', role: 'developer' });
    const mail = await mailTo('pat@example.com');
    expect(mail.from).toBe('dashboard@payments.example');
    const body = decoded(mail.raw);
    expect(body).toMatch(/^From: Harbour Payments <dashboard@payments\.example>$/m);
    expect(body).toMatch(/^To: pat@example\.com$/m);
    expect(body).toMatch(/^Subject: You are invited to Harbour Books$/m);
    expect(body).toMatch(/^Content-Type: multipart\/alternative;/m);
    expect(body).toContain('Content-Type: text/plain');
    expect(body).toContain('Content-Type: text/html');
    expect(body).toContain('You have been invited to the dashboard of Harbour Books as developer.');
    expect(body).toContain(`\r\n${invited.url}\r\n`);
    expect(body).toContain(`<a href="${invited.url}">Set your password and sign in</a>`);
  });

  it('a password reset carries its own link', async () => {
    const store = await admin.store.create.mutate({ name: 'Quay Prints' });
    await admin.user.invite.mutate({ store: store.id, email: 'rae@example.com', role: 'viewer' });
    await mailTo('rae@example.com');
    const reset = await admin.user.reset.mutate({ email: 'RAE@example.com' });
    await expect.poll(() => received.filter((mail) => mail.to.includes('rae@example.com')).length).toBe(2);
    const body = decoded(received.filter((mail) => mail.to.includes('rae@example.com'))[1]!.raw);
    expect(body).toMatch(/^Subject: Set a new dashboard password$/m);
    expect(body).toContain(`<a href="${reset.url}">Set a new password</a>`);
  });

  it('a dashboard invitation of a new e-mail: the link goes to their e-mail only; of someone with a password: an e-mail without any link but the invitations page', async () => {
    const owner = await ownerOf('Harbour Maps', 'harbour-owner@example.com');
    const invitation = await inviteMember(api.services, owner, { email: 'Newcomer@Example.com', role: 'support' });
    expect(invitation).toEqual({ email: 'newcomer@example.com', role: 'support', delivery: 'link_mailed' });
    const body = decoded((await mailTo('newcomer@example.com')).raw);
    expect(body).toMatch(/^Subject: You are invited to Harbour Maps$/m);
    expect(body).toContain('You have been invited to the dashboard of Harbour Maps as support.');
    expect(body).toMatch(new RegExp(`<a href="${api.services.config.publicBaseUrl}/dashboard/accept/[A-Za-z0-9_-]{43}">Set your password and sign in</a>`));

    const member = await ownerOf('Other Maps', 'has-password@example.com');
    expect(await inviteMember(api.services, owner, { email: member.email, role: 'viewer' })).toEqual({ email: member.email, role: 'viewer', delivery: 'notice_mailed' });
    const notice = decoded((await mailTo(member.email)).raw);
    expect(notice).toMatch(/^Subject: You are invited to Harbour Maps$/m);
    expect(notice).toContain(`<a href="${api.services.config.publicBaseUrl}/dashboard/invitations">Sign in to accept or decline the invitation</a>`);
    expect(notice).not.toContain('/dashboard/accept/');
  });

  it('forgot password: the same answer for a known and an unknown e-mail; only the known one gets an e-mail, with a reset link', async () => {
    const owner = await ownerOf('Forgetful Prints', 'forgetful@example.com');
    const ask = (email: string) => requestPasswordReset(api.services, { email, ip: '192.0.2.77' });
    expect(await ask('FORGETFUL@example.com')).toBe('sent');
    expect(await ask('stranger@example.com')).toBe('sent');
    const body = decoded((await mailTo(owner.email)).raw);
    expect(body).toMatch(/^Subject: Set a new dashboard password$/m);
    expect(body).toMatch(new RegExp(`<a href="${api.services.config.publicBaseUrl}/dashboard/accept/[A-Za-z0-9_-]{43}">Set a new password</a>`));
    // Sent one after the other: the known one's arrival leaves time for the other's.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received.some((mail) => mail.to.includes('stranger@example.com'))).toBe(false);
  });

  it('an SMTP server that refuses connections: the caller is not held, the failure is logged without the link', async () => {
    const logged = vi.spyOn(log, 'error').mockImplementation(() => {});
    try {
      const config = { ...loadConfig({}), smtpUrl: `smtp://127.0.0.1:${await freePort()}` };
      const url = 'http://localhost:3000/dashboard/accept/secret-token-that-must-not-be-logged';
      expect(mailLinkInBackground(config, { purpose: 'reset', to: 'sam@example.com', url })).toBe(true);
      await expect.poll(() => logged.mock.calls.length).toBe(1);
      const line = String(logged.mock.calls[0]![0]);
      expect(line).toMatch(/^The password reset e-mail to sam@example\.com was not sent: /);
      expect(line).not.toContain('secret-token');
    } finally {
      logged.mockRestore();
    }
  });

  it('without SMTP_URL nothing is sent', () => {
    expect(mailLinkInBackground(loadConfig({}), { purpose: 'reset', to: 'sam@example.com', url: 'http://localhost/x' })).toBe(false);
  });
});
