import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { auditEvents, backupCodes, users } from '@/db/schema';
import { endAllSessions, completeSignIn, createResetLink, inviteUser, setPasswordWithLink, signInProof, signInWithPassword } from '@/server/users/service';
import { confirmTwoFactor, disableTwoFactor, regenerateBackupCodes, startTwoFactor, twoFactorEnabled, twoFactorState, verifySecondFactor, type TwoFactorActor } from '@/server/users/two-factor';
import { createRateLimits } from '@/server/rate-limit/service';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';

/** Two-factor of dashboard people: TOTP codes from the secret, replay, backup codes, sign-in's second step. */
const api = useTestApi();
const PASSWORD = 'correct horse battery staple';
const deps = () => ({ db: api.services.db, clock: api.clock, rateLimits: api.services.rateLimits, config: api.services.config });
/** Each person signs in from an address of their own, so the per-address limit is theirs alone. */
const atSignIn = (actor: TwoFactorActor) => ({ ip: actor.ip, path: '/dashboard/sign-in', failureAction: 'dashboard.sign_in_failed' }) as const;

let people = 0;
/** A person with a password, two-factor off. */
async function person(): Promise<TwoFactorActor> {
  const store = await createStore(api.services);
  const email = `person${(people += 1)}-${Date.now()}@example.com`;
  await inviteUser(deps(), { storeId: store.id, email, role: 'owner', accepted: true });
  await setPasswordWithLink(deps(), (await createResetLink(deps(), email)).token, PASSWORD);
  const [row] = await api.services.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return { userId: row!.id, email, ip: `198.51.100.${people}`, path: '/dashboard/settings', scope: { storeId: store.id, livemode: true } };
}

const codeAt = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

async function pendingSecret(actor: TwoFactorActor): Promise<string> {
  await startTwoFactor(deps(), actor);
  const state = await twoFactorState(deps(), actor.userId, actor.email);
  if (state.state !== 'pending') throw new Error(`expected a pending secret, got ${state.state}`);
  return state.secret;
}

/** A person with two-factor on: their secret and backup codes. */
async function enrolled() {
  const actor = await person();
  const secret = await pendingSecret(actor);
  const confirmed = await confirmTwoFactor(deps(), actor, await codeAt(secret, api.clock.now()));
  if (!confirmed.ok) throw new Error(confirmed.reason);
  // The next code must be of a later step than the confirming one.
  api.clock.advance(30);
  return { actor, secret, backupCodes: confirmed.backupCodes };
}

describe('two-factor', () => {
  it('the library computes RFC 6238 codes (SHA-1, 30 s, 6 digits) by default', async () => {
    // RFC 6238 appendix B, SHA-1 seed "12345678901234567890": 94287082 at T=59, 07081804 at T=1111111109.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    await expect(generate({ secret, epoch: 59 })).resolves.toBe('287082');
    await expect(generate({ secret, epoch: 1111111109 })).resolves.toBe('081804');
  });

  it('turning on: a base32 secret and otpauth URI, encrypted at rest; a wrong code refused and audited; the right one turns it on with 10 backup codes', async () => {
    const actor = await person();
    expect(await twoFactorState(deps(), actor.userId, actor.email)).toEqual({ state: 'off' });
    await startTwoFactor(deps(), actor);
    const state = await twoFactorState(deps(), actor.userId, actor.email);
    if (state.state !== 'pending') throw new Error('not pending');
    expect(state.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(state.otpauthUri).toContain(`secret=${state.secret}`);
    expect(state.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    const [stored] = await api.services.db.select({ totpSecret: users.totpSecret }).from(users).where(eq(users.id, actor.userId));
    expect(stored!.totpSecret).toMatch(/^v1\./);
    expect(stored!.totpSecret).not.toContain(state.secret);
    expect(Buffer.from(stored!.totpSecret!.split('.')[2]!, 'base64url').toString()).not.toContain(state.secret);
    expect(await twoFactorEnabled(api.services.db, actor.userId)).toBe(false);

    const wrong = String((Number(await codeAt(state.secret, api.clock.now())) + 1) % 1_000_000).padStart(6, '0');
    expect(await confirmTwoFactor(deps(), actor, wrong)).toEqual({ ok: false, reason: 'invalid_code' });
    const failures = await api.services.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.keyHint, `user:${actor.email}`));
    expect(failures.map((entry) => [entry.action, entry.code])).toContainEqual(['two_factor.code_failed', 'invalid_code']);

    const confirmed = await confirmTwoFactor(deps(), actor, await codeAt(state.secret, api.clock.now()));
    if (!confirmed.ok) throw new Error(confirmed.reason);
    expect(confirmed.backupCodes).toHaveLength(10);
    expect(new Set(confirmed.backupCodes).size).toBe(10);
    for (const code of confirmed.backupCodes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    expect(await twoFactorEnabled(api.services.db, actor.userId)).toBe(true);
    expect(await twoFactorState(deps(), actor.userId, actor.email)).toEqual({ state: 'on', backupCodesLeft: 10 });
    const hashes = await api.services.db.select({ codeHash: backupCodes.codeHash }).from(backupCodes).where(eq(backupCodes.userId, actor.userId));
    expect(hashes.every((row) => /^[0-9a-f]{64}$/.test(row.codeHash))).toBe(true);
    expect(JSON.stringify(hashes)).not.toContain(confirmed.backupCodes[0]!.replace(/-/g, ''));
    const audit = await api.services.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.keyHint, `user:${actor.email}`));
    expect(audit.map((entry) => entry.action)).toEqual(expect.arrayContaining(['two_factor.start', 'two_factor.enable']));
    expect(JSON.stringify(audit)).not.toContain(state.secret);
  });

  it('a step’s code is accepted once: replayed, or of an earlier step, it is refused', async () => {
    const { actor, secret } = await enrolled();
    const code = await codeAt(secret, api.clock.now());
    expect(await verifySecondFactor(deps(), actor, code, atSignIn(actor))).toBe('ok');
    expect(await verifySecondFactor(deps(), actor, code, atSignIn(actor))).toBe('invalid_code');
    const earlier = await codeAt(secret, new Date(api.clock.now().getTime() - 30_000));
    expect(await verifySecondFactor(deps(), actor, earlier, atSignIn(actor))).toBe('invalid_code');
    api.clock.advance(30);
    const next = await codeAt(secret, api.clock.now());
    const [first, second] = await Promise.all([verifySecondFactor(deps(), actor, next, atSignIn(actor)), verifySecondFactor(deps(), actor, next, atSignIn(actor))]);
    expect([first, second].sort()).toEqual(['invalid_code', 'ok']);
    // Out of the tolerance of one step either side.
    api.clock.advance(30);
    expect(await verifySecondFactor(deps(), actor, await codeAt(secret, new Date(api.clock.now().getTime() + 90_000)), atSignIn(actor))).toBe('invalid_code');
  });

  it('backup codes: each works once (as typed: any case, spaces, dashes), and new ones replace the old', async () => {
    const { actor, secret, backupCodes: codes } = await enrolled();
    expect(await verifySecondFactor(deps(), actor, codes[0]!, atSignIn(actor))).toBe('ok');
    expect(await verifySecondFactor(deps(), actor, codes[0]!, atSignIn(actor))).toBe('invalid_code');
    expect(await verifySecondFactor(deps(), actor, ` ${codes[1]!.toUpperCase().replace(/-/g, ' ')} `, atSignIn(actor))).toBe('ok');
    expect(await twoFactorState(deps(), actor.userId, actor.email)).toEqual({ state: 'on', backupCodesLeft: 8 });
    const other = await enrolled();
    expect(await verifySecondFactor(deps(), other.actor, codes[2]!, atSignIn(other.actor))).toBe('invalid_code');

    expect(await regenerateBackupCodes(deps(), actor, 'not a code')).toEqual({ ok: false, reason: 'invalid_code' });
    const renewed = await regenerateBackupCodes(deps(), actor, await codeAt(secret, api.clock.now()));
    if (!renewed.ok) throw new Error(renewed.reason);
    expect(await verifySecondFactor(deps(), actor, codes[2]!, atSignIn(actor))).toBe('invalid_code');
    expect(await verifySecondFactor(deps(), actor, renewed.backupCodes[0]!, atSignIn(actor))).toBe('ok');
  });

  it('turning off needs a current code; the secret and backup codes are deleted', async () => {
    const { actor, secret, backupCodes: codes } = await enrolled();
    expect(await disableTwoFactor(deps(), actor, '000000')).toBe('invalid_code');
    expect(await twoFactorEnabled(api.services.db, actor.userId)).toBe(true);
    expect(await disableTwoFactor(deps(), actor, await codeAt(secret, api.clock.now()))).toBe('ok');
    expect(await twoFactorState(deps(), actor.userId, actor.email)).toEqual({ state: 'off' });
    expect(await api.services.db.select().from(backupCodes).where(eq(backupCodes.userId, actor.userId))).toEqual([]);
    expect(await verifySecondFactor(deps(), actor, codes[0]!, atSignIn(actor))).toBe('invalid_code');
  });

  it('sign-in: a right password earns a proof; with two-factor on only a right code completes it, audited as a failed sign-in otherwise', async () => {
    const { actor, secret, backupCodes: codes } = await enrolled();
    const password = await signInWithPassword(api.services, { email: actor.email, password: PASSWORD, ip: actor.ip });
    if (!password.ok) throw new Error(password.reason);
    expect(password.user.twoFactor).toBe(true);
    const proof = signInProof(deps(), password.user);
    expect(await completeSignIn(deps(), { proof, code: '', ip: actor.ip })).toEqual({ ok: false, reason: 'invalid_code' });
    expect(await completeSignIn(deps(), { proof, code: '123456', ip: actor.ip })).toMatchObject({ ok: false, reason: 'invalid_code' });
    const failed = await api.services.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.keyHint, `user:${actor.email}`));
    expect(failed.filter((entry) => entry.action === 'dashboard.sign_in_failed' && entry.code === 'invalid_code')).toHaveLength(2);
    expect(await completeSignIn(deps(), { proof, code: await codeAt(secret, api.clock.now()), ip: actor.ip })).toMatchObject({ ok: true, user: { id: actor.userId } });
    expect(await completeSignIn(deps(), { proof, code: codes[0]!, ip: actor.ip })).toMatchObject({ ok: true });

    // A forged, expired, or outdated (sessions ended since) proof completes nothing.
    expect(await completeSignIn(deps(), { proof: `${proof}x`, code: codes[1]!, ip: actor.ip })).toEqual({ ok: false, reason: 'expired' });
    api.clock.advance(5 * 60 + 1);
    expect(await completeSignIn(deps(), { proof, code: codes[1]!, ip: actor.ip })).toEqual({ ok: false, reason: 'expired' });
    const fresh = signInProof(deps(), password.user);
    await endAllSessions(api.services.db, actor.userId);
    expect(await completeSignIn(deps(), { proof: fresh, code: codes[1]!, ip: actor.ip })).toEqual({ ok: false, reason: 'expired' });

    // Without two-factor the proof alone completes it.
    const plain = await person();
    const plainPassword = await signInWithPassword(api.services, { email: plain.email, password: PASSWORD, ip: actor.ip });
    if (!plainPassword.ok) throw new Error(plainPassword.reason);
    expect(plainPassword.user.twoFactor).toBe(false);
    expect(await completeSignIn(deps(), { proof: signInProof(deps(), plainPassword.user), code: '', ip: actor.ip })).toMatchObject({ ok: true, user: { id: plain.userId } });
  });

  it('right codes cost nothing of the sign-in limits; wrong ones count, and past the limit even a right code is refused', async () => {
    const { actor, secret, backupCodes: codes } = await enrolled();
    const limited = { ...deps(), rateLimits: createRateLimits({ perIp: 1000, perKey: 1000, productWritesPerKey: 1000, windowSeconds: 1, signInPerIp: 3, signInPerEmail: 2 }, undefined) };
    for (const code of codes.slice(0, 5)) expect(await verifySecondFactor(limited, actor, code, atSignIn(actor))).toBe('ok');
    expect(await verifySecondFactor(limited, actor, '000000', atSignIn(actor))).toBe('invalid_code');
    expect(await verifySecondFactor(limited, actor, '000000', atSignIn(actor))).toBe('invalid_code');
    expect(await verifySecondFactor(limited, actor, await codeAt(secret, api.clock.now()), atSignIn(actor))).toBe('rate_limited');
    expect(await verifySecondFactor(limited, actor, codes[5]!, atSignIn(actor))).toBe('rate_limited');
  });

  it('code guesses count against the sign-in limit of the e-mail: past it even a right code is refused', async () => {
    const { actor, secret } = await enrolled();
    let outcome = '';
    for (let attempt = 0; attempt < 12 && outcome !== 'rate_limited'; attempt += 1) outcome = await verifySecondFactor(deps(), actor, '000000', atSignIn(actor));
    expect(outcome).toBe('rate_limited');
    expect(await verifySecondFactor(deps(), actor, await codeAt(secret, api.clock.now()), atSignIn(actor))).toBe('rate_limited');
  });
});
