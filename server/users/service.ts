/**
 * Dashboard people: invitations and password resets by one-time link, password sign-in, the
 * session version that ends every session of a person at once, and each person's own account
 * (a store's team is in team.ts).
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { memberships, oneTimeLinks, stores, users, type MemberRole, type OneTimeLinkPurpose } from '@/db/schema';
import { byPerson, recordAudit, type AuditEntry } from '../audit/service';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { ApiError } from '../errors';
import { isEmailAddress } from '../kit/fields';
import { newPlatformId, sha256Hex } from '../ids';
import type { RateLimits } from '../rate-limit/service';
import { epochSeconds } from '../clock';
import { signingSecret } from '../kit/links';
import { seal, unseal } from '../kit/sealed';
import { smtpConfigured } from '../mail/smtp';
import { mailLinkInBackground } from './link-mail';
import { hashPassword, UNMATCHABLE_HASH, verifyPassword } from './password';
import { refundAttempt, spendAttempt, verifySecondFactor, type TwoFactorDeps } from './two-factor';

/** One-time links expire this long after they are made, on the wall clock. */
export const LINK_LIFETIME_SECONDS = 24 * 60 * 60;
export const MIN_PASSWORD_LENGTH = 12;
/** scrypt takes any length; this only bounds the work one form post can ask for. */
export const MAX_PASSWORD_LENGTH = 256;

/** `clock` is the wall clock: links and sessions follow real time, never a store's test clock. */
export interface UserDeps {
  db: Executor;
  clock: Clock;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The page a link opens; the token is its only credential. */
export function acceptLinkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/dashboard/accept/${token}`;
}

/** The page where a signed-in person accepts or declines the invitations waiting for them. */
export function invitationsUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl}/dashboard/invitations`;
}

/** 256 random bits, returned this once; only the SHA-256 is kept. */
async function issueLink(tx: Executor, now: Date, link: { purpose: OneTimeLinkPurpose; userId: string; storeId?: string; role?: MemberRole }): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await tx.insert(oneTimeLinks).values({
    id: newPlatformId('link'),
    tokenHash: sha256Hex(token),
    ...link,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LINK_LIFETIME_SECONDS * 1000),
  });
  return token;
}

export interface Invitation {
  user: { email: string; role: MemberRole; store: string };
  storeName: string;
  /**
   * The invitation link: it sets the password of a person who has none yet, or tells one who has
   * that they joined. Undefined for a pending invitation of a person with a password: they see it
   * when they sign in, and no link is needed.
   */
  token: string | undefined;
}

export interface InvitationInput {
  storeId: string;
  email: string;
  role: MemberRole;
  accepted: boolean;
}

/**
 * Adds the person (created when the e-mail is new) to the store with the role. `accepted` (the
 * operator's invitation) gives access at once and accepts a pending invitation; otherwise the
 * membership waits until the person, signed in as themselves, accepts it. A person who already
 * has a password keeps it: an invitation never sets it.
 */
export async function inviteUser(deps: UserDeps, input: InvitationInput & { accepted: true }): Promise<Invitation & { token: string }>;
export async function inviteUser(deps: UserDeps, input: InvitationInput): Promise<Invitation>;
export async function inviteUser(deps: UserDeps, input: InvitationInput): Promise<Invitation> {
  const email = normalizeEmail(input.email);
  if (!isEmailAddress(email)) throw new ApiError('parameter_invalid', 'Give a valid e-mail address.', { param: 'email' });
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [store] = await tx.select({ id: stores.id, name: stores.name }).from(stores).where(eq(stores.id, input.storeId));
    if (!store) throw new ApiError('resource_missing', `No store with id '${input.storeId}'.`, { param: 'store' });
    await tx
      .insert(users)
      .values({ id: newPlatformId('user'), email, createdAt: now })
      .onConflictDoNothing({ target: users.email });
    const [user] = await tx
      .select({ id: users.id, hasPassword: sql<boolean>`${users.passwordHash} is not null` })
      .from(users)
      .where(eq(users.email, email));
    const membership = { userId: user!.id, storeId: store.id, role: input.role, createdAt: now, acceptedAt: input.accepted ? now : null };
    const insert = tx.insert(memberships).values(membership);
    const added = await (input.accepted
      ? insert.onConflictDoUpdate({ target: [memberships.userId, memberships.storeId], set: { role: input.role, acceptedAt: now }, where: isNull(memberships.acceptedAt) })
      : insert.onConflictDoNothing()
    ).returning({ role: memberships.role });
    if (added.length === 0) {
      throw new ApiError('parameter_invalid', `${email} is already a member of ${store.id}; \`user:reset --email ${email}\` makes a new password link.`, { param: 'email' });
    }
    const token = input.accepted || !user!.hasPassword ? await issueLink(tx, now, { purpose: 'invite', userId: user!.id, storeId: store.id, role: input.role }) : undefined;
    return { user: { email, role: input.role, store: store.id }, storeName: store.name, token };
  });
}

/** A password-reset link for a known person; an unknown e-mail is an error (the operator asks, not the public). */
export async function createResetLink(deps: UserDeps, rawEmail: string): Promise<{ userId: string; token: string }> {
  const email = normalizeEmail(rawEmail);
  return deps.db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (!user) throw new ApiError('resource_missing', `No dashboard user with e-mail '${email}'.`, { param: 'email' });
    return { userId: user.id, token: await issueLink(tx, deps.clock.now(), { purpose: 'reset', userId: user.id }) };
  });
}

export type ResetRequest = 'sent' | 'rate_limited' | 'no_mail';

/**
 * "Forgot password?": a reset link e-mailed to the address, when it belongs to someone and the
 * service has SMTP. The answer never says whether the e-mail is known; requests are limited per
 * address and per e-mail, and audited. The link goes into the e-mail only, sent once committed.
 */
export async function requestPasswordReset(deps: UserDeps & { rateLimits: RateLimits; config: Config }, input: { email: string; ip: string }): Promise<ResetRequest> {
  const email = normalizeEmail(input.email).slice(0, 254);
  try {
    await deps.rateLimits.consume('resetIp', input.ip);
    await deps.rateLimits.consume('resetEmail', email);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'rate_limited') return 'rate_limited';
    throw error;
  }
  if (!smtpConfigured(deps.config)) return 'no_mail';
  const token = await deps.db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    await recordAudit(tx, { action: 'dashboard.password_reset_requested', ip: input.ip, method: 'POST', path: '/dashboard/sign-in/forgot', details: { email, known: Boolean(user) } });
    return user ? issueLink(tx, deps.clock.now(), { purpose: 'reset', userId: user.id }) : undefined;
  });
  if (token) mailLinkInBackground(deps.config, { purpose: 'reset', to: email, url: acceptLinkUrl(deps.config.publicBaseUrl, token) });
  return 'sent';
}

function liveLink(token: string, now: Date) {
  return and(eq(oneTimeLinks.tokenHash, sha256Hex(token)), isNull(oneTimeLinks.usedAt), gt(oneTimeLinks.expiresAt, now));
}

export type LinkState =
  | { kind: 'invalid' }
  /** The link sets a password (a reset, or an invitation of someone who has none yet). */
  | { kind: 'set_password'; email: string; storeName: string | null }
  /** An operator's invitation of someone who already has a password: they sign in with it. */
  | { kind: 'joined'; email: string; storeName: string }
  /** A pending invitation of someone who has a password: they sign in to accept or decline it. */
  | { kind: 'invited'; email: string; storeName: string };

/** What an accept link does now: unknown, used and expired links all read as invalid. */
export async function describeLink(deps: UserDeps, token: string): Promise<LinkState> {
  const [row] = await deps.db
    .select({
      purpose: oneTimeLinks.purpose,
      email: users.email,
      hasPassword: sql<boolean>`${users.passwordHash} is not null`,
      storeName: stores.name,
      accepted: sql<boolean>`${memberships.acceptedAt} is not null`,
    })
    .from(oneTimeLinks)
    .innerJoin(users, eq(users.id, oneTimeLinks.userId))
    .leftJoin(stores, eq(stores.id, oneTimeLinks.storeId))
    .leftJoin(memberships, and(eq(memberships.userId, oneTimeLinks.userId), eq(memberships.storeId, oneTimeLinks.storeId)))
    .where(liveLink(token, deps.clock.now()));
  if (!row) return { kind: 'invalid' };
  if (row.purpose === 'invite' && row.hasPassword) return { kind: row.accepted ? 'joined' : 'invited', email: row.email, storeName: row.storeName ?? '' };
  return { kind: 'set_password', email: row.email, storeName: row.storeName };
}

export type PasswordProblem = 'too_short' | 'too_long' | 'mismatch';

export function passwordProblem(password: string, confirmation: string): PasswordProblem | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return 'too_short';
  if (password.length > MAX_PASSWORD_LENGTH) return 'too_long';
  if (password !== confirmation) return 'mismatch';
  return undefined;
}

class LinkRefused extends Error {}

/**
 * Spends the link and sets the password in one transaction: the conditional update lets exactly
 * one of two concurrent posts through. The new password also ends every earlier session.
 * Returns the person's e-mail, or undefined when the link cannot set a password (any more).
 */
export async function setPasswordWithLink(deps: UserDeps, token: string, password: string): Promise<{ userId: string; email: string } | undefined> {
  const passwordHash = await hashPassword(password);
  const now = deps.clock.now();
  try {
    return await deps.db.transaction(async (tx) => {
      const [spent] = await tx.update(oneTimeLinks).set({ usedAt: now }).where(liveLink(token, now)).returning({ userId: oneTimeLinks.userId, purpose: oneTimeLinks.purpose });
      if (!spent) throw new LinkRefused();
      const [user] = await tx
        .update(users)
        .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` })
        // An invitation never replaces a password someone already has.
        .where(and(eq(users.id, spent.userId), spent.purpose === 'invite' ? isNull(users.passwordHash) : undefined))
        .returning({ userId: users.id, email: users.email });
      if (!user) throw new LinkRefused();
      return user;
    });
  } catch (error) {
    if (error instanceof LinkRefused) return undefined;
    throw error;
  }
}

export interface SignedInUser {
  id: string;
  email: string;
  sessionVersion: number;
  /** With two-factor on, a right password only earns a sign-in proof; a code completes it. */
  twoFactor: boolean;
}

export type SignInResult = { ok: true; user: SignedInUser } | { ok: false; reason: 'invalid_credentials' | 'rate_limited' };

/**
 * Checks an e-mail and password. Failures are limited per address and per e-mail (a spent-out
 * address or e-mail is refused before the password is checked; a right password costs nothing);
 * an unknown e-mail costs the same scrypt as a known one and gets the same answer. Failures are
 * audited.
 */
export async function signInWithPassword(deps: { db: Executor; rateLimits: RateLimits }, input: { email: string; password: string; ip: string }): Promise<SignInResult> {
  const email = normalizeEmail(input.email).slice(0, 254);
  const fail = async (reason: 'invalid_credentials' | 'rate_limited'): Promise<SignInResult> => {
    await recordAudit(deps.db, { action: 'dashboard.sign_in_failed', code: reason, ip: input.ip, path: '/dashboard/sign-in', details: { email } });
    return { ok: false, reason };
  };
  if (!(await spendAttempt(deps, email, input.ip))) return fail('rate_limited');
  const [user] = await deps.db
    .select({ id: users.id, email: users.email, passwordHash: users.passwordHash, sessionVersion: users.sessionVersion, totpEnabledAt: users.totpEnabledAt })
    .from(users)
    .where(eq(users.email, email));
  const matches = await verifyPassword(input.password.slice(0, MAX_PASSWORD_LENGTH + 1), user?.passwordHash ?? UNMATCHABLE_HASH);
  if (!user?.passwordHash || !matches) return fail('invalid_credentials');
  await refundAttempt(deps, email, input.ip);
  return { ok: true, user: { id: user.id, email: user.email, sessionVersion: user.sessionVersion, twoFactor: user.totpEnabledAt !== null } };
}

/** How long a right password waits for its second factor. */
export const SIGN_IN_PROOF_SECONDS = 5 * 60;
const PROOF_LABEL = 'dashboard sign-in proof';

/**
 * What a right password earns: a sealed proof naming the person and their session version, valid
 * for five minutes. It is what completes a sign-in (with a code when two-factor is on), so the
 * password is checked once and a proof dies with a password change or "sign out everywhere".
 */
export function signInProof(deps: { clock: Clock; config: { authSecret: string | undefined } }, user: SignedInUser): string {
  const expires = epochSeconds(deps.clock.now()) + SIGN_IN_PROOF_SECONDS;
  return seal(signingSecret(deps.config), PROOF_LABEL, '', JSON.stringify({ uid: user.id, sv: user.sessionVersion, exp: expires }));
}

export type CompletedSignIn = { ok: true; user: SignedInUser } | { ok: false; reason: 'expired' | 'invalid_code' | 'rate_limited' };

/**
 * Completes a sign-in from its proof and, when the person has two-factor on, a TOTP or backup
 * code (a wrong one is audited as a failed sign-in and counts against the sign-in limits).
 */
export async function completeSignIn(deps: TwoFactorDeps, input: { proof: string; code: string; ip: string }): Promise<CompletedSignIn> {
  const opened = unseal(signingSecret(deps.config), PROOF_LABEL, '', input.proof);
  const claims = opened === undefined ? undefined : (JSON.parse(opened) as { uid: string; sv: number; exp: number });
  if (!claims || claims.exp <= epochSeconds(deps.clock.now())) return { ok: false, reason: 'expired' };
  const [user] = await deps.db.select({ id: users.id, email: users.email, sessionVersion: users.sessionVersion, totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, claims.uid));
  if (!user || user.sessionVersion !== claims.sv) return { ok: false, reason: 'expired' };
  const signedIn = { id: user.id, email: user.email, sessionVersion: user.sessionVersion, twoFactor: user.totpEnabledAt !== null };
  if (!signedIn.twoFactor) return { ok: true, user: signedIn };
  const check = await verifySecondFactor(deps, { userId: user.id, email: user.email }, input.code, { ip: input.ip, path: '/dashboard/sign-in', failureAction: 'dashboard.sign_in_failed' });
  return check === 'ok' ? { ok: true, user: signedIn } : { ok: false, reason: check };
}

/** The version every live session of the person must carry; undefined once the person is gone. */
export async function currentSessionVersion(db: Executor, userId: string): Promise<number | undefined> {
  const [user] = await db.select({ sessionVersion: users.sessionVersion }).from(users).where(eq(users.id, userId));
  return user?.sessionVersion;
}

/** Ends every session of the person at once (their next request no longer verifies). */
export async function endAllSessions(db: Executor, userId: string): Promise<void> {
  await db
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
    .where(eq(users.id, userId));
}

export interface StoreMembership {
  storeId: string;
  storeName: string;
  role: MemberRole;
}

/** An invitation to a store that waits for the person to accept or decline it. */
export interface PendingInvitation extends StoreMembership {
  /** Epoch seconds the invitation was made. */
  invited: number;
}

/**
 * The person, the stores they have access to (by name), for the dashboard's checks and switcher,
 * and the invitations they have not answered yet (which give no access). Read on every request,
 * so a removal ends the access to that store at once.
 */
export async function dashboardPerson(db: Executor, userId: string): Promise<{ email: string; memberships: StoreMembership[]; invitations: PendingInvitation[] } | undefined> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) return undefined;
  const rows = await db
    .select({ storeId: stores.id, storeName: stores.name, role: memberships.role, createdAt: memberships.createdAt, acceptedAt: memberships.acceptedAt })
    .from(memberships)
    .innerJoin(stores, eq(stores.id, memberships.storeId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(stores.name), asc(stores.id));
  return {
    email: user.email,
    memberships: rows.filter((row) => row.acceptedAt !== null).map(({ storeId, storeName, role }) => ({ storeId, storeName, role })),
    invitations: rows.filter((row) => row.acceptedAt === null).map(({ storeId, storeName, role, createdAt }) => ({ storeId, storeName, role, invited: epochSeconds(createdAt) })),
  };
}

/** A signed-in person acting in the dashboard on their current store, and from where. */
export interface PersonActing {
  userId: string;
  email: string;
  storeId: string;
  ip: string;
  path: string;
}

/**
 * The audit entry of a person's dashboard action (`user:<email>` where an API call has its key's
 * hint). No mode: the team, the store's name and a person's account are the same in both.
 */
export function personAuditEntry(actor: PersonActing, action: string, details: Record<string, unknown>): AuditEntry {
  return { action, storeId: actor.storeId, ...byPerson(actor), details };
}

/**
 * Changes one's own password after checking the current one. The new password ends every
 * session of the person, this one included. Returns why it was refused, or undefined when done.
 */
export async function changePassword(db: Executor, actor: PersonActing, input: { current: string; password: string; confirmation: string }): Promise<PasswordProblem | 'wrong_password' | undefined> {
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, actor.userId));
  if (!user?.passwordHash || !(await verifyPassword(input.current.slice(0, MAX_PASSWORD_LENGTH + 1), user.passwordHash))) return 'wrong_password';
  const problem = passwordProblem(input.password, input.confirmation);
  if (problem) return problem;
  const passwordHash = await hashPassword(input.password);
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` })
      .where(eq(users.id, actor.userId));
    await recordAudit(tx, personAuditEntry(actor, 'account.password_change', {}));
  });
  return undefined;
}

/** Ends every session of the person, this one included, audited. */
export function signOutEverywhere(db: Executor, actor: PersonActing): Promise<void> {
  return db.transaction(async (tx) => {
    await endAllSessions(tx, actor.userId);
    await recordAudit(tx, personAuditEntry(actor, 'account.sign_out_everywhere', {}));
  });
}
