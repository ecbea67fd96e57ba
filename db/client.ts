import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
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
 * A real PostgreSQL when `url` is given, otherwise embedded PGlite in `pgliteDir`
 * (in memory when that is undefined, as tests do).
 */
export async function openDatabase(options: { url?: string; pgliteDir?: string; poolSize?: number }): Promise<DatabaseHandle> {
  if (options.url) {
    const client = postgres(options.url, {
      max: options.poolSize ?? 10,
      onnotice: () => {},
      // A bound LIMIT makes PostgreSQL re-plan list queries on every call (notes/performance.md).
      connection: { plan_cache_mode: 'force_generic_plan' },
    });
    return { db: drizzlePostgres(client, { schema }), driver: 'postgres', close: () => client.end({ timeout: 5 }) };
  }
  const client = await PGlite.create(options.pgliteDir);
  return { db: drizzlePglite(client, { schema }), driver: 'pglite', close: () => client.close() };
}

/**
 * A small pool of its own for the shared rate-limit counters (server/rate-limit/service.ts): they
 * must be shared by every instance, so they live in PostgreSQL, but they need not survive a crash.
 * `synchronous_commit = off` spares each counter upsert the wait for its WAL flush; a crash of
 * the database can lose the last moments of counts, never the service's own data (its pool keeps
 * the default).
 */
export function openRateLimitDatabase(url: string, poolSize = 4): { db: Database; close(): Promise<void> } {
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    connection: { synchronous_commit: 'off', application_name: 'payments-service:rate-limits' },
  });
  return { db: drizzlePostgres(client, { schema }), close: () => client.end({ timeout: 5 }) };
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

/**
 * A statement prepared once per executor and shape (e.g. its number of rows), so Drizzle does
 * not rebuild its SQL on every call (notes/performance.md). A transaction is an executor of its
 * own: its statements are built for it and dropped with it.
 */
export function preparedPerShape<P>(prepare: (executor: Executor, shape: number) => P): (executor: Executor, shape: number) => P {
  const cache = new WeakMap<Executor, Map<number, P>>();
  return (executor, shape) => {
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
