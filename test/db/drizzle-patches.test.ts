import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pg-proxy';
import { describe, expect, it } from 'vitest';

/**
 * patches/drizzle-orm+0.45.4.patch: a query's result decoders (mapResultRow) and the kinds of its
 * parameters (fillPlaceholders) are worked out once per query instead of on every execution. A
 * prepared query must still map each execution's own rows and values, joins included.
 */
const packageRoot = path.dirname(createRequire(import.meta.url).resolve('drizzle-orm'));

const owners = pgTable('owners', { id: text('id').primaryKey(), name: text('name').notNull() });
const pets = pgTable('pets', {
  id: text('id').primaryKey(),
  ownerId: text('owner_id'),
  age: integer('age').notNull(),
  bornAt: timestamp('born_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/** A database whose driver answers each query with the next of `answers`, recording what it was sent. */
function scriptedDatabase(answers: unknown[][][]) {
  const sent: { sql: string; params: unknown[] }[] = [];
  const db = drizzle(async (query, params) => {
    sent.push({ sql: query, params });
    return { rows: answers.shift() ?? [] };
  });
  return { db, sent };
}

describe('Drizzle result mapping and placeholders (patched)', () => {
  it('maps every execution of a prepared join with its own rows, a missing joined row as null', async () => {
    const { db, sent } = scriptedDatabase([[['p1', 'o1', 3, '2026-01-02 03:04:05+00', 'o1', 'Ada', 4]], [['p2', null, 5, '2026-02-03 04:05:06+00', null, null, 6]]]);
    const query = db
      .select({ pet: pets, owner: owners, doubled: sql<number>`${pets.age} * 2`.mapWith(Number) })
      .from(pets)
      .leftJoin(owners, eq(owners.id, pets.ownerId))
      .where(eq(pets.id, sql.placeholder('id')))
      .prepare('pet_with_owner');

    expect(await query.execute({ id: 'p1' })).toEqual([{ pet: { id: 'p1', ownerId: 'o1', age: 3, bornAt: new Date('2026-01-02T03:04:05Z') }, owner: { id: 'o1', name: 'Ada' }, doubled: 4 }]);
    expect(await query.execute({ id: 'p2' })).toEqual([{ pet: { id: 'p2', ownerId: null, age: 5, bornAt: new Date('2026-02-03T04:05:06Z') }, owner: null, doubled: 6 }]);
    expect(sent.map((query) => query.params)).toEqual([['p1'], ['p2']]);
  });

  it('fills placeholders, encodes those bound to a column, keeps plain values, and names a missing one', async () => {
    const { db, sent } = scriptedDatabase([[], []]);
    const query = db
      .insert(pets)
      .values({ id: sql.placeholder('id'), ownerId: 'o1', age: sql.placeholder('age'), bornAt: sql.placeholder('bornAt') })
      .prepare('pet_insert');
    await query.execute({ id: 'p1', age: 2, bornAt: new Date('2026-03-04T05:06:07Z') });
    await query.execute({ id: 'p2', age: 7, bornAt: new Date('2026-04-05T06:07:08Z') });
    expect(sent.map((query) => query.params)).toEqual([
      ['p1', 'o1', 2, '2026-03-04T05:06:07.000Z'],
      ['p2', 'o1', 7, '2026-04-05T06:07:08.000Z'],
    ]);
    await expect(query.execute({ id: 'p3', age: 1 })).rejects.toThrow('No value for placeholder "bornAt" was provided');
  });

  it('is the patched code that is installed (npm install applies patches/ through patch-package)', async () => {
    for (const extension of ['js', 'cjs']) {
      expect(await readFile(path.join(packageRoot, `utils.${extension}`), 'utf8')).toContain('decodersByFields');
      expect(await readFile(path.join(packageRoot, 'sql', `sql.${extension}`), 'utf8')).toContain('placeholderKindsByParams');
    }
  });
});
