import { randomBytes, scryptSync } from 'node:crypto';
import { desc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, oneTimeLinks, users } from '@/db/schema';
import { loadConfig } from '@/server/config';
import { createRateLimits } from '@/server/rate-limit/service';
import { createStore } from '@/server/stores/service';
import { sha256Hex } from '@/server/ids';
import { hashPassword, verifyPassword } from '@/server/users/password';
import {
  createResetLink,
  currentSessionVersion,
  dashboardPerson,
  describeLink,
  endAllSessions,
  inviteUser,
  LINK_LIFETIME_SECONDS,
  passwordProblem,
  requestPasswordReset,
  setPasswordWithLink,
  signInWithPassword,
} from '@/server/users/service';
import { createTestDatabase } from '../support/database';
import { createTestClock } from '../support/server';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const clock = createTestClock(new Date('2026-03-01T10:00:00Z'));
const deps = () => ({ db: database.db, clock });
const rateLimits = () => createRateLimits({ perIp: 1000, perKey: 1000, productWritesPerKey: 1000, windowSeconds: 1, signInPerIp: 1000, signInPerEmail: 1000 }, undefined);

beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(() => database.close());

const PASSWORD = 'correct horse battery';

describe('passwords', () => {
  it('scrypt round trip: N=2^15, r=8, p=1, a 16-byte salt, self-describing; another password or a tampered hash fails', async () => {
    const stored = await hashPassword(PASSWORD);
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, stored)).toBe(false);
    expect(await verifyPassword(PASSWORD, stored.slice(0, -2) + (stored.endsWith('AA') ? 'BB' : 'AA'))).toBe(false);
    expect(await verifyPassword(PASSWORD, 'not a hash')).toBe(false);
    // A fresh salt every time.
    expect(await hashPassword(PASSWORD)).not.toBe(stored);
  });

  it('at least 12 characters, and both fields alike', () => {
    expect(passwordProblem('short', 'short')).toBe('too_short');
    expect(passwordProblem('x'.repeat(11), 'x'.repeat(11))).toBe('too_short');
    expect(passwordProblem('x'.repeat(12), 'y'.repeat(12))).toBe('mismatch');
    expect(passwordProblem('x'.repeat(257), 'x'.repeat(257))).toBe('too_long');
    expect(passwordProblem('x'.repeat(12), 'x'.repeat(12))).toBeUndefined();
  });
});

describe('one-time links', () => {
  it('an invitation link sets the password once; the token is stored only as its SHA-256', async () => {
    const store = await createStore(database.db, { name: 'Links' });
    const { user, token } = await inviteUser(deps(), { storeId: store.id, email: ' Ann@Example.COM ', role: 'admin', accepted: true });
    expect(user).toEqual({ email: 'ann@example.com', role: 'admin', store: store.id });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await database.db
      .select()
      .from(oneTimeLinks)
      .where(eq(oneTimeLinks.tokenHash, sha256Hex(token)));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(LINK_LIFETIME_SECONDS * 1000);

    expect(await describeLink(deps(), token)).toEqual({ kind: 'set_password', email: 'ann@example.com', storeName: 'Links' });
    expect(await setPasswordWithLink(deps(), token, PASSWORD)).toEqual({ userId: expect.stringMatching(/^user_/), email: 'ann@example.com' });
    expect(await describeLink(deps(), token)).toEqual({ kind: 'invalid' });
    expect(await setPasswordWithLink(deps(), token, 'another password!')).toBeUndefined();
    const [ann] = await database.db.select().from(users).where(eq(users.email, 'ann@example.com'));
    expect(await verifyPassword(PASSWORD, ann!.passwordHash!)).toBe(true);
  });

  it('two posts of one link at once: exactly one sets the password', async () => {
    const store = await createStore(database.db, { name: 'Race' });
    const { token } = await inviteUser(deps(), { storeId: store.id, email: 'race@example.com', role: 'viewer', accepted: true });
    const results = await Promise.all([setPasswordWithLink(deps(), token, 'first password 1'), setPasswordWithLink(deps(), token, 'second password 2')]);
    expect(results.filter((result) => result !== undefined)).toEqual([{ userId: expect.stringMatching(/^user_/), email: 'race@example.com' }]);
  });

  it('expires 24 hours after it was made, on the wall clock', async () => {
    const store = await createStore(database.db, { name: 'Expiry' });
    const { token } = await inviteUser(deps(), { storeId: store.id, email: 'late@example.com', role: 'viewer', accepted: true });
    clock.advance(LINK_LIFETIME_SECONDS - 1);
    expect((await describeLink(deps(), token)).kind).toBe('set_password');
    clock.advance(1);
    expect(await describeLink(deps(), token)).toEqual({ kind: 'invalid' });
    expect(await setPasswordWithLink(deps(), token, PASSWORD)).toBeUndefined();
  });

  it('an unknown token is invalid', async () => {
    expect(await describeLink(deps(), 'A'.repeat(43))).toEqual({ kind: 'invalid' });
    expect(await setPasswordWithLink(deps(), 'A'.repeat(43), PASSWORD)).toBeUndefined();
  });

  it('inviting someone with a password to another store adds the store and never changes the password', async () => {
    const first = await createStore(database.db, { name: 'First' });
    const second = await createStore(database.db, { name: 'Second' });
    const invited = await inviteUser(deps(), { storeId: first.id, email: 'bo@example.com', role: 'owner', accepted: true });
    await setPasswordWithLink(deps(), invited.token, PASSWORD);
    const again = await inviteUser(deps(), { storeId: second.id, email: 'BO@example.com', role: 'support', accepted: true });
    expect(await describeLink(deps(), again.token)).toEqual({ kind: 'joined', email: 'bo@example.com', storeName: 'Second' });
    // A dashboard invitation of someone with a password makes no link; one made before they had a
    // password tells them, once they have one, to sign in and answer it.
    const third = await createStore(database.db, { name: 'Third' });
    expect((await inviteUser(deps(), { storeId: third.id, email: 'bo@example.com', role: 'viewer', accepted: false })).token).toBeUndefined();
    const early = await inviteUser(deps(), { storeId: third.id, email: 'early@example.com', role: 'viewer', accepted: false });
    expect(await describeLink(deps(), early.token!)).toEqual({ kind: 'set_password', email: 'early@example.com', storeName: 'Third' });
    await setPasswordWithLink(deps(), (await createResetLink(deps(), 'early@example.com')).token, PASSWORD);
    expect(await describeLink(deps(), early.token!)).toEqual({ kind: 'invited', email: 'early@example.com', storeName: 'Third' });
    expect(await setPasswordWithLink(deps(), early.token!, 'taken over password')).toBeUndefined();
    expect(await setPasswordWithLink(deps(), again.token, 'taken over password')).toBeUndefined();
    const [bo] = await database.db.select().from(users).where(eq(users.email, 'bo@example.com'));
    expect(await verifyPassword(PASSWORD, bo!.passwordHash!)).toBe(true);
    expect((await dashboardPerson(database.db, bo!.id))!.memberships).toEqual([
      { storeId: first.id, storeName: 'First', role: 'owner' },
      { storeId: second.id, storeName: 'Second', role: 'support' },
    ]);
    await expect(inviteUser(deps(), { storeId: second.id, email: 'bo@example.com', role: 'viewer', accepted: true })).rejects.toMatchObject({ code: 'parameter_invalid' });
  });

  it('a reset link replaces the password and ends every session; an unknown e-mail is refused', async () => {
    const store = await createStore(database.db, { name: 'Reset' });
    const invited = await inviteUser(deps(), { storeId: store.id, email: 'cy@example.com', role: 'developer', accepted: true });
    await setPasswordWithLink(deps(), invited.token, PASSWORD);
    const [cy] = await database.db.select().from(users).where(eq(users.email, 'cy@example.com'));
    const before = await currentSessionVersion(database.db, cy!.id);
    const { userId, token } = await createResetLink(deps(), 'CY@example.com');
    expect(userId).toBe(cy!.id);
    expect(await setPasswordWithLink(deps(), token, 'a brand new password')).toEqual({ userId: cy!.id, email: 'cy@example.com' });
    expect(await currentSessionVersion(database.db, cy!.id)).toBe(before! + 1);
    await expect(createResetLink(deps(), 'nobody@example.com')).rejects.toMatchObject({ code: 'resource_missing' });
  });
});

describe('forgot password', () => {
  it('without SMTP no link is made, known and unknown e-mails alike; requests are limited per address and per e-mail', async () => {
    const store = await createStore(database.db, { name: 'Forgot' });
    const invited = await inviteUser(deps(), { storeId: store.id, email: 'gil@example.com', role: 'viewer', accepted: true });
    await setPasswordWithLink(deps(), invited.token, PASSWORD);
    const [gil] = await database.db.select().from(users).where(eq(users.email, 'gil@example.com'));
    const links = () => database.db.select().from(oneTimeLinks).where(eq(oneTimeLinks.userId, gil!.id));
    const before = await links();
    const limits = createRateLimits({ perIp: 1000, perKey: 1000, productWritesPerKey: 1000, windowSeconds: 1, resetPerIp: 3, resetPerEmail: 2 }, undefined);
    const ask = (email: string, ip: string) => requestPasswordReset({ ...deps(), rateLimits: limits, config: loadConfig({}) }, { email, ip });
    expect(await ask('GIL@example.com', '192.0.2.1')).toBe('no_mail');
    expect(await ask('nobody@example.com', '192.0.2.1')).toBe('no_mail');
    expect(await links()).toEqual(before);
    // The e-mail's two are spent, from whatever address.
    expect(await ask('gil@example.com', '192.0.2.2')).toBe('no_mail');
    expect(await ask('gil@example.com', '192.0.2.3')).toBe('rate_limited');
    // The address's three are spent, for whatever e-mail.
    expect(await ask('someone@example.com', '192.0.2.1')).toBe('no_mail');
    expect(await ask('anyone@example.com', '192.0.2.1')).toBe('rate_limited');
  });
});

describe('sign-in', () => {
  it('the right password signs in; a wrong password and an unknown e-mail fail alike and are audited', async () => {
    const store = await createStore(database.db, { name: 'Sign in' });
    const invited = await inviteUser(deps(), { storeId: store.id, email: 'di@example.com', role: 'viewer', accepted: true });
    const limits = rateLimits();
    // No password yet: nothing signs in.
    expect(await signInWithPassword({ db: database.db, rateLimits: limits }, { email: 'di@example.com', password: '', ip: '203.0.113.5' })).toEqual({ ok: false, reason: 'invalid_credentials' });
    await setPasswordWithLink(deps(), invited.token, PASSWORD);
    const ok = await signInWithPassword({ db: database.db, rateLimits: limits }, { email: 'DI@example.com', password: PASSWORD, ip: '203.0.113.5' });
    expect(ok).toEqual({ ok: true, user: { id: expect.stringMatching(/^user_/), email: 'di@example.com', sessionVersion: 2, twoFactor: false } });
    for (const email of ['di@example.com', 'nobody@example.com']) {
      expect(await signInWithPassword({ db: database.db, rateLimits: limits }, { email, password: 'wrong password!', ip: '203.0.113.5' })).toEqual({ ok: false, reason: 'invalid_credentials' });
    }
    const audited = await database.db.select().from(auditEvents).where(eq(auditEvents.action, 'dashboard.sign_in_failed')).orderBy(desc(auditEvents.id)).limit(2);
    expect(audited.map((row) => ({ code: row.code, ip: row.ip, details: row.details }))).toEqual([
      { code: 'invalid_credentials', ip: '203.0.113.5', details: { email: 'nobody@example.com' } },
      { code: 'invalid_credentials', ip: '203.0.113.5', details: { email: 'di@example.com' } },
    ]);
    expect(JSON.stringify(audited)).not.toContain('wrong password');
  });

  it('failures are limited per e-mail and per address; a right password costs nothing; a spent-out one is refused', async () => {
    const store = await createStore(database.db, { name: 'Limits' });
    for (const email of ['ed@example.com', 'em@example.com']) {
      const invited = await inviteUser(deps(), { storeId: store.id, email, role: 'viewer', accepted: true });
      await setPasswordWithLink(deps(), invited.token, PASSWORD);
    }
    const limits = createRateLimits({ perIp: 1000, perKey: 1000, productWritesPerKey: 1000, windowSeconds: 1, signInPerIp: 3, signInPerEmail: 2 }, undefined);
    const attempt = (email: string, password: string, ip: string) => signInWithPassword({ db: database.db, rateLimits: limits }, { email, password, ip });
    // Right passwords, many more than either limit, from one address.
    for (let i = 0; i < 6; i += 1) expect((await attempt('ed@example.com', PASSWORD, '198.51.100.1')).ok).toBe(true);
    // The e-mail's two failures, from other addresses: then even the right password is refused.
    expect(await attempt('ed@example.com', 'wrong password!', '198.51.100.2')).toEqual({ ok: false, reason: 'invalid_credentials' });
    expect(await attempt('ed@example.com', 'wrong password!', '198.51.100.3')).toEqual({ ok: false, reason: 'invalid_credentials' });
    expect(await attempt('ed@example.com', PASSWORD, '198.51.100.4')).toEqual({ ok: false, reason: 'rate_limited' });
    // The address's three failures, for whatever e-mail: then every e-mail is refused from it.
    for (const email of ['x@example.com', 'y@example.com', 'z@example.com']) expect(await attempt(email, 'whatever pass', '198.51.100.1')).toEqual({ ok: false, reason: 'invalid_credentials' });
    expect(await attempt('em@example.com', PASSWORD, '198.51.100.1')).toEqual({ ok: false, reason: 'rate_limited' });
    expect((await attempt('em@example.com', PASSWORD, '198.51.100.5')).ok).toBe(true);
    const [last] = await database.db.select().from(auditEvents).where(eq(auditEvents.code, 'rate_limited')).orderBy(desc(auditEvents.id)).limit(1);
    expect(last).toMatchObject({ action: 'dashboard.sign_in_failed', code: 'rate_limited', ip: '198.51.100.1', details: { email: 'em@example.com' } });
  });

  it('with the default limits (30 failures per address, 10 per e-mail, in memory and in the database): 45 sign-ins from one address all succeed, failures lock out', async () => {
    const store = await createStore(database.db, { name: 'Office' });
    const team = ['ada', 'bo', 'cy', 'dee', 'eli'].map((name) => `${name}.office@example.com`);
    const guessed = Array.from({ length: 30 }, (_, i) => `guess${i}.office@example.com`);
    for (const email of [...team, ...guessed]) await inviteUser(deps(), { storeId: store.id, email, role: 'viewer', accepted: true });
    // About two hundred sign-ins: hashes of the lowest cost a stored hash may name keep them quick.
    const salt = randomBytes(16);
    const cheapHash = ['scrypt', 1024, 8, 1, salt.toString('base64url'), scryptSync(PASSWORD, salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64url')].join('$');
    await database.db
      .update(users)
      .set({ passwordHash: cheapHash })
      .where(inArray(users.email, [...team, ...guessed]));
    for (const [index, counters] of [undefined, { db: database.db }].entries()) {
      const limits = createRateLimits({ perIp: 1000, perKey: 1000, productWritesPerKey: 1000, windowSeconds: 1 }, counters);
      const attempt = (email: string, password: string, ip: string) => signInWithPassword({ db: database.db, rateLimits: limits }, { email, password, ip });
      const office = `192.0.2.${10 + index}`;
      for (let i = 0; i < 45; i += 1) expect((await attempt(team[i % team.length]!, PASSWORD, office)).ok, `sign-in ${i + 1}`).toBe(true);
      // One person signs in more often than the e-mail's limit.
      for (let i = 0; i < 12; i += 1) expect((await attempt(team[0]!, PASSWORD, office)).ok).toBe(true);
      // 30 failures from the office's address: then nobody signs in from it, not even with the right password.
      for (const email of guessed) expect(await attempt(email, 'wrong password!', office)).toEqual({ ok: false, reason: 'invalid_credentials' });
      expect(await attempt(team[1]!, PASSWORD, office)).toEqual({ ok: false, reason: 'rate_limited' });
      // 10 failures for one e-mail, each from another address: then that e-mail is refused from anywhere.
      for (let i = 0; i < 10; i += 1) expect(await attempt(team[2]!, 'wrong password!', `198.18.${index}.${i}`)).toEqual({ ok: false, reason: 'invalid_credentials' });
      expect(await attempt(team[2]!, PASSWORD, `198.18.${index}.100`)).toEqual({ ok: false, reason: 'rate_limited' });
      expect((await attempt(team[3]!, PASSWORD, `198.18.${index}.100`)).ok).toBe(true);
    }
  });

  it('ending all sessions bumps the session version', async () => {
    const store = await createStore(database.db, { name: 'Sessions' });
    const invited = await inviteUser(deps(), { storeId: store.id, email: 'fay@example.com', role: 'viewer', accepted: true });
    const [fay] = await database.db.select().from(users).where(eq(users.email, 'fay@example.com'));
    expect(await currentSessionVersion(database.db, fay!.id)).toBe(1);
    await setPasswordWithLink(deps(), invited.token, PASSWORD);
    expect(await currentSessionVersion(database.db, fay!.id)).toBe(2);
    await endAllSessions(database.db, fay!.id);
    expect(await currentSessionVersion(database.db, fay!.id)).toBe(3);
    expect(await currentSessionVersion(database.db, 'user_unknown')).toBeUndefined();
  });
});
