import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, memberships, oneTimeLinks, users, type MemberRole } from '@/db/schema';
import { loadConfig, type RateLimitConfig } from '@/server/config';
import { randomBase62 } from '@/server/ids';
import { createRateLimits } from '@/server/rate-limit/service';
import { createStore } from '@/server/stores/service';
import { hashPassword, verifyPassword } from '@/server/users/password';
import { changePassword, currentSessionVersion, dashboardPerson, describeLink, inviteUser, signOutEverywhere, type PersonActing } from '@/server/users/service';
import { answerInvitation, changeMemberRole, inviteMember, listTeam, removeMember, TeamRefusal, type TeamRefusalCode } from '@/server/users/team';
import { createTestDatabase } from '../support/database';
import { createTestClock } from '../support/server';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const clock = createTestClock(new Date('2026-03-01T10:00:00Z'));
const deps = () => ({ db: database.db, clock });
const LIMITS: RateLimitConfig = { perIp: 1000, perKey: 1000, productWritesPerKey: 1000, windowSeconds: 1, invitesPerStore: 1000, invitesPerInviter: 1000 };
/** What a dashboard invitation needs: no SMTP here (link-mail.test.ts has one). */
const inviteDeps = (limits: Partial<RateLimitConfig> = {}) => ({ ...deps(), config: loadConfig({}), rateLimits: createRateLimits({ ...LIMITS, ...limits }, undefined) });

beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(() => database.close());

/** A store with one (accepted) member of each given role, each with a password. */
async function teamOf(roles: MemberRole[]) {
  const store = await createStore(database.db, { name: `Team ${randomBase62(4)}` });
  const people: PersonActing[] = [];
  for (const [index, role] of roles.entries()) {
    const id = `user_${randomBase62(12)}`;
    const email = `${role}${index}-${randomBase62(4).toLowerCase()}@example.com`;
    await database.db.insert(users).values({ id, email, passwordHash: await hashPassword('first password 1') });
    // Before the test clock's now, when invitations join.
    const joined = new Date(Date.UTC(2026, 0, 1, 0, 0, index));
    await database.db.insert(memberships).values({ userId: id, storeId: store.id, role, createdAt: joined, acceptedAt: joined });
    people.push({ userId: id, email, storeId: store.id, ip: '203.0.113.7', path: '/dashboard/act/x' });
  }
  return { store, people };
}

async function refusal(promise: Promise<unknown>): Promise<TeamRefusalCode> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TeamRefusal);
  return (error as TeamRefusal).code;
}

const roleOf = async (storeId: string, userId: string) =>
  (
    await database.db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.storeId, storeId), eq(memberships.userId, userId)))
  )[0]?.role;

const auditOf = (storeId: string) => database.db.select().from(auditEvents).where(eq(auditEvents.storeId, storeId)).orderBy(desc(auditEvents.id));

describe('team', () => {
  it('7 an admin invites a new e-mail: a pending membership, and a link that only goes to their e-mail (none here: no SMTP); audited', async () => {
    const { store, people } = await teamOf(['owner', 'admin']);
    const admin = people[1]!;
    const invitation = await inviteMember(inviteDeps(), admin, { email: ' New@Example.com ', role: 'developer' });
    // Nothing the inviter gets can set the password.
    expect(invitation).toEqual({ email: 'new@example.com', role: 'developer', delivery: 'link_not_sent' });
    const team = await listTeam(database.db, store.id);
    expect(team.map((member) => [member.email, member.role, member.pending])).toEqual([
      [people[0]!.email, 'owner', false],
      [admin.email, 'admin', false],
      ['new@example.com', 'developer', true],
    ]);
    const [created] = await database.db.select().from(users).where(eq(users.email, 'new@example.com'));
    expect(created!.passwordHash).toBeNull();
    expect(await database.db.select({ purpose: oneTimeLinks.purpose }).from(oneTimeLinks).where(eq(oneTimeLinks.userId, created!.id))).toEqual([{ purpose: 'invite' }]);
    // No access until accepted.
    expect(await dashboardPerson(database.db, created!.id)).toEqual({
      email: 'new@example.com',
      memberships: [],
      invitations: [{ storeId: store.id, storeName: store.name, role: 'developer', invited: expect.any(Number) }],
    });
    const [entry] = await auditOf(store.id);
    expect(entry).toMatchObject({
      action: 'team.invite',
      keyHint: `user:${admin.email}`,
      livemode: null,
      ip: '203.0.113.7',
      method: 'POST',
      path: '/dashboard/act/x',
      details: { email: 'new@example.com', role: 'developer' },
    });
  });

  it('7 inviting someone who has an account in another store: no link at all, their sessions untouched; only they accept (then they have access) or decline; audited', async () => {
    const { store: storeA, people: teamA } = await teamOf(['owner']);
    const { store: storeB, people: teamB } = await teamOf(['owner']);
    const ownerA = teamA[0]!;
    const ownerB = teamB[0]!;
    const version = await currentSessionVersion(database.db, ownerA.userId);
    const linksBefore = await database.db.select().from(oneTimeLinks).where(eq(oneTimeLinks.userId, ownerA.userId));
    expect(await inviteMember(inviteDeps(), ownerB, { email: ownerA.email.toUpperCase(), role: 'admin' })).toEqual({ email: ownerA.email, role: 'admin', delivery: 'awaiting_sign_in' });
    expect(await database.db.select().from(oneTimeLinks).where(eq(oneTimeLinks.userId, ownerA.userId))).toEqual(linksBefore);
    expect(await currentSessionVersion(database.db, ownerA.userId)).toBe(version);
    const person = await dashboardPerson(database.db, ownerA.userId);
    expect(person!.memberships).toEqual([{ storeId: storeA.id, storeName: storeA.name, role: 'owner' }]);
    expect(person!.invitations).toEqual([{ storeId: storeB.id, storeName: storeB.name, role: 'admin', invited: Math.floor(clock.now().getTime() / 1000) }]);
    // A pending member has no say in the store's team.
    const pendingA = { ...ownerA, storeId: storeB.id };
    expect(await refusal(inviteMember(inviteDeps(), pendingA, { email: 'friend@example.com', role: 'viewer' }))).toBe('not_allowed');
    // Only the invited person answers, for themselves: nobody else's answer does anything.
    expect(await answerInvitation(deps(), { ...ownerB, storeId: storeB.id }, 'accept')).toBe(false);
    expect(await answerInvitation(deps(), { ...ownerA, storeId: storeA.id }, 'accept')).toBe(false);
    expect(await answerInvitation(deps(), pendingA, 'accept')).toBe(true);
    expect(await answerInvitation(deps(), pendingA, 'accept')).toBe(false);
    const accepted = (await dashboardPerson(database.db, ownerA.userId))!.memberships.map((membership) => [membership.storeId, membership.role]);
    expect(accepted.sort()).toEqual(
      [
        [storeA.id, 'owner'],
        [storeB.id, 'admin'],
      ].sort(),
    );
    expect((await auditOf(storeB.id))[0]).toMatchObject({ action: 'team.invitation_accept', keyHint: `user:${ownerA.email}`, livemode: null, details: { role: 'admin' } });
    expect(await currentSessionVersion(database.db, ownerA.userId)).toBe(version);

    // Removal from B ends the access to B alone: no session of theirs ends.
    await removeMember(database.db, ownerB, { userId: ownerA.userId });
    expect((await dashboardPerson(database.db, ownerA.userId))!.memberships).toEqual([{ storeId: storeA.id, storeName: storeA.name, role: 'owner' }]);
    expect(await currentSessionVersion(database.db, ownerA.userId)).toBe(version);

    // Invited again, they decline: the invitation is gone, audited.
    await inviteMember(inviteDeps(), ownerB, { email: ownerA.email, role: 'viewer' });
    expect(await answerInvitation(deps(), pendingA, 'decline')).toBe(true);
    expect(await dashboardPerson(database.db, ownerA.userId)).toMatchObject({ memberships: [{ storeId: storeA.id }], invitations: [] });
    expect((await auditOf(storeB.id))[0]).toMatchObject({ action: 'team.invitation_decline', keyHint: `user:${ownerA.email}`, details: { role: 'viewer' } });
    expect(await answerInvitation(deps(), pendingA, 'decline')).toBe(false);
  });

  it('7 an operator-invited person without a password yet, invited from another store: the link there goes only to their e-mail; their password is never set by the inviter', async () => {
    const { people: teamB } = await teamOf(['owner']);
    const storeA = await createStore(database.db, { name: `Operator ${randomBase62(4)}` });
    const operatorInvited = await inviteUser(deps(), { storeId: storeA.id, email: `fresh-${randomBase62(6).toLowerCase()}@example.com`, role: 'owner', accepted: true });
    const invitation = await inviteMember(inviteDeps(), teamB[0]!, { email: operatorInvited.user.email, role: 'admin' });
    expect(invitation).toEqual({ email: operatorInvited.user.email, role: 'admin', delivery: 'link_not_sent' });
    expect(JSON.stringify(invitation)).not.toMatch(/accept|token|url/);
    // The operator's own link still sets the password and lands in store A alone.
    expect(await describeLink(deps(), operatorInvited.token)).toMatchObject({ kind: 'set_password' });
  });

  it('7 the operator’s invitation accepts a pending one at once; a pending owner neither counts as the last owner nor is protected as one', async () => {
    const { store, people } = await teamOf(['owner']);
    const [owner] = people as [PersonActing];
    await inviteMember(inviteDeps(), owner, { email: 'pending-owner@example.com', role: 'owner' });
    const [pending] = await database.db.select().from(users).where(eq(users.email, 'pending-owner@example.com'));
    // The only accepted owner stays the last owner.
    expect(await refusal(removeMember(database.db, owner, { userId: owner.userId }))).toBe('last_owner');
    await changeMemberRole(database.db, owner, { userId: pending!.id, role: 'viewer' });
    await inviteUser(deps(), { storeId: store.id, email: 'pending-owner@example.com', role: 'admin', accepted: true });
    expect((await dashboardPerson(database.db, pending!.id))!.memberships).toEqual([{ storeId: store.id, storeName: store.name, role: 'admin' }]);
    await expect(inviteUser(deps(), { storeId: store.id, email: 'pending-owner@example.com', role: 'viewer', accepted: true })).rejects.toMatchObject({ code: 'parameter_invalid' });
  });

  it('7 dashboard invitations are limited per inviting person and per store', async () => {
    const { store, people } = await teamOf(['owner', 'admin', 'admin']);
    const [owner, first, second] = people as [PersonActing, PersonActing, PersonActing];
    const limited = inviteDeps({ invitesPerInviter: 2, invitesPerStore: 3 });
    await inviteMember(limited, first, { email: 'one@example.com', role: 'viewer' });
    await inviteMember(limited, first, { email: 'two@example.com', role: 'viewer' });
    expect(await refusal(inviteMember(limited, first, { email: 'three@example.com', role: 'viewer' }))).toBe('rate_limited');
    await inviteMember(limited, second, { email: 'three@example.com', role: 'viewer' });
    // The store's three are spent, whoever invites.
    expect(await refusal(inviteMember(limited, owner, { email: 'four@example.com', role: 'viewer' }))).toBe('rate_limited');
    expect(
      (await listTeam(database.db, store.id))
        .map((member) => member.email)
        .slice(3)
        .sort(),
    ).toEqual(['one@example.com', 'three@example.com', 'two@example.com']);
  });

  it('7 role changes: done and audited; refused for one’s own role, an owner by an admin, making an owner by an admin, the last owner, a non-member', async () => {
    const { store, people } = await teamOf(['owner', 'admin', 'viewer']);
    const [owner, admin, viewer] = people as [PersonActing, PersonActing, PersonActing];
    await changeMemberRole(database.db, admin, { userId: viewer.userId, role: 'support' });
    expect(await roleOf(store.id, viewer.userId)).toBe('support');
    expect((await auditOf(store.id))[0]).toMatchObject({ action: 'team.role_change', keyHint: `user:${admin.email}`, details: { email: viewer.email, from: 'viewer', to: 'support' } });

    expect(await refusal(changeMemberRole(database.db, admin, { userId: admin.userId, role: 'viewer' }))).toBe('own_role');
    expect(await refusal(changeMemberRole(database.db, owner, { userId: owner.userId, role: 'admin' }))).toBe('own_role');
    expect(await refusal(changeMemberRole(database.db, admin, { userId: owner.userId, role: 'admin' }))).toBe('owner_only');
    expect(await refusal(changeMemberRole(database.db, admin, { userId: viewer.userId, role: 'owner' }))).toBe('owner_only');
    expect(await refusal(changeMemberRole(database.db, viewer, { userId: admin.userId, role: 'viewer' }))).toBe('not_allowed');
    expect(await refusal(changeMemberRole(database.db, owner, { userId: 'user_nobody', role: 'viewer' }))).toBe('not_member');
    expect([await roleOf(store.id, owner.userId), await roleOf(store.id, admin.userId), await roleOf(store.id, viewer.userId)]).toEqual(['owner', 'admin', 'support']);

    // An owner makes the admin owner, then the other owner may be demoted, but not the last one.
    await changeMemberRole(database.db, owner, { userId: admin.userId, role: 'owner' });
    await changeMemberRole(database.db, admin, { userId: owner.userId, role: 'admin' });
    expect(await roleOf(store.id, owner.userId)).toBe('admin');
    const { people: lone } = await teamOf(['owner', 'owner']);
    await changeMemberRole(database.db, lone[0]!, { userId: lone[1]!.userId, role: 'viewer' });
    // lone[1] is no longer an owner (nor may change the team): the last owner cannot be demoted by anyone.
    expect(await refusal(changeMemberRole(database.db, lone[1]!, { userId: lone[0]!.userId, role: 'viewer' }))).toBe('not_allowed');
  });

  it('7 the last owner is never demoted: two owners demoting each other at once leave one owner', async () => {
    const { store, people } = await teamOf(['owner', 'owner']);
    const [first, second] = people as [PersonActing, PersonActing];
    const results = await Promise.allSettled([
      changeMemberRole(database.db, first, { userId: second.userId, role: 'admin' }),
      changeMemberRole(database.db, second, { userId: first.userId, role: 'admin' }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const roles = [await roleOf(store.id, first.userId), await roleOf(store.id, second.userId)].sort();
    expect(roles).toEqual(['admin', 'owner']);
  });

  it('7 removal ends the removed person’s access to the store (their sessions go on elsewhere, and end when no store is left); an admin may not remove an owner; the last owner stays', async () => {
    const { store, people } = await teamOf(['owner', 'admin', 'support']);
    const [owner, admin, support] = people as [PersonActing, PersonActing, PersonActing];
    const elsewhere = await createStore(database.db, { name: `Elsewhere ${randomBase62(4)}` });
    await database.db.insert(memberships).values({ userId: support.userId, storeId: elsewhere.id, role: 'viewer', createdAt: new Date(), acceptedAt: new Date() });
    const before = await currentSessionVersion(database.db, support.userId);
    await removeMember(database.db, admin, { userId: support.userId });
    expect(await roleOf(store.id, support.userId)).toBeUndefined();
    expect((await dashboardPerson(database.db, support.userId))!.memberships.map((membership) => membership.storeId)).toEqual([elsewhere.id]);
    expect(await currentSessionVersion(database.db, support.userId)).toBe(before);
    // Removed from the last store they had: their sessions end.
    const [elsewhereOwner] = (await teamOf(['owner'])).people;
    await database.db.insert(memberships).values({ userId: elsewhereOwner!.userId, storeId: elsewhere.id, role: 'owner', createdAt: new Date(), acceptedAt: new Date() });
    await removeMember(database.db, { ...elsewhereOwner!, storeId: elsewhere.id }, { userId: support.userId });
    expect((await dashboardPerson(database.db, support.userId))!.memberships).toEqual([]);
    expect(await currentSessionVersion(database.db, support.userId)).toBe(before! + 1);
    expect((await auditOf(store.id))[0]).toMatchObject({ action: 'team.remove', keyHint: `user:${admin.email}`, livemode: null, details: { email: support.email, role: 'support' } });

    const ownerVersion = await currentSessionVersion(database.db, owner.userId);
    expect(await refusal(removeMember(database.db, admin, { userId: owner.userId }))).toBe('owner_only');
    expect(await refusal(removeMember(database.db, owner, { userId: owner.userId }))).toBe('last_owner');
    expect(await refusal(removeMember(database.db, admin, { userId: support.userId }))).toBe('not_member');
    expect(await roleOf(store.id, owner.userId)).toBe('owner');
    expect(await currentSessionVersion(database.db, owner.userId)).toBe(ownerVersion);
    // An owner removes an admin.
    await removeMember(database.db, owner, { userId: admin.userId });
    expect((await listTeam(database.db, store.id)).map((member) => member.email)).toEqual([owner.email]);
  });
});

describe('account', () => {
  it('7 a password change checks the current password and the rules, then ends every session; audited', async () => {
    const { store, people } = await teamOf(['viewer']);
    const viewer = people[0]!;
    const version = await currentSessionVersion(database.db, viewer.userId);
    expect(await changePassword(database.db, viewer, { current: 'wrong password 1', password: 'second password 2', confirmation: 'second password 2' })).toBe('wrong_password');
    expect(await changePassword(database.db, viewer, { current: 'first password 1', password: 'short', confirmation: 'short' })).toBe('too_short');
    expect(await changePassword(database.db, viewer, { current: 'first password 1', password: 'second password 2', confirmation: 'second password 3' })).toBe('mismatch');
    expect(await currentSessionVersion(database.db, viewer.userId)).toBe(version);
    expect(await auditOf(store.id)).toEqual([]);

    expect(await changePassword(database.db, viewer, { current: 'first password 1', password: 'second password 2', confirmation: 'second password 2' })).toBeUndefined();
    const [row] = await database.db.select().from(users).where(eq(users.id, viewer.userId));
    expect(await verifyPassword('second password 2', row!.passwordHash!)).toBe(true);
    expect(row!.sessionVersion).toBe(version! + 1);
    const [entry] = await auditOf(store.id);
    expect(entry).toMatchObject({ action: 'account.password_change', keyHint: `user:${viewer.email}`, livemode: null, details: {} });
    expect(JSON.stringify(entry)).not.toContain('second password');
  });

  it('7 sign out everywhere bumps the session version, audited', async () => {
    const { store, people } = await teamOf(['developer']);
    const developer = people[0]!;
    const version = await currentSessionVersion(database.db, developer.userId);
    await signOutEverywhere(database.db, developer);
    expect(await currentSessionVersion(database.db, developer.userId)).toBe(version! + 1);
    expect((await auditOf(store.id))[0]).toMatchObject({ action: 'account.sign_out_everywhere', keyHint: `user:${developer.email}` });
  });
});
