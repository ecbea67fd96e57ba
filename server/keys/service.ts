/**
 * A store's API keys: made here (for a new store and from the dashboard), listed by hint, rolled
 * with a grace period for the old key, revoked. A key is returned once when made; only its
 * SHA-256 and hint are kept. Every change from the dashboard is audited with the person in the
 * same transaction.
 */
import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { apiKeys } from '@/db/schema';
import { byPerson, recordAudit, type AuditEntry, type PersonRequest } from '../audit/service';
import { keyHint, type KeyKind } from '../auth/service';
import type { Clock } from '../clock';
import { newPlatformId, randomBase62, sha256Hex } from '../ids';
import { ownedBy, type Scope } from '../kit/scope';

/** The four types of key a store has, by the prefix a key starts with. */
export const KEY_TYPES = [
  { type: 'sk_test', kind: 'secret', livemode: false },
  { type: 'pk_test', kind: 'publishable', livemode: false },
  { type: 'sk_live', kind: 'secret', livemode: true },
  { type: 'pk_live', kind: 'publishable', livemode: true },
] as const;
export type KeyType = (typeof KEY_TYPES)[number]['type'];

/** A new key (`sk_test_…`, `pk_live_…`) and the row that stores it without the key itself. */
export function newApiKey(storeId: string, kind: KeyKind, livemode: boolean) {
  const key = `${kind === 'secret' ? 'sk' : 'pk'}_${livemode ? 'live' : 'test'}_${randomBase62(32)}`;
  return { key, row: { id: newPlatformId('key'), storeId, kind, livemode, keyHash: sha256Hex(key), keyHint: keyHint(key) } };
}

export interface ApiKeyListing {
  id: string;
  kind: KeyKind;
  hint: string;
  created: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

/** The scope's keys, newest first: hints only. */
export async function listApiKeys(db: Executor, scope: Scope): Promise<ApiKeyListing[]> {
  return db
    .select({ id: apiKeys.id, kind: apiKeys.kind, hint: apiKeys.keyHint, created: apiKeys.createdAt, revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt })
    .from(apiKeys)
    .where(ownedBy(apiKeys, scope))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** The kind of one of the scope's keys; undefined for a key the scope does not have. */
export async function apiKeyKind(db: Executor, scope: Scope, keyId: string): Promise<KeyKind | undefined> {
  const [key] = await db
    .select({ kind: apiKeys.kind })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), ownedBy(apiKeys, scope)));
  return key?.kind;
}

export interface KeyDeps {
  db: Executor;
  /** The wall clock: keys expire in real time, as the API's key lookup reads it. */
  clock: Clock;
}

function auditEntry(scope: Scope, actor: PersonRequest, action: string, details: Record<string, unknown>): AuditEntry {
  return { action, storeId: scope.storeId, livemode: scope.livemode, ...byPerson(actor), details };
}

/** Makes a key of the scope's mode; returns it this once. */
export async function createApiKey(deps: KeyDeps, scope: Scope, actor: PersonRequest, kind: KeyKind): Promise<string> {
  const made = newApiKey(scope.storeId, kind, scope.livemode);
  await deps.db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({ ...made.row, createdAt: deps.clock.now() });
    await recordAudit(tx, auditEntry(scope, actor, 'api_key.create', { key: made.row.keyHint, kind }));
  });
  return made.key;
}

/** Roll: how long the old key keeps working, from now. */
export const ROLL_GRACE_SECONDS = [0, 60 * 60, 24 * 60 * 60, 7 * 24 * 60 * 60] as const;

/**
 * Replaces an active key with a new one of its kind; the old key works for `graceSeconds` more
 * (0: it stops now). Returns the new key this once, or undefined when the key is not an active
 * key of the scope (unknown, revoked, already rolled).
 */
export async function rollApiKey(deps: KeyDeps, scope: Scope, actor: PersonRequest, keyId: string, graceSeconds: number): Promise<string | undefined> {
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + graceSeconds * 1000);
  return deps.db.transaction(async (tx) => {
    const [old] = await tx
      .update(apiKeys)
      .set({ expiresAt })
      .where(and(eq(apiKeys.id, keyId), ownedBy(apiKeys, scope), isNull(apiKeys.revokedAt), isNull(apiKeys.expiresAt)))
      .returning({ kind: apiKeys.kind, hint: apiKeys.keyHint });
    if (!old) return undefined;
    const made = newApiKey(scope.storeId, old.kind, scope.livemode);
    await tx.insert(apiKeys).values({ ...made.row, createdAt: now });
    await recordAudit(tx, auditEntry(scope, actor, 'api_key.roll', { key: old.hint, new_key: made.row.keyHint, old_key_expires_at: expiresAt.toISOString() }));
    return made.key;
  });
}

/** Revokes a key of the scope at once; false when there is no such key not yet revoked. */
export async function revokeApiKey(deps: KeyDeps, scope: Scope, actor: PersonRequest, keyId: string): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: deps.clock.now() })
      .where(and(eq(apiKeys.id, keyId), ownedBy(apiKeys, scope), isNull(apiKeys.revokedAt)))
      .returning({ hint: apiKeys.keyHint });
    if (!revoked) return false;
    await recordAudit(tx, auditEntry(scope, actor, 'api_key.revoke', { key: revoked.hint }));
    return true;
  });
}

export interface RolledStoreKeys {
  /** One new key per type rolled, returned this once. */
  keys: Partial<Record<KeyType, string>>;
  /** When the old keys stop working (epoch seconds); null when they stopped at once. */
  oldKeysExpireAt: number | null;
}

/**
 * The operator's roll of a store's keys, by type: every key of the type still working stops now,
 * or `expiresInSeconds` from now (one already due to expire sooner keeps its time), and one new
 * key of the type is made. Runs in the caller's transaction, which audits it.
 */
export async function rollStoreKeys(tx: Executor, now: Date, storeId: string, types: readonly KeyType[], expiresInSeconds: number | undefined): Promise<RolledStoreKeys> {
  const expiresAt = expiresInSeconds === undefined ? null : new Date(now.getTime() + expiresInSeconds * 1000);
  const keys: Partial<Record<KeyType, string>> = {};
  for (const { type, kind, livemode } of KEY_TYPES.filter((slot) => types.includes(slot.type))) {
    const working = and(
      eq(apiKeys.storeId, storeId),
      eq(apiKeys.kind, kind),
      eq(apiKeys.livemode, livemode),
      isNull(apiKeys.revokedAt),
      or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, expiresAt ?? now)),
    );
    await tx
      .update(apiKeys)
      .set(expiresAt === null ? { revokedAt: now } : { expiresAt })
      .where(working);
    const made = newApiKey(storeId, kind, livemode);
    await tx.insert(apiKeys).values({ ...made.row, createdAt: now });
    keys[type] = made.key;
  }
  return { keys, oldKeysExpireAt: expiresAt === null ? null : Math.floor(expiresAt.getTime() / 1000) };
}
