import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openMigratedDatabase, type DatabaseHandle } from '@/db/client';
import { randomBase62 } from '@/server/ids';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default (loaded from the
 * run's migrated dump, test/support/global-setup.ts; the migrations still run and find nothing
 * to do), or on the server named by DATABASE_URL a new database copied from the run's migrated
 * template (dropped again by `close`; the migrations likewise find nothing to do).
 */
/** ` template "<name>"` when the run made a migrated template database (test/support/global-setup.ts), else nothing. */
export function templateClause(): string {
  const template = inject('migratedTemplate');
  return template ? ` template "${template}"` : '';
}

export async function createTestDatabase(): Promise<DatabaseHandle & { url: string | undefined }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dumpFile = inject('migratedPgliteDump');
    const handle = await openMigratedDatabase({ pgliteDump: dumpFile ? new Blob([await readFile(dumpFile)]) : undefined });
    return { ...handle, url: undefined };
  }
  const name = `test_${randomBase62(12).toLowerCase()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${templateClause()}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openMigratedDatabase({ url: url.toString(), poolSize: 5 });
  return {
    ...handle,
    url: url.toString(),
    async close() {
      await handle.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
