/**
 * Makes and migrates the database `npm start` serves from, then closes it: run by scripts/start.mjs
 * in a process of its own while it builds, so that making a new PGlite data directory and
 * migrating it take the first start no time of its own, and serve.ts finds both done.
 */
import { openMigratedDatabase } from '@/db/client';
import { loadConfigOrExit } from './config-or-exit';

const config = loadConfigOrExit();
const database = await openMigratedDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir, poolSize: 1 });
await database.close();
