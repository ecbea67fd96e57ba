import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * patches/postgres+3.4.9.patch: postgres.js found a connection's prepared statement by a string
 * made afresh for every query (its parameter types, then its whole text), hashed in full each
 * time. The patched connection keys its statements by the text, then by the types. A statement must
 * still be prepared once per text and types, reused, and prepared again when the server lost it.
 * On PostgreSQL only (postgres.js is the driver there; PGlite has its own).
 */
const packageRoot = path.join(path.dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');

// One connection, so that the session's pg_prepared_statements are the ones this client made.
const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 5 }));

/** A long text (as an ORM writes them): the same string object is sent each time. */
const LONG_TEXT = `select $1::text as name, $2::int + 1 as next, ${Array.from({ length: 120 }, (_, index) => `'column ${index}' as c${index}`).join(', ')}`;

async function preparedTexts(): Promise<string[]> {
  const rows = await sql.unsafe<{ statement: string }[]>('select statement from pg_prepared_statements order by prepare_time', [], { prepare: false });
  return rows.map((row) => row.statement);
}

describe('postgres.js prepared statements (patched)', () => {
  it('prepares a text once and answers each execution with its own values', async () => {
    for (let index = 0; index < 5; index++) {
      const [row] = await sql.unsafe<{ name: string; next: number; c119: string }[]>(LONG_TEXT, [`name ${index}`, index], { prepare: true });
      expect(row).toMatchObject({ name: `name ${index}`, next: index + 1, c119: 'column 119' });
    }
    expect((await preparedTexts()).filter((text) => text === LONG_TEXT)).toHaveLength(1);
  });

  it('prepares the same text again for other parameter types, and reuses each', async () => {
    // A string goes untyped (the server infers text), a Date as timestamptz: two statements.
    const text = 'select $1::text as value';
    await sql.unsafe("set time zone 'UTC'", [], { prepare: false });
    for (let index = 0; index < 3; index++) {
      expect(await sql.unsafe(text, ['words'], { prepare: true })).toEqual([{ value: 'words' }]);
      expect(await sql.unsafe(text, [new Date(0)], { prepare: true })).toEqual([{ value: '1970-01-01 00:00:00+00' }]);
    }
    expect((await preparedTexts()).filter((statement) => statement === text)).toHaveLength(2);
  });

  it('reuses the statement of a tagged template, whose text is built afresh for each query', async () => {
    for (let index = 0; index < 3; index++) expect(await sql`select ${index}::int * 2 as doubled`).toEqual([{ doubled: index * 2 }]);
    expect((await preparedTexts()).filter((statement) => statement === 'select $1::int * 2 as doubled')).toHaveLength(1);
  });

  it('prepares a statement again when the server no longer has it, and then reuses that one', async () => {
    await sql.unsafe(LONG_TEXT, ['before', 1], { prepare: true });
    await sql.unsafe('deallocate all', [], { prepare: false });
    expect(await preparedTexts()).toEqual([]);
    const [row] = await sql.unsafe<{ name: string; next: number }[]>(LONG_TEXT, ['after', 2], { prepare: true });
    expect(row).toMatchObject({ name: 'after', next: 3 });
    await sql.unsafe(LONG_TEXT, ['again', 3], { prepare: true });
    expect(await preparedTexts()).toEqual([LONG_TEXT]);
  });

  it('is the patched code that is installed (npm install applies patches/ through patch-package)', async () => {
    for (const variant of ['src', 'cjs/src']) {
      const source = await readFile(path.join(packageRoot, variant, 'connection.js'), 'utf8');
      expect(source).toContain('function preparedStatement(q)');
      expect(source).not.toContain('types + string');
    }
  });
});
