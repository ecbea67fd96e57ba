/**
 * Two-factor authentication of dashboard people: TOTP (RFC 6238: 30-second steps, 6 digits,
 * SHA-1) and ten single-use backup codes. The TOTP secret is sealed (AES-256-GCM) because codes
 * are checked against it; backup codes are kept only as SHA-256 (they carry 60 random bits, so a
 * fast hash is enough). A step's code is accepted once: the last accepted step is stored and
 * moved on by a conditional update, so two concurrent posts of one code cannot both pass.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, isNotNull, isNull, lt, or } from 'drizzle-orm';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Executor } from '@/db/client';
import { backupCodes, users } from '@/db/schema';
import { byPerson, recordAudit, type AuditEntry } from '../audit/service';
import { epochSeconds, type Clock } from '../clock';
import { ApiError } from '../errors';
import { digestsEqual, newPlatformId, sha256Hex } from '../ids';
import { signingSecret } from '../kit/links';
import { seal, unseal } from '../kit/sealed';
import type { Scope } from '../kit/scope';
import type { RateLimits } from '../rate-limit/service';

export const BACKUP_CODE_COUNT = 10;
const TOTP_PERIOD_SECONDS = 30;
/** A code of the step before or after the server's is accepted too: phones' clocks drift. */
const TOTP_TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;
const SEAL_LABEL = 'two-factor secret';
const ISSUER = 'Payments dashboard';

export interface TwoFactorDeps {
  db: Executor;
  /** The wall clock: codes follow real time, never a store's test clock. */
  clock: Clock;
  rateLimits: RateLimits;
  config: { authSecret: string | undefined };
}

/** The person acting on their own two-factor from a dashboard page, as the audit trail records it. */
export interface TwoFactorActor {
  userId: string;
  email: string;
  ip: string;
  path: string;
  scope: Scope;
}

export type CodeCheck = 'ok' | 'invalid_code' | 'rate_limited';

export type TwoFactorState =
  | { state: 'off' }
  /** Turned on but not yet confirmed with a code: the secret may still be shown. */
  | { state: 'pending'; secret: string; otpauthUri: string }
  | { state: 'on'; backupCodesLeft: number };

const sealSecret = (deps: TwoFactorDeps, userId: string, secret: string) => seal(signingSecret(deps.config), SEAL_LABEL, userId, secret);
const unsealSecret = (deps: TwoFactorDeps, userId: string, sealed: string) => unseal(signingSecret(deps.config), SEAL_LABEL, userId, sealed);

function auditEntry(actor: TwoFactorActor, action: string, code?: string): AuditEntry {
  return { action, code, storeId: actor.scope.storeId, livemode: actor.scope.livemode, ...byPerson(actor) };
}

/** Whether the person has two-factor on (confirmed with a code). */
export async function twoFactorEnabled(db: Executor, userId: string): Promise<boolean> {
  const [row] = await db.select({ enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  return Boolean(row?.enabledAt);
}

export async function twoFactorState(deps: TwoFactorDeps, userId: string, email: string): Promise<TwoFactorState> {
  const [row] = await deps.db.select({ sealed: users.totpSecret, enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  if (!row?.sealed) return { state: 'off' };
  if (row.enabledAt) {
    const unused = await deps.db
      .select({ id: backupCodes.id })
      .from(backupCodes)
      .where(and(eq(backupCodes.userId, userId), isNull(backupCodes.usedAt)));
    return { state: 'on', backupCodesLeft: unused.length };
  }
  const secret = unsealSecret(deps, userId, row.sealed);
  // Sealed under an AUTH_SECRET since replaced: start again.
  if (secret === undefined) return { state: 'off' };
  return { state: 'pending', secret, otpauthUri: generateURI({ issuer: ISSUER, label: email, secret }) };
}

/** A new secret awaiting its first code; refused while two-factor is on (turn it off first). */
export async function startTwoFactor(deps: TwoFactorDeps, actor: TwoFactorActor): Promise<void> {
  const secret = generateSecret();
  await deps.db.transaction(async (tx) => {
    const [started] = await tx
      .update(users)
      .set({ totpSecret: sealSecret(deps, actor.userId, secret), totpLastStep: null })
      .where(and(eq(users.id, actor.userId), isNull(users.totpEnabledAt)))
      .returning({ id: users.id });
    if (!started) throw new ApiError('parameter_invalid', 'Two-factor is already on.', { param: 'code' });
    await recordAudit(tx, auditEntry(actor, 'two_factor.start'));
  });
}

/** The accepted step of a right TOTP code, newer than `afterStep`; undefined otherwise. */
async function acceptedStep(secret: string, code: string, now: Date, afterStep: number | null): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = await verify({
    secret,
    token: code,
    epoch: epochSeconds(now),
    epochTolerance: TOTP_TOLERANCE_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

/** `abcd-efgh-jkmn`: 60 random bits from an alphabet without look-alikes (no l, o, 0, 1). */
function newBackupCode(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  // 32 symbols divide 256 evenly: every symbol is equally likely.
  const symbols = [...randomBytes(12)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return `${symbols.slice(0, 4)}-${symbols.slice(4, 8)}-${symbols.slice(8)}`;
}

/** A code as typed: case, spaces and dashes do not matter. */
const normalizeCode = (code: string) => code.replace(/[\s-]/g, '').toLowerCase().slice(0, 64);

/** Replaces the person's backup codes with ten new ones, returned this once. */
async function replaceBackupCodes(tx: Executor, userId: string, now: Date): Promise<string[]> {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  await tx.delete(backupCodes).where(eq(backupCodes.userId, userId));
  await tx.insert(backupCodes).values(codes.map((code) => ({ id: newPlatformId('bkc'), userId, codeHash: sha256Hex(normalizeCode(code)), createdAt: now })));
  return codes;
}

/**
 * Holds a point of the sign-in limits of the address and the e-mail while a password or code is
 * checked (a code guess costs what a password guess does); false when either is spent out, so
 * the check is refused before it runs. A refused attempt keeps what it spent.
 */
export async function spendAttempt(deps: Pick<TwoFactorDeps, 'rateLimits'>, email: string, ip: string): Promise<boolean> {
  try {
    await deps.rateLimits.consume('signInIp', ip);
    await deps.rateLimits.consume('signInEmail', email);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'rate_limited') return false;
    throw error;
  }
}

/** A right password or code gives its attempt back: only failures count against the limits. */
export async function refundAttempt(deps: Pick<TwoFactorDeps, 'rateLimits'>, email: string, ip: string): Promise<void> {
  await Promise.all([deps.rateLimits.refund('signInIp', ip), deps.rateLimits.refund('signInEmail', email)]);
}

/**
 * Turns two-factor on with the first right code of the pending secret; returns the ten backup
 * codes, or the check's failure (audited).
 */
export async function confirmTwoFactor(deps: TwoFactorDeps, actor: TwoFactorActor, code: string): Promise<{ ok: true; backupCodes: string[] } | { ok: false; reason: Exclude<CodeCheck, 'ok'> }> {
  const refuse = async (reason: Exclude<CodeCheck, 'ok'>) => {
    await recordAudit(deps.db, auditEntry(actor, 'two_factor.code_failed', reason));
    return { ok: false as const, reason };
  };
  if (!(await spendAttempt(deps, actor.email, actor.ip))) return refuse('rate_limited');
  const [row] = await deps.db
    .select({ sealed: users.totpSecret })
    .from(users)
    .where(and(eq(users.id, actor.userId), isNull(users.totpEnabledAt), isNotNull(users.totpSecret)));
  const secret = row?.sealed ? unsealSecret(deps, actor.userId, row.sealed) : undefined;
  const now = deps.clock.now();
  const step = secret === undefined ? undefined : await acceptedStep(secret, normalizeCode(code), now, null);
  if (step === undefined) return refuse('invalid_code');
  const codes = await deps.db.transaction(async (tx) => {
    // Only the secret the code was checked against, and only once.
    const [enabled] = await tx
      .update(users)
      .set({ totpEnabledAt: now, totpLastStep: step })
      .where(and(eq(users.id, actor.userId), isNull(users.totpEnabledAt), eq(users.totpSecret, row!.sealed!)))
      .returning({ id: users.id });
    if (!enabled) return undefined;
    const made = await replaceBackupCodes(tx, actor.userId, now);
    await recordAudit(tx, auditEntry(actor, 'two_factor.enable'));
    return made;
  });
  if (!codes) return refuse('invalid_code');
  await refundAttempt(deps, actor.email, actor.ip);
  return { ok: true, backupCodes: codes };
}

/** Where a failed check is audited: as a failed sign-in, or as a failed code on a dashboard action. */
export interface CodeCheckContext {
  ip: string;
  path: string;
  failureAction: 'dashboard.sign_in_failed' | 'two_factor.code_failed';
  scope?: Scope;
}

/**
 * Checks a current TOTP code (of a step newer than the last accepted one) or an unused backup
 * code, and spends it. Failures count against the sign-in limits and are audited.
 */
export async function verifySecondFactor(deps: TwoFactorDeps, person: { userId: string; email: string }, code: string, context: CodeCheckContext): Promise<CodeCheck> {
  const outcome = await (async (): Promise<CodeCheck> => {
    if (!(await spendAttempt(deps, person.email, context.ip))) return 'rate_limited';
    const typed = normalizeCode(code);
    const [row] = await deps.db
      .select({ sealed: users.totpSecret, lastStep: users.totpLastStep })
      .from(users)
      .where(and(eq(users.id, person.userId), isNotNull(users.totpEnabledAt)));
    if (!row?.sealed || typed === '') return 'invalid_code';
    if (/^\d{6}$/.test(typed)) {
      const secret = unsealSecret(deps, person.userId, row.sealed);
      const step = secret === undefined ? undefined : await acceptedStep(secret, typed, deps.clock.now(), row.lastStep);
      if (step === undefined) return 'invalid_code';
      const [moved] = await deps.db
        .update(users)
        .set({ totpLastStep: step })
        .where(and(eq(users.id, person.userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
        .returning({ id: users.id });
      return moved ? 'ok' : 'invalid_code';
    }
    const hash = sha256Hex(typed);
    const unused = await deps.db
      .select({ id: backupCodes.id, codeHash: backupCodes.codeHash })
      .from(backupCodes)
      .where(and(eq(backupCodes.userId, person.userId), isNull(backupCodes.usedAt)));
    const match = unused.find((candidate) => digestsEqual(candidate.codeHash, hash));
    if (!match) return 'invalid_code';
    const [spent] = await deps.db
      .update(backupCodes)
      .set({ usedAt: deps.clock.now() })
      .where(and(eq(backupCodes.id, match.id), isNull(backupCodes.usedAt)))
      .returning({ id: backupCodes.id });
    return spent ? 'ok' : 'invalid_code';
  })();
  if (outcome === 'ok') {
    await refundAttempt(deps, person.email, context.ip);
  } else {
    await recordAudit(deps.db, {
      action: context.failureAction,
      code: outcome,
      storeId: context.scope?.storeId,
      livemode: context.scope?.livemode,
      ...byPerson({ email: person.email, ip: context.ip, path: context.path }),
    });
  }
  return outcome;
}

const onDashboard = (actor: TwoFactorActor): CodeCheckContext => ({ ip: actor.ip, path: actor.path, scope: actor.scope, failureAction: 'two_factor.code_failed' });

/** Turns two-factor off: the secret and the backup codes are deleted (the caller audits it). */
export async function clearTwoFactor(tx: Executor, userId: string): Promise<void> {
  await tx.update(users).set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, userId));
  await tx.delete(backupCodes).where(eq(backupCodes.userId, userId));
}

/** Turns two-factor off with a current code; the secret and backup codes are deleted. */
export async function disableTwoFactor(deps: TwoFactorDeps, actor: TwoFactorActor, code: string): Promise<CodeCheck> {
  const check = await verifySecondFactor(deps, actor, code, onDashboard(actor));
  if (check !== 'ok') return check;
  await deps.db.transaction(async (tx) => {
    await clearTwoFactor(tx, actor.userId);
    await recordAudit(tx, auditEntry(actor, 'two_factor.disable'));
  });
  return 'ok';
}

/** Ten new backup codes for a current code; the old ones stop working. */
export async function regenerateBackupCodes(deps: TwoFactorDeps, actor: TwoFactorActor, code: string): Promise<{ ok: true; backupCodes: string[] } | { ok: false; reason: Exclude<CodeCheck, 'ok'> }> {
  const check = await verifySecondFactor(deps, actor, code, onDashboard(actor));
  if (check !== 'ok') return { ok: false, reason: check };
  const codes = await deps.db.transaction(async (tx) => {
    const made = await replaceBackupCodes(tx, actor.userId, deps.clock.now());
    await recordAudit(tx, auditEntry(actor, 'two_factor.backup_codes'));
    return made;
  });
  return { ok: true, backupCodes: codes };
}

/** The fresh code a live-mode change asks of a person with two-factor on ('ok' for anyone else). */
export async function freshCodeCheck(deps: TwoFactorDeps, actor: TwoFactorActor, code: string): Promise<CodeCheck> {
  if (!(await twoFactorEnabled(deps.db, actor.userId))) return 'ok';
  return verifySecondFactor(deps, actor, code, onDashboard(actor));
}
