import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { withPreparedStatements } from './pglite-statements';
import * as schema from './schema';

export type Schema = typeof schema;
/** What both drivers have in common; services only ever see this. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = path.join(/* turbopackIgnore: true */ process.cwd(), 'db', 'migrations');

/**
 * Prepared single statements of the hot paths (preparedPerShape, below) run on two connections
 * of their own. Requests then queue their statements on busy connections, and postgres.js
 * pipelines the ones issued in one tick into one socket write and reads their answers in one
 * read: on these machines a system call, not the query, is most of a statement's cost
 * Transactions and everything else keep the main pool, so nothing long
 * holds up the hot path. (Connections that stay busy need patches/postgres+3.4.9.patch.)
 */
const STATEMENT_CONNECTIONS = 2;
const statementDatabases = new WeakMap<Database, Database>();

/**
 * A real PostgreSQL when `url` is given, otherwise embedded PGlite in `pgliteDir` (in memory when
 * that is undefined, as tests do), started from `pgliteDump` (a `dumpDataDir` of another one) when
 * given: loading a dump takes a third of the time a new data directory's initdb takes.
 */
export async function openDatabase(options: { url?: string; pgliteDir?: string; pgliteDump?: Blob; poolSize?: number }): Promise<DatabaseHandle> {
  if (options.url) {
    const open = (max: number, name: string) =>
      postgres(options.url!, {
        max,
        onnotice: () => {},
        // A bound LIMIT makes PostgreSQL re-plan list queries on every call.
        connection: { plan_cache_mode: 'force_generic_plan', application_name: name },
      });
    const client = open(options.poolSize ?? 10, 'payments-service');
    const statementClient = open(STATEMENT_CONNECTIONS, 'payments-service:statements');
    const db = drizzlePostgres(client, { schema });
    statementDatabases.set(db, drizzlePostgres(statementClient, { schema }));
    return {
      db,
      driver: 'postgres',
      close: async () => {
        await Promise.all([client.end({ timeout: 5 }), statementClient.end({ timeout: 5 })]);
      },
    };
  }
  const client = await openPglite(options.pgliteDir, options.pgliteDump);
  return { db: drizzlePglite({ client: withPreparedStatements(client), schema }), driver: 'pglite', close: () => client.close() };
}

/**
 * PGlite's memory is one WebAssembly memory that grows and never shrinks. The buffer cache
 * PostgreSQL keeps by default (128 MB) would be a copy of what the operating system already
 * caches of the data directory, so it is kept small.
 */
const PGLITE_SETTINGS = ['shared_buffers=16MB'];

/**
 * Making a data directory (initdb) takes hundreds of megabytes that the instance would hold for
 * the life of the process: a new one is made by a short-lived process of its own, and a loaded
 * dump is opened a second time.
 */
async function openPglite(dataDir: string | undefined, dump: Blob | undefined): Promise<PGlite> {
  // In memory, the database is made in this process whatever it takes: it lives only as long.
  if (dataDir === undefined) return PGlite.create({ loadDataDir: dump, postgresqlconf: PGLITE_SETTINGS });
  const made = existsSync(path.join(dataDir, 'PG_VERSION'));
  // PGlite makes the data directory itself, but not the folders above it.
  if (!made) mkdirSync(path.dirname(dataDir), { recursive: true });
  if (!made && !dump) await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', INITDB_SCRIPT, dataDir], { cwd: process.cwd() });
  const client = await PGlite.create({ dataDir, loadDataDir: made ? undefined : dump, postgresqlconf: PGLITE_SETTINGS });
  if (made || !dump) return client;
  await client.close();
  return PGlite.create({ dataDir, postgresqlconf: PGLITE_SETTINGS });
}

const INITDB_SCRIPT = `
const { PGlite } = await import('@electric-sql/pglite');
const client = await PGlite.create({ dataDir: process.argv[1] });
await client.close();
`;

/**
 * Serialises the transactions that take the lock of the same `name` until each commits or rolls
 * back: for a check that must still hold when the write commits (a per-store limit, a one-time setup).
 */
export async function lockUntilCommit(tx: Transaction, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
}

/**
 * Where the hot prepared statements of `executor` run: a PostgreSQL database's statement
 * connections; a transaction or a PGlite database itself.
 */
export function statementDatabase<E extends Executor>(executor: E): E {
  return (statementDatabases.get(executor as Database) as E | undefined) ?? executor;
}

/** Applies the committed drizzle-kit migrations; safe when several instances start at once. */
export async function migrateDatabase(handle: DatabaseHandle, url?: string): Promise<void> {
  if (handle.driver === 'pglite') {
    await migratePglite(handle.db as Parameters<typeof migratePglite>[0], { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  if (!url) throw new Error('migrateDatabase needs the database url for PostgreSQL');
  // One dedicated connection so the advisory lock and the migration share a session.
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(hashtext('payments-service:migrate'))`;
    await migratePostgres(drizzlePostgres(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** openDatabase, then the migrations. A failure leaves nothing open, so a retry may open it again (PGlite allows one owner). */
export async function openMigratedDatabase(options: Parameters<typeof openDatabase>[0]): Promise<DatabaseHandle> {
  const database = await openDatabase(options);
  try {
    await migrateDatabase(database, options.url);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/**
 * A statement prepared once per executor and shape (e.g. its number of rows), so Drizzle does
 * not rebuild its SQL on every call. Given the main PostgreSQL database it
 * runs on the statement connections (above). A transaction is an executor of its own: its
 * statements are built for it and dropped with it.
 */
export function preparedPerShape<P>(prepare: (executor: Executor, shape: number) => P): (executor: Executor, shape: number) => P {
  const cache = new WeakMap<Executor, Map<number, P>>();
  return (given, shape) => {
    const executor = statementDatabase(given);
    let byShape = cache.get(executor);
    if (!byShape) {
      byShape = new Map();
      cache.set(executor, byShape);
    }
    let prepared = byShape.get(shape);
    if (prepared === undefined) {
      prepared = prepare(executor, shape);
      byShape.set(shape, prepared);
    }
    return prepared;
  };
}

/** preparedPerShape for a statement of one shape. */
export function preparedOnce<P>(prepare: (executor: Executor) => P): (executor: Executor) => P {
  const perShape = preparedPerShape((executor) => prepare(executor));
  return (executor) => perShape(executor, 0);
}
