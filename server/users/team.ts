/**
 * A store's team: who belongs with which role, invitations, role changes and removals, under the
 * rules that keep a store governable (owners are touched by owners only, a store keeps an owner,
 * nobody changes their own role), and the invited person's answer: an invitation from the
 * dashboard gives access only once its person, signed in as themselves, accepts it. Each change
 * runs in one transaction with its audit entry.
 */
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { memberships, users, type MemberRole } from '@/db/schema';
import { recordAudit } from '../audit/service';
import { ApiError } from '../errors';
import { isEmailAddress } from '../kit/fields';
import type { Config } from '../config';
import type { RateLimits } from '../rate-limit/service';
import { mailLinkInBackground } from './link-mail';
import { can } from './roles';
import { acceptLinkUrl, endAllSessions, invitationsUrl, inviteUser, normalizeEmail, personAuditEntry, type PersonActing, type UserDeps } from './service';

export type TeamRefusalCode = 'not_allowed' | 'owner_only' | 'last_owner' | 'own_role' | 'not_member' | 'already_member' | 'email_invalid' | 'rate_limited';

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
  /** The invitation is not accepted yet, or the person has not set a password yet. */
  pending: boolean;
}

/** The store's members, longest-standing first. */
export async function listTeam(db: Executor, storeId: string): Promise<TeamMember[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, role: memberships.role, joined: memberships.createdAt, pending: sql<boolean>`${memberships.acceptedAt} is null or ${users.passwordHash} is null` })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.storeId, storeId))
    .orderBy(asc(memberships.createdAt), asc(users.email));
  return rows.map((row) => ({ ...row, joined: Math.floor(row.joined.getTime() / 1000) }));
}

/**
 * The acting person's role, read again inside the change: a team change needs the `settings`
 * right. The store's owners are locked first, so two changes of owners run one after the other
 * and cannot together leave a store without one. Only accepted memberships count.
 */
async function teamChangeContext(tx: Executor, actor: PersonActing): Promise<{ actorRole: MemberRole; owners: string[] }> {
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.storeId, actor.storeId), eq(memberships.role, 'owner'), isNotNull(memberships.acceptedAt)))
    .for('update');
  const [own] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, actor.userId), isNotNull(memberships.acceptedAt)));
  if (!own || !can(own.role, 'settings')) throw new TeamRefusal('not_allowed', 'Only owners and admins change the team.');
  return { actorRole: own.role, owners: owners.map((owner) => owner.userId) };
}

/** A member or an invited person of the store. */
async function memberOf(tx: Executor, storeId: string, userId: string): Promise<{ email: string; role: MemberRole; accepted: boolean }> {
  const [member] = await tx
    .select({ email: users.email, role: memberships.role, accepted: sql<boolean>`${memberships.acceptedAt} is not null` })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.storeId, storeId), eq(memberships.userId, userId)));
  if (!member) throw new TeamRefusal('not_member', 'That person is not a member of this store.');
  return member;
}

const ownerOnly = () => new TeamRefusal('owner_only', 'Only an owner may invite, change or remove an owner, or make someone owner.');
const lastOwner = () => new TeamRefusal('last_owner', 'A store keeps at least one owner.');

/**
 * How a dashboard invitation reached its person. The inviter never gets a link: a link that sets
 * a password goes only to the person's e-mail (or the operator's CLI).
 * - link_mailed: a person without a password was e-mailed the link that sets it;
 * - link_not_sent: the same without SMTP: the operator hands a link over (`user:reset`);
 * - notice_mailed / awaiting_sign_in: a person with a password sees it when they sign in (told by e-mail when there is SMTP).
 */
export type InvitationDelivery = 'link_mailed' | 'link_not_sent' | 'notice_mailed' | 'awaiting_sign_in';

export interface DashboardInvitation {
  email: string;
  role: MemberRole;
  delivery: InvitationDelivery;
}

/**
 * Invites a person to the actor's store (inviteUser), audited in the same transaction. The
 * membership waits for the person to accept it, signed in as themselves. Only an owner invites an
 * owner; invitations are limited per store and per inviting person.
 */
export async function inviteMember(deps: UserDeps & { rateLimits: RateLimits; config: Config }, actor: PersonActing, input: { email: string; role: MemberRole }): Promise<DashboardInvitation> {
  try {
    // The person's own limit first: once spent, it spends nothing of the store's.
    await deps.rateLimits.consume('inviteInviter', actor.userId);
    await deps.rateLimits.consume('inviteStore', actor.storeId);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'rate_limited') throw new TeamRefusal('rate_limited', error.message);
    throw error;
  }
  const { user, storeName, token } = await deps.db.transaction(async (tx) => {
    const { actorRole } = await teamChangeContext(tx, actor);
    if (input.role === 'owner' && actorRole !== 'owner') throw ownerOnly();
    if (!isEmailAddress(normalizeEmail(input.email))) throw new TeamRefusal('email_invalid', 'Give a valid e-mail address.');
    const invitation = await inviteUser({ db: tx, clock: deps.clock }, { storeId: actor.storeId, email: input.email, role: input.role, accepted: false }).catch((error: unknown) => {
      // The address is valid (checked above): inviteUser refuses it only as a member already.
      if (error instanceof ApiError && error.code === 'parameter_invalid') throw new TeamRefusal('already_member', `${normalizeEmail(input.email)} is already a member or invited.`);
      throw error;
    });
    await recordAudit(tx, personAuditEntry(actor, 'team.invite', { email: invitation.user.email, role: invitation.user.role }));
    return invitation;
  });
  const about = { to: user.email, storeName, role: user.role };
  if (token === undefined) {
    const told = mailLinkInBackground(deps.config, { purpose: 'join', url: invitationsUrl(deps.config.publicBaseUrl), ...about });
    return { email: user.email, role: user.role, delivery: told ? 'notice_mailed' : 'awaiting_sign_in' };
  }
  const mailed = mailLinkInBackground(deps.config, { purpose: 'invite', url: acceptLinkUrl(deps.config.publicBaseUrl, token), ...about });
  return { email: user.email, role: user.role, delivery: mailed ? 'link_mailed' : 'link_not_sent' };
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
    if (member.role === 'owner' && member.accepted && input.role !== 'owner' && owners.length <= 1) throw lastOwner();
    await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, input.userId)));
    await recordAudit(tx, personAuditEntry(actor, 'team.role_change', { email: member.email, from: member.role, to: input.role }));
  });
}

/**
 * Removes a member (or withdraws an invitation). Their access to this store ends with their next
 * request, which reads their memberships again; their sessions go on for their other stores, and
 * end when no store is left. Only
 * an owner removes an owner, and never the last one.
 */
export function removeMember(db: Executor, actor: PersonActing, input: { userId: string }): Promise<void> {
  return db.transaction(async (tx) => {
    const { actorRole, owners } = await teamChangeContext(tx, actor);
    const member = await memberOf(tx, actor.storeId, input.userId);
    if (member.role === 'owner' && actorRole !== 'owner') throw ownerOnly();
    if (member.role === 'owner' && member.accepted && owners.length <= 1) throw lastOwner();
    await tx.delete(memberships).where(and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, input.userId)));
    // Someone left with no store at all has nothing a session could still open: it ends.
    const [other] = await tx
      .select({ storeId: memberships.storeId })
      .from(memberships)
      .where(and(eq(memberships.userId, input.userId), isNotNull(memberships.acceptedAt)))
      .limit(1);
    if (member.accepted && !other) await endAllSessions(tx, input.userId);
    await recordAudit(tx, personAuditEntry(actor, 'team.remove', { email: member.email, role: member.role }));
  });
}

/** The invited person's answer to an invitation of theirs, from the dashboard (audited in the invitation's store). */
export type InvitationAnswer = 'accept' | 'decline';

/**
 * Accepts (the store's access begins) or declines (the invitation is deleted) a pending invitation
 * of the signed-in person to `actor.storeId`. False when there is no such invitation (any more).
 */
export function answerInvitation(deps: UserDeps, actor: PersonActing, answer: InvitationAnswer): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const pending = and(eq(memberships.storeId, actor.storeId), eq(memberships.userId, actor.userId), isNull(memberships.acceptedAt));
    const [answered] =
      answer === 'accept'
        ? await tx.update(memberships).set({ acceptedAt: deps.clock.now() }).where(pending).returning({ role: memberships.role })
        : await tx.delete(memberships).where(pending).returning({ role: memberships.role });
    if (!answered) return false;
    await recordAudit(tx, personAuditEntry(actor, answer === 'accept' ? 'team.invitation_accept' : 'team.invitation_decline', { role: answered.role }));
    return true;
  });
}
