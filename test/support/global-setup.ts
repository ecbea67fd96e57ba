import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { migrateDatabase, openDatabase } from '@/db/client';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory, dumped once per run (PGlite runs only). */
    migratedPgliteDump: string | undefined;
  }
}

/**
 * On PGlite every test file starts from one migrated database dumped here, instead of running
 * initdb and the migrations itself: initdb is most of a file's set-up time.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL) {
    project.provide('migratedPgliteDump', undefined);
    return undefined;
  }
  const handle = await openDatabase({});
  await migrateDatabase(handle);
  // drizzle keeps the PGlite client it wraps as `$client`.
  const dump = await (handle.db as unknown as { $client: PGlite }).$client.dumpDataDir('none');
  await handle.close();
  const directory = await mkdtemp(path.join(tmpdir(), 'pglite-dump-'));
  const file = path.join(directory, 'migrated.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('migratedPgliteDump', file);
  return () => rm(directory, { recursive: true, force: true });
}
