import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/client';
import { ROOT, serviceDatabase, serviceEnv, serviceStorage } from '../support/production-server';

/**
 * scripts/prepare-database.ts as `npm start` runs it while it builds: a process of its own that
 * makes the database (a new PGlite data directory, or a new PostgreSQL database) and migrates it,
 * so that the start after the build finds both done.
 */
const run = promisify(execFile);
const prepare = (env: Record<string, string>) => run(process.execPath, ['--import', 'tsx', 'scripts/prepare-database.ts'], { cwd: ROOT, env: serviceEnv(env) });

const cleanups: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

async function appliedMigrations(env: Record<string, string>): Promise<number> {
  const handle = await openDatabase({ ...serviceDatabase(env), poolSize: 1 });
  try {
    // postgres.js answers with the rows, PGlite with an object holding them.
    const result = (await handle.db.execute(sql`select count(*)::int as applied from drizzle.__drizzle_migrations`)) as unknown as { applied: number }[] | { rows: { applied: number }[] };
    const rows = Array.isArray(result) ? result : result.rows;
    return rows[0]!.applied;
  } finally {
    await handle.close();
  }
}

describe('scripts/prepare-database.ts', () => {
  it('makes and migrates a new database, its data directory’s folders too, prints nothing, and a second run finds nothing to do', { timeout: 120_000 }, async () => {
    const storage = await serviceStorage('prepare-database', { fresh: true });
    cleanups.push(storage.cleanup);
    // A data directory whose folders do not exist yet, as on a fresh clone (`.data/pglite`).
    const env = { ...storage.env, DATA_DIR: path.join(storage.env.DATA_DIR!, 'nested', 'data') };
    const journal = JSON.parse(await readFile(path.join(ROOT, 'db/migrations/meta/_journal.json'), 'utf8')) as { entries: unknown[] };

    const first = await prepare(env);
    expect(first).toEqual({ stdout: '', stderr: '' });
    expect(await appliedMigrations(env)).toBe(journal.entries.length);

    expect(await prepare(env)).toEqual({ stdout: '', stderr: '' });
    expect(await appliedMigrations(env)).toBe(journal.entries.length);
  });

  it('a setting the service cannot run with: exit 1 and one line naming it', async () => {
    const refused = await prepare({ PORT: 'eighty' }).then(
      () => undefined,
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stdout).toBe('');
    expect(refused?.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused?.stderr).toMatch(/PORT/);
  });
});
