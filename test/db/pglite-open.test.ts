import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase } from '@/db/client';

/** Embedded PGlite in a data directory, as `npm start` opens it without DATABASE_URL. */
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function dataDir() {
  const dir = await mkdtemp(path.join(tmpdir(), 'pglite-open-'));
  dirs.push(dir);
  return path.join(dir, 'data');
}

type Handle = Awaited<ReturnType<typeof openDatabase>>;
/** PGlite answers `execute` with its rows. */
const rowsOf = async (handle: Handle, query: ReturnType<typeof sql>) => ((await handle.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows;
const setting = async (handle: Handle, name: string) => (await rowsOf(handle, sql.raw(`show ${name}`)))[0];

describe('openDatabase on PGlite', () => {
  it('makes a new data directory, migrates it, and opens it again with what it holds; the buffer cache is small', { timeout: 120_000 }, async () => {
    const dir = await dataDir();
    const first = await openDatabase({ pgliteDir: dir });
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(await setting(first, 'shared_buffers')).toEqual({ shared_buffers: '16MB' });
    await migrateDatabase(first);
    await first.db.execute(sql`insert into stores (id, name) values ('acct_open_test', 'Kept')`);
    await first.close();

    const again = await openDatabase({ pgliteDir: dir });
    expect(await rowsOf(again, sql`select name from stores where id = 'acct_open_test'`)).toEqual([{ name: 'Kept' }]);
    expect(await setting(again, 'shared_buffers')).toEqual({ shared_buffers: '16MB' });
    await again.close();
  });
});
