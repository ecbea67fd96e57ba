/**
 * `Idempotency-Key` for create operations (a replay answers 200, another body 409). A procedure
 * with the `idempotent` meta gets the checked header as `ctx.idempotency` (server/trpc.ts); its
 * service passes it here with its own `operation` name.
 *
 * The key row is inserted in the same transaction as the object it creates. The primary key
 * (store, environment, operation, key) makes a racing request with the same key wait for the
 * first one's commit; it then finds the row, and replays (same body) or refuses (another body).
 * If the first one fails and rolls back, the waiter inserts the row itself and creates.
 *
 * Keys are kept at least 24 hours; nothing deletes them. A key older than 24 hours (by the
 * store's clock) counts as new: its row is taken over by the next request that sends it.
 */
import { and, eq, lt } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { idempotencyKeys } from '@/db/schema';
import { ApiError } from '../errors';
import { sha256Hex } from '../ids';
import { ownedBy, type Scope } from './scope';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 191;
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

/** The `Idempotency-Key` header: absent, or 1–191 printable characters. */
export function readIdempotencyKey(headers: Headers): string | undefined {
  const key = headers.get('idempotency-key');
  if (key === null) return undefined;
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
    throw new ApiError(
      'idempotency_key_invalid',
      `\`Idempotency-Key\` must be 1–${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters; a UUID works well.`,
    );
  }
  return key;
}

function canonical(value: unknown, keepOrder: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item, false));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (!keepOrder) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, canonical(item, false)]));
}

/**
 * SHA-256 of the request body as canonical JSON: object keys sorted, so `{a, b}` and `{b, a}`
 * are one request, except inside the top-level fields named in `orderedFields` (metadata), whose
 * key order is part of what the object echoes back.
 */
function requestHash(body: unknown, orderedFields: readonly string[] = []): string {
  const top = canonical(body, false);
  if (top !== null && typeof top === 'object' && !Array.isArray(top) && body !== null && typeof body === 'object') {
    for (const field of orderedFields) {
      if (Object.hasOwn(top, field)) (top as Record<string, unknown>)[field] = canonical((body as Record<string, unknown>)[field], true);
    }
  }
  return sha256Hex(JSON.stringify(top ?? null));
}

/** A create sent with an `Idempotency-Key`, as the procedure base hands it to the service. */
export interface IdempotentRequest {
  key: string;
  /** The request body as received, hashed (requestHash) to tell a replay from a reuse. */
  body: unknown;
  /** Set by createIdempotently when the key replays an earlier create: the answer is then 200. */
  replayed: boolean;
}

export interface IdempotentCreate<T> {
  db: Database;
  scope: Scope;
  /** e.g. `checkout_session.create`: one key may be used once per operation. */
  operation: string;
  /** Absent when no key was sent: the create simply runs. */
  request: IdempotentRequest | undefined;
  /** Top-level fields whose key order counts (metadata is echoed verbatim). */
  orderedFields?: readonly string[];
  /** The store's clock: the 24-hour window follows the test clock in test mode. */
  now: Date;
  /** The id the create will give its object, recorded with the key. */
  resourceId: string;
  /** Writes the object; inside the key's transaction when there is a key. */
  create(executor: Executor): Promise<T>;
  /** The answer for a replay, from the object created by the first request. */
  replay(resourceId: string): Promise<T>;
}

/** Runs a create under an optional idempotency key; a replay answers the first create's object and is marked on the request. */
export async function createIdempotently<T>(options: IdempotentCreate<T>): Promise<{ result: T; replayed: boolean }> {
  const { db, scope, operation, request } = options;
  if (request === undefined) return { result: await options.create(db), replayed: false };

  const { key } = request;
  const hash = requestHash(request.body, options.orderedFields);
  const cutoff = new Date(options.now.getTime() - IDEMPOTENCY_WINDOW_SECONDS * 1000);
  const keyRow = and(
    ownedBy(idempotencyKeys, scope),
    eq(idempotencyKeys.operation, operation),
    eq(idempotencyKeys.key, key),
  );
  type Outcome = { kind: 'created'; result: T } | { kind: 'existing'; requestHash: string; resourceId: string };
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    const [claimed] = await tx
      .insert(idempotencyKeys)
      .values({ ...scope, operation, key, requestHash: hash, resourceId: options.resourceId, createdAt: options.now })
      .onConflictDoUpdate({
        target: [idempotencyKeys.storeId, idempotencyKeys.livemode, idempotencyKeys.operation, idempotencyKeys.key],
        set: { requestHash: hash, resourceId: options.resourceId, createdAt: options.now },
        // Only an expired key is taken over; a live one leaves the row as it is and returns nothing.
        setWhere: lt(idempotencyKeys.createdAt, cutoff),
      })
      .returning({ key: idempotencyKeys.key });
    if (claimed) return { kind: 'created', result: await options.create(tx) };
    const [existing] = await tx.select({ requestHash: idempotencyKeys.requestHash, resourceId: idempotencyKeys.resourceId }).from(idempotencyKeys).where(keyRow);
    return { kind: 'existing', ...existing! };
  });
  if (outcome.kind === 'created') return { result: outcome.result, replayed: false };
  if (outcome.requestHash !== hash) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request body. Use a new key for a different request.',
    );
  }
  request.replayed = true;
  return { result: await options.replay(outcome.resourceId), replayed: true };
}
