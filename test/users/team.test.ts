import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, memberships, users, type MemberRole } from '@/db/schema';
import { randomBase62 } from '@/server/ids';
import { createStore } from '@/server/stores/service';
import { hashPassword, verifyPassword } from '@/server/users/password';
import { changePassword, currentSessionVersion, signOutEverywhere, type PersonActing } from '@/server/users/service';
import { changeMemberRole, inviteMember, listTeam, removeMember, TeamRefusal, type TeamRefusalCode } from '@/server/users/team';
import { createTestDatabase } from '../support/database';
import { createTestClock } from '../support/server';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const clock = createTestClock(new Date('2026-03-01T10:00:00Z'));
const deps = () => ({ db: database.db, clock });

beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(() => database.close());

/** A store with one member of each given role, each with a password. */
async function teamOf(roles: MemberRole[]) {
  const store = await createStore(database.db, { name: `Team ${randomBase62(4)}` });
  const people: PersonActing[] = [];
  for (const [index, role] of roles.entries()) {
    const id = `user_${randomBase62(12)}`;
    const email = `${role}${index}-${randomBase62(4).toLowerCase()}@example.com`;
    await database.db.insert(users).values({ id, email, passwordHash: await hashPassword('first password 1') });
    // Before the test clock's now, when invitations join.
    await database.db.insert(memberships).values({ userId: id, storeId: store.id, role, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)) });
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
  (await database.db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.storeId, storeId), eq(memberships.userId, userId))))[0]?.role;

const auditOf = (storeId: string) => database.db.select().from(auditEvents).where(eq(auditEvents.storeId, storeId)).orderBy(desc(auditEvents.id));

describe('team', () => {
  it('7 an admin invites a member: membership and link made, audited with user:<email> and no mode; the team lists them as pending', async () => {
    const { store, people } = await teamOf(['owner', 'admin']);
    const admin = people[1]!;
    const invitation = await inviteMember(deps(), admin, { email: ' New@Example.com ', role: 'developer' });
    expect(invitation.user).toEqual({ email: 'new@example.com', role: 'developer', store: store.id });
    expect(invitation.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const team = await listTeam(database.db, store.id);
    expect(team.map((member) => [member.email, member.role, member.pending])).toEqual([
      [people[0]!.email, 'owner', false],
      [admin.email, 'admin', false],
      ['new@example.com', 'developer', true],
    ]);
    const [entry] = await auditOf(store.id);
    expect(entry).toMatchObject({ action: 'team.invite', keyHint: `user:${admin.email}`, livemode: null, ip: '203.0.113.7', method: 'POST', path: '/dashboard/act/x', details: { email: 'new@example.com', role: 'developer' } });
    expect(JSON.stringify(entry)).not.toContain(invitation.token);
  });

  it('7 invitation refusals: an admin may not invite an owner; a bad address; a member already; a developer may not invite', async () => {
    const { store, people } = await teamOf(['owner', 'admin', 'developer']);
    const [owner, admin, developer] = people as [PersonActing, PersonActing, PersonActing];
    expect(await refusal(inviteMember(deps(), admin, { email: 'boss@example.com', role: 'owner' }))).toBe('owner_only');
    expect(await refusal(inviteMember(deps(), admin, { email: 'not an address', role: 'viewer' }))).toBe('email_invalid');
    expect(await refusal(inviteMember(deps(), admin, { email: developer.email.toUpperCase(), role: 'viewer' }))).toBe('already_member');
    expect(await refusal(inviteMember(deps(), developer, { email: 'dev-friend@example.com', role: 'viewer' }))).toBe('not_allowed');
    expect((await listTeam(database.db, store.id)).map((member) => member.email)).toEqual([owner.email, admin.email, developer.email]);
    expect(await database.db.select().from(users).where(eq(users.email, 'boss@example.com'))).toEqual([]);
    expect(await auditOf(store.id)).toEqual([]);
    // An owner may invite an owner.
    await inviteMember(deps(), owner, { email: 'co-owner@example.com', role: 'owner' });
    expect((await listTeam(database.db, store.id)).at(-1)).toMatchObject({ email: 'co-owner@example.com', role: 'owner' });
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

  it('7 removal ends every session of the removed person at once; an admin may not remove an owner; the last owner stays', async () => {
    const { store, people } = await teamOf(['owner', 'admin', 'support']);
    const [owner, admin, support] = people as [PersonActing, PersonActing, PersonActing];
    const before = await currentSessionVersion(database.db, support.userId);
    await removeMember(database.db, admin, { userId: support.userId });
    expect(await roleOf(store.id, support.userId)).toBeUndefined();
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
