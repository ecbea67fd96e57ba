/**
 * The database `npm start` serves from, opened and migrated. Run as a script by scripts/start.mjs
 * while it builds: making a new PGlite data directory and migrating it then take the first start
 * no time of its own, and serve.ts finds both done.
 */
import { pathToFileURL } from 'node:url';
import { migrateDatabase, openDatabase, type DatabaseHandle } from '@/db/client';
import type { Config } from '@/server/config';
import { loadConfigOrExit } from './config-or-exit';

export async function openMigratedDatabase(config: Config): Promise<DatabaseHandle> {
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir, poolSize: 1 });
  try {
    await migrateDatabase(database, config.databaseUrl);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const database = await openMigratedDatabase(loadConfigOrExit());
  await database.close();
}
