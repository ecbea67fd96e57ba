import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openMigratedDatabase } from '@/db/client';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite runs: a migrated, empty data directory, made once per run, for `npm start` to copy. */
    migratedPgliteDir: string | undefined;
    /** The same database as a `dumpDataDir` file, for in-memory databases to load. */
    migratedPgliteDump: string | undefined;
    /** PostgreSQL runs: a migrated, empty database on the server, made once per run, that every test database is copied from. */
    migratedTemplate: string | undefined;
  }
}

interface Migrated {
  provided: { migratedPgliteDir: string | undefined; migratedPgliteDump: string | undefined; migratedTemplate: string | undefined };
  remove: () => Promise<void>;
}

/**
 * Every test file's database, and every database or data directory a test hands `npm start`,
 * starts from one migrated database made here: on PGlite instead of running initdb and the
 * migrations again (initdb is most of a file's set-up time and of a PGlite start), on PostgreSQL
 * as a template database that `create database … template` copies in a tenth of the migrations' time.
 */
async function makeMigrated(): Promise<Migrated> {
  // The browser library's tests import its built package; a fresh clone has none yet.
  if (!existsSync(path.resolve('packages/client/dist/index.js'))) execFileSync(process.execPath, ['--import', 'tsx', 'packages/client/scripts/build.ts'], { stdio: 'inherit' });
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const template = `template_${randomBytes(6).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${template}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${template}`;
    const handle = await openMigratedDatabase({ url: url.toString(), poolSize: 1 });
    // A template copies only while no one is connected to it.
    await handle.close();
    return {
      provided: { migratedPgliteDir: undefined, migratedPgliteDump: undefined, migratedTemplate: template },
      async remove() {
        await admin.unsafe(`drop database if exists "${template}" with (force)`);
        await admin.end({ timeout: 5 });
      },
    };
  }
  const directory = await mkdtemp(path.join(tmpdir(), 'pglite-migrated-'));
  const dataDir = path.join(directory, 'pglite');
  const handle = await openMigratedDatabase({ pgliteDir: dataDir });
  // drizzle keeps the PGlite client it wraps as `$client`.
  const dump = await (handle.db as unknown as { $client: PGlite }).$client.dumpDataDir('none');
  await handle.close();
  const dumpFile = path.join(directory, 'migrated.tar');
  await writeFile(dumpFile, Buffer.from(await dump.arrayBuffer()));
  return {
    provided: { migratedPgliteDir: dataDir, migratedPgliteDump: dumpFile, migratedTemplate: undefined },
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/**
 * The run and each of its projects call this setup, each with its own copy of this module: they
 * share one migrated database through the process, and the last teardown removes it.
 */
const shared = globalThis as typeof globalThis & { migratedForTests?: { made: Promise<Migrated>; users: number } };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.migratedForTests ??= { made: makeMigrated(), users: 0 };
  const run = shared.migratedForTests;
  run.users += 1;
  const made = await run.made;
  for (const [key, value] of Object.entries(made.provided)) project.provide(key as keyof Migrated['provided'], value);
  return async () => {
    run.users -= 1;
    if (run.users === 0) {
      shared.migratedForTests = undefined;
      await made.remove();
    }
  };
}
