/**
 * A store's team: who belongs with which role, invitations, role changes and removals, under the
 * rules that keep a store governable (owners are touched by owners only, a store keeps an owner,
 * nobody changes their own role). Each change runs in one transaction with its audit entry.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { memberships, users, type MemberRole } from '@/db/schema';
import { recordAudit } from '../audit/service';
import { ApiError } from '../errors';
import { isEmailAddress } from '../kit/fields';
import { can } from './roles';
import { endAllSessions, inviteUser, normalizeEmail, personAuditEntry, type Invitation, type PersonActing, type UserDeps } from './service';

export type TeamRefusalCode = 'not_allowed' | 'owner_only' | 'last_owner' | 'own_role' | 'not_member' | 'already_member' | 'email_invalid';

/** A team change the rules refuse; nothing was changed. `code` is what the page explains. */
export class TeamRefusal extends Error {
  constructor(
    readonly code: TeamRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'TeamRefusal';
  }
}

export interface TeamMember {
  userId: string;
  email: string;
  role: MemberRole;
  /** Epoch seconds the membership began. */
  joined: number;
  /** Invited and no password set yet. */
  pending: boolean;
}

/** The store's members, longest-standing first. */
export async function listTeam(db: Executor, storeId: string): Promise<TeamMember[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, role: memberships.role, joined: memberships.createdAt, pending: sql<boolean>`${users.passwordHash} is null` })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.storeId, storeId))
    .orderBy(asc(memberships.createdAt), asc(users.email));
  return rows.map((row) => ({ ...row, joined: Math.floor(row.joined.getTime() / 1000) }));
}

/**
 * The acting person's role, read again inside the change: a team change needs the `settings`
 * right. The store's owners are locked first, so two changes of owners run one after the other
 * and cannot together leave a store without one.
 */
async function teamChangeContext(tx: Executor, actor: PersonActing): Promise<{ actorRole: MemberRole; owners: string[] }> {
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.storeId, actor.storeId), eq(memberships.role, 'owner')))
    .for('update');
  const [own] = await tx.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, actor.userId)));
  if (!own || !can(own.role, 'settings')) throw new TeamRefusal('not_allowed', 'Only owners and admins change the team.');
  return { actorRole: own.role, owners: owners.map((owner) => owner.userId) };
}

async function memberOf(tx: Executor, storeId: string, userId: string): Promise<{ email: string; role: MemberRole }> {
  const [member] = await tx
    .select({ email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.storeId, storeId), eq(memberships.userId, userId)));
  if (!member) throw new TeamRefusal('not_member', 'That person is not a member of this store.');
  return member;
}

const ownerOnly = () => new TeamRefusal('owner_only', 'Only an owner may invite, change or remove an owner, or make someone owner.');
const lastOwner = () => new TeamRefusal('last_owner', 'A store keeps at least one owner.');

/** Invites a person to the actor's store (inviteUser), audited in the same transaction. Only an owner invites an owner. */
export function inviteMember(deps: UserDeps, actor: PersonActing, input: { email: string; role: MemberRole }): Promise<Invitation> {
  return deps.db.transaction(async (tx) => {
    const { actorRole } = await teamChangeContext(tx, actor);
    if (input.role === 'owner' && actorRole !== 'owner') throw ownerOnly();
    if (!isEmailAddress(normalizeEmail(input.email))) throw new TeamRefusal('email_invalid', 'Give a valid e-mail address.');
    const invitation = await inviteUser({ db: tx, clock: deps.clock }, { storeId: actor.storeId, email: input.email, role: input.role }).catch((error: unknown) => {
      // The address is valid (checked above): inviteUser refuses it only as a member already.
      if (error instanceof ApiError && error.code === 'parameter_invalid') throw new TeamRefusal('already_member', `${normalizeEmail(input.email)} is already a member.`);
      throw error;
    });
    await recordAudit(tx, personAuditEntry(actor, 'team.invite', { email: invitation.user.email, role: invitation.user.role }));
    return invitation;
  });
}

/**
 * Gives a member another role. Nobody changes their own role; only an owner changes an owner's
 * role or makes someone owner; the last owner stays one.
 */
export function changeMemberRole(db: Executor, actor: PersonActing, input: { userId: string; role: MemberRole }): Promise<void> {
  return db.transaction(async (tx) => {
    const { actorRole, owners } = await teamChangeContext(tx, actor);
    if (input.userId === actor.userId) throw new TeamRefusal('own_role', 'You cannot change your own role.');
    const member = await memberOf(tx, actor.storeId, input.userId);
    if ((member.role === 'owner' || input.role === 'owner') && actorRole !== 'owner') throw ownerOnly();
    if (member.role === 'owner' && input.role !== 'owner' && owners.length <= 1) throw lastOwner();
    await tx.update(memberships).set({ role: input.role }).where(and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, input.userId)));
    await recordAudit(tx, personAuditEntry(actor, 'team.role_change', { email: member.email, from: member.role, to: input.role }));
  });
}

/**
 * Removes a member and ends every session of theirs at once. Their sessions may be for another
 * store of theirs, but a session that was open on this store must not outlive the removal, and
 * a session cannot be told apart by store: safety first, they all end. Only an owner removes an
 * owner, and never the last one.
 */
export function removeMember(db: Executor, actor: PersonActing, input: { userId: string }): Promise<void> {
  return db.transaction(async (tx) => {
    const { actorRole, owners } = await teamChangeContext(tx, actor);
    const member = await memberOf(tx, actor.storeId, input.userId);
    if (member.role === 'owner' && actorRole !== 'owner') throw ownerOnly();
    if (member.role === 'owner' && owners.length <= 1) throw lastOwner();
    await tx.delete(memberships).where(and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, input.userId)));
    await endAllSessions(tx, input.userId);
    await recordAudit(tx, personAuditEntry(actor, 'team.remove', { email: member.email, role: member.role }));
  });
}
