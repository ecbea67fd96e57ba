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
 * A create may instead claim the key in the very statement that writes its rows (`claiming`,
 * with claimKey and rowIfClaimed): one round trip, atomic without a transaction. The claim's
 * insert waits for a racing holder of the key like the transaction does; when the key is not
 * claimed nothing is written, and the key's row then answers (replay or 409) as above: one
 * prepared statement reads the live key with its object. A key this process has answered before
 * is read that way first (seenLately): its replay costs what a read of the object does, and a new
 * key costs what a create without one does.
 *
 * Keys are kept at least 24 hours; nothing deletes them. A key older than 24 hours (by the
 * store's clock) counts as new: its row is taken over by the next request that sends it.
 */
import { and, eq, getTableColumns, getTableName, gte, is, lt, Placeholder, sql, SQL } from 'drizzle-orm';
import type { PgColumn, PgInsertValue, PgTable } from 'drizzle-orm/pg-core';
import type { TypedQueryBuilder } from 'drizzle-orm/query-builders/query-builder';
import { preparedOnce, type Database, type Executor } from '@/db/client';
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
    throw new ApiError('idempotency_key_invalid', `\`Idempotency-Key\` must be 1–${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters; a UUID works well.`);
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

/** A table whose rows a key may name: the create's object, found by its `id`. */
type ObjectTable = PgTable & { id: PgColumn };

/**
 * A hot create that claims the key in the very statement that writes its rows (claimKey,
 * rowIfClaimed): one round trip, atomic without a transaction.
 */
export interface ClaimingCreate<T, Table extends ObjectTable> {
  /** The object's table: a replay reads the key and its object in one prepared statement. */
  table: Table;
  /**
   * Reads what the create needs on `executor`, then answers the writer: the one statement that
   * claims the key with `claim` as its parameters and writes, resolving undefined when the key
   * was not claimed (nothing written); without `claim` it simply writes. A refusal it throws
   * (ApiError) is answered only when the key is not live: a live key replays or is 409, as if
   * claimed first.
   */
  prepare(executor: Executor): Promise<(claim?: KeyClaim) => Promise<T | undefined>>;
  /** The answer for a replay, from the object's row as stored. */
  replayRow(row: Table['$inferSelect']): Promise<T>;
}

interface IdempotentCreateBase {
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
}

export type IdempotentCreate<T, Table extends ObjectTable = ObjectTable> = IdempotentCreateBase &
  (
    | {
        /** Writes the object; inside the key's transaction when there is a key. */
        create(executor: Executor): Promise<T>;
        /** The answer for a replay, from the object created by the first request. */
        replay(resourceId: string): Promise<T>;
        claiming?: undefined;
      }
    | { claiming: ClaimingCreate<T, Table>; create?: undefined; replay?: undefined }
  );

/** The parameters of claimKey's statement (besides the statement's own `storeId` and `livemode`). */
export interface KeyClaim {
  idempotencyOperation: string;
  idempotencyKey: string;
  idempotencyRequestHash: string;
  idempotencyResourceId: string;
  idempotencyCreatedAt: Date;
  /** ISO time: a key created before it is expired and may be taken over. */
  idempotencyCutoff: string;
}

const placeholder = sql.placeholder;

/**
 * The key claim as a CTE `claimed` of a create's statement (placeholders: the scope's `storeId`
 * and `livemode`, and KeyClaim): a row when the key was free or expired and is now this
 * request's; none when a live key holds it. A racing holder's uncommitted row makes the insert
 * wait for its end: claimed if it rolled back, not if it committed.
 */
export function claimKey(executor: Executor) {
  return executor.$with('claimed').as(
    executor
      .insert(idempotencyKeys)
      .values({
        storeId: placeholder('storeId'),
        livemode: placeholder('livemode'),
        operation: placeholder('idempotencyOperation'),
        key: placeholder('idempotencyKey'),
        requestHash: placeholder('idempotencyRequestHash'),
        resourceId: placeholder('idempotencyResourceId'),
        createdAt: placeholder('idempotencyCreatedAt'),
      })
      .onConflictDoUpdate({
        target: [idempotencyKeys.storeId, idempotencyKeys.livemode, idempotencyKeys.operation, idempotencyKeys.key],
        set: { requestHash: sql`excluded.request_hash`, resourceId: sql`excluded.resource_id`, createdAt: sql`excluded.created_at` },
        setWhere: lt(idempotencyKeys.createdAt, sql`${placeholder('idempotencyCutoff')}::timestamptz`),
      })
      .returning({ key: idempotencyKeys.key }),
  );
}

type ClaimedCte = ReturnType<typeof claimKey>;

/**
 * A value in a select list, cast to its column's type (a parameter in a select has none). A value
 * fixed when the statement is prepared (a constant, a column's default, null) is written into its
 * text: a parameter is encoded, sent and bound on every execution.
 */
function selected(column: PgColumn, value: unknown): SQL {
  if (is(value, SQL)) return value;
  const type = sql.raw(column.getSQLType());
  if (is(value, Placeholder)) return sql`cast(${sql.param(value, column)} as ${type})`;
  return sql`cast(${literal(value === null ? null : column.mapToDriverValue(value))} as ${type})`;
}

/** A constant of our own statements as SQL text (never a request's value: those are placeholders); any other kind (an array) stays a parameter. */
function literal(value: unknown): SQL {
  if (value === null) return sql.raw('null');
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return sql.raw(String(value));
  if (typeof value === 'string') return sql.raw(`'${value.replaceAll("'", "''")}'`);
  return sql`${value}`;
}

/**
 * `select <the row> from claimed`, for `insert into table <this>`: the row `.values(values)`
 * would insert, written only when the key was claimed. Each value is cast to its column's type;
 * a column left out takes its default as `.values` would. Without a claim (no key sent) the row
 * is simply written, so one statement serves both.
 */
export function rowIfClaimed<T extends PgTable>(claimed: ClaimedCte | undefined, table: T, values: PgInsertValue<T>): SQL {
  const given = values as Record<string, unknown>;
  const row = Object.entries(getTableColumns(table) as Record<string, PgColumn>)
    // As Drizzle's own insert: a column generated always is never written.
    .filter(([, column]) => column.generated === undefined || column.generated.type === 'byDefault')
    .map(([name, column]) => {
      const value = given[name];
      return selected(column, value !== undefined ? value : column.defaultFn ? column.defaultFn() : column.hasDefault ? column.default : null);
    });
  return sql`select ${sql.join(row, sql`, `)}${claimed === undefined ? sql`` : sql` from ${claimed}`}`;
}

/**
 * The CTE `alias` as `insert into table (<the given columns>) select <their values> <from>`: the
 * columns left out take the table's own defaults (an identity column too, which an insert's
 * select may not fill). `from` is e.g. fromClaimed (written only when the key was claimed).
 */
export function insertSelected<T extends PgTable>(executor: Executor, alias: string, table: T, values: PgInsertValue<T>, from: SQL) {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const given = Object.entries(values as Record<string, unknown>).filter(([, value]) => value !== undefined);
  const names = given.map(([name]) => sql.identifier(columns[name]!.name));
  const row = given.map(([name, value]) => selected(columns[name]!, value));
  const statement = sql`insert into ${table} (${sql.join(names, sql`, `)}) select ${sql.join(row, sql`, `)} ${from}`;
  // A CTE only needs its SQL; Drizzle's types want a query builder.
  return executor.$with(alias).as(statement as unknown as TypedQueryBuilder<undefined>);
}

/** `from claimed` for insertSelected, or nothing when no key was sent. */
export const fromClaimed = (claimed: ClaimedCte | undefined): SQL => (claimed === undefined ? sql`` : sql`from ${claimed}`);

const liveKeyLookups = new Map<ObjectTable, ReturnType<typeof prepareLiveKeyLookup>>();

/**
 * The live key with the object it created, one prepared statement per table: what a replay
 * reads, no more than a read of the object by id.
 */
function prepareLiveKeyLookup(table: ObjectTable) {
  return preparedOnce((executor) =>
    executor
      .select({ requestHash: idempotencyKeys.requestHash, row: table as PgTable })
      .from(idempotencyKeys)
      .innerJoin(table, eq(table.id, idempotencyKeys.resourceId))
      .where(
        and(
          eq(idempotencyKeys.storeId, placeholder('storeId')),
          eq(idempotencyKeys.livemode, placeholder('livemode')),
          eq(idempotencyKeys.operation, placeholder('operation')),
          eq(idempotencyKeys.key, placeholder('key')),
          gte(idempotencyKeys.createdAt, sql`${placeholder('cutoff')}::timestamptz`),
        ),
      )
      .prepare(`idempotency_live_key_${getTableName(table)}`),
  );
}
function liveKeyLookup(table: ObjectTable) {
  let lookup = liveKeyLookups.get(table);
  if (!lookup) {
    lookup = prepareLiveKeyLookup(table);
    liveKeyLookups.set(table, lookup);
  }
  return lookup;
}

/**
 * The keys this process has answered lately (store, environment, operation and key): the last
 * 5,000 to 10,000, in two generations. A request sending one again is most likely a replay, so
 * the key's lookup goes first and answers it alone; any other key goes straight to the create's
 * claiming write, and is looked up only when it was not claimed. A hint only: the database
 * decides every answer. (Two sets rather than one evicting its oldest: deleting from the front of
 * a JavaScript Set leaves holes that every later look for its oldest entry walks, ~8 µs a call.)
 */
const RECENT_KEYS_GENERATION = 5_000;
let recentKeys = new Set<string>();
let olderKeys = new Set<string>();

/** Whether the key was answered lately; remembers it either way. */
function seenLately(id: string): boolean {
  if (recentKeys.has(id)) return true;
  const seen = olderKeys.has(id);
  recentKeys.add(id);
  if (recentKeys.size >= RECENT_KEYS_GENERATION) {
    olderKeys = recentKeys;
    recentKeys = new Set();
  }
  return seen;
}

/** Runs a create under an optional idempotency key; a replay answers the first create's object and is marked on the request. */
export async function createIdempotently<T, Table extends ObjectTable = ObjectTable>(options: IdempotentCreate<T, Table>): Promise<{ result: T; replayed: boolean }> {
  const { db, scope, operation, request, claiming } = options;
  // A claiming create's writer, sent no claim, writes unconditionally: it always answers a row.
  const create = claiming ? async (executor: Executor) => (await (await claiming.prepare(executor))())! : options.create;
  if (request === undefined) return { result: await create(db), replayed: false };

  const { key } = request;
  const hash = requestHash(request.body, options.orderedFields);
  const cutoff = new Date(options.now.getTime() - IDEMPOTENCY_WINDOW_SECONDS * 1000);
  /** A live key of this request's: its body's hash, and the answer a replay gives. */
  type Existing = { requestHash: string; answer(): Promise<T> };
  const answerExisting = async (existing: Existing) => {
    if (existing.requestHash !== hash) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body. Use a new key for a different request.');
    }
    request.replayed = true;
    return { result: await existing.answer(), replayed: true };
  };

  const liveKey = async (): Promise<Existing | undefined> => {
    if (!claiming) return undefined;
    const [found] = await liveKeyLookup(claiming.table)(db).execute({ storeId: scope.storeId, livemode: scope.livemode, operation, key, cutoff: cutoff.toISOString() });
    return found && { requestHash: found.requestHash, answer: () => claiming.replayRow(found.row as Table['$inferSelect']) };
  };

  if (claiming) {
    const keyId = JSON.stringify([scope.storeId, scope.livemode, operation, key]);
    if (seenLately(keyId)) {
      const existing = await liveKey();
      if (existing) return answerExisting(existing);
    }
    let created: T | undefined;
    try {
      const writer = await claiming.prepare(db);
      created = await writer({
        idempotencyOperation: operation,
        idempotencyKey: key,
        idempotencyRequestHash: hash,
        idempotencyResourceId: options.resourceId,
        idempotencyCreatedAt: options.now,
        idempotencyCutoff: cutoff.toISOString(),
      });
    } catch (error) {
      // A refusal (a price deactivated since, say) stands only for a key that is not live.
      const raced = error instanceof ApiError ? await liveKey() : undefined;
      if (!raced) throw error;
      return answerExisting(raced);
    }
    if (created !== undefined) return { result: created, replayed: false };
    const raced = await liveKey();
    if (raced) return answerExisting(raced);
    // The key's holder is gone again (it expired meanwhile): the transaction below settles it.
  }

  const keyRow = and(ownedBy(idempotencyKeys, scope), eq(idempotencyKeys.operation, operation), eq(idempotencyKeys.key, key));
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
    if (claimed) return { kind: 'created', result: await create(tx) };
    const [existing] = await tx.select({ requestHash: idempotencyKeys.requestHash, resourceId: idempotencyKeys.resourceId }).from(idempotencyKeys).where(keyRow);
    return { kind: 'existing', ...existing! };
  });
  if (outcome.kind === 'created') return { result: outcome.result, replayed: false };
  const { replay } = options;
  const answer = replay
    ? () => replay(outcome.resourceId)
    : async () => {
        // The key was committed by the request this one waited for: the lookup finds it now.
        const live = await liveKey();
        if (!live) throw new Error(`idempotency key of ${operation} names no ${getTableName(claiming!.table)} row`);
        return live.answer();
      };
  return answerExisting({ requestHash: outcome.requestHash, answer });
}
