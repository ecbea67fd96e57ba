import { PGlite } from '@electric-sql/pglite';
import { is, Param, Placeholder, sql } from 'drizzle-orm';
import { boolean, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowIfClaimed } from '@/server/kit/idempotency';
import { sessionInsert } from '@/server/checkout/statements';

/**
 * rowIfClaimed writes a create's row as a select list: the request's values are placeholders, and
 * what is fixed when the statement is prepared (constants, defaults, nulls) is part of its text,
 * so each execution binds only the request's own values.
 */
const notes = pgTable('notes', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  kind: text('kind').notNull().default('plain'),
  pinned: boolean('pinned').notNull().default(false),
  weight: integer('weight').notNull().default(0),
  tags: json('tags').$type<string[]>().notNull(),
  body: text('body'),
});

let client: PGlite;
let db: ReturnType<typeof drizzle>;

beforeAll(async () => {
  client = await PGlite.create();
  db = drizzle(client);
  await client.exec(`create table notes (id text primary key, title text not null, kind text not null default 'plain', pinned boolean not null default false,
    weight integer not null default 0, tags json not null, body text)`);
});

afterAll(() => client.close());

const isPlaceholderParam = (param: unknown) => is(param, Placeholder) || (is(param, Param) && is((param as Param).value, Placeholder));

describe('rowIfClaimed', () => {
  it('writes constants, defaults and nulls into the text, quotes included, and binds only the placeholders', async () => {
    const insert = db
      .insert(notes)
      .select(rowIfClaimed(undefined, notes, { id: sql.placeholder('id'), title: "Ada's notes", pinned: true, weight: 3, tags: ["it's", 'x'] }))
      .returning()
      .prepare('note_insert');
    const query = insert.getQuery();
    expect(query.params.every(isPlaceholderParam)).toBe(true);
    expect(query.params).toHaveLength(1);
    expect(query.sql).toContain(`cast('Ada''s notes' as text)`);
    expect(query.sql).toContain(`cast('plain' as text)`);
    expect(query.sql).toContain('cast(null as text)');

    for (const id of ['n1', 'n2']) {
      expect(await insert.execute({ id })).toEqual([{ id, title: "Ada's notes", kind: 'plain', pinned: true, weight: 3, tags: ["it's", 'x'], body: null }]);
    }
  });

  it('leaves the checkout creation statement binding its placeholders alone, with or without a key', () => {
    for (const keyed of [0, 1]) {
      const params = (sessionInsert(db as never, keyed) as unknown as { params: unknown[] }).params;
      expect(params.length).toBeGreaterThan(0);
      expect(params.filter((param) => !isPlaceholderParam(param))).toEqual([]);
    }
  });
});
