import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPreparedStatements } from '@/db/pglite-statements';

let raw: PGlite;
let client: PGlite;

beforeAll(async () => {
  raw = await PGlite.create();
  client = withPreparedStatements(raw);
  await raw.exec(`create table items (id text primary key, amount integer not null, tags text[] not null default '{}', created_at timestamptz not null default now(), meta json)`);
});

afterAll(() => raw.close());

describe('PGlite statements prepared under a name', () => {
  it('answer as PGlite’s own query does: rows, fields, affected rows, array mode and the caller’s parsers, on the first call and every one after', async () => {
    const insert = 'insert into items (id, amount, tags, meta) values ($1, $2, $3, $4) returning id, amount, tags, meta';
    for (const [id, amount] of [
      ['a', 100],
      ['b', 250],
    ] as const) {
      const mine = await client.query(insert, [id, amount, ['x', 'y'], { k: 1 }]);
      expect(mine.rows).toEqual([{ id, amount, tags: ['x', 'y'], meta: { k: 1 } }]);
      expect(mine.affectedRows).toBe(1);
    }
    const select = 'select id, amount, created_at from items where amount >= $1 order by id limit $2';
    const options = { rowMode: 'array' as const, parsers: { 1184: (value: string) => value } };
    for (let call = 0; call < 3; call++) {
      const [theirs, mine] = [await raw.query(select, [100, 5], options), await client.query(select, [100, 5], options)];
      expect(mine.rows).toEqual(theirs.rows);
      expect(mine.fields).toEqual(theirs.fields);
      expect(typeof (mine.rows[0] as unknown[])[2]).toBe('string');
    }
    expect((await client.query('update items set amount = amount + 1 where id = $1', ['zzz'])).affectedRows).toBe(0);
  });

  it('a failing statement throws PGlite’s database error with its code, and the connection goes on', async () => {
    const insert = 'insert into items (id, amount) values ($1, $2)';
    await client.query(insert, ['dup', 1]);
    const failure = await client.query(insert, ['dup', 2]).catch((error: unknown) => error as { code?: string; query?: string });
    expect(failure).toMatchObject({ code: '23505', query: insert });
    expect(await client.query('select count(*)::int as n from items where id = $1', ['dup']).then((answer) => answer.rows)).toEqual([{ n: 1 }]);
    await expect(client.query('select from nowhere_at_all')).rejects.toMatchObject({ code: '42P01' });
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('waits for a transaction in progress instead of running inside it', async () => {
    let release!: () => void;
    let inserted!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const begun = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = client.transaction(async (tx) => {
      await tx.query(`insert into items (id, amount) values ('in-tx', 7)`);
      inserted();
      await held;
      await tx.query(`update items set amount = 8 where id = 'in-tx'`);
    });
    await begun;
    const outside = client.query('select amount from items where id = $1', ['in-tx']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await transaction;
    expect((await outside).rows).toEqual([{ amount: 8 }]);
  });

  it('lets the event loop turn before each statement, so I/O waiting on a busy embedded database is taken in between statements', async () => {
    const turns: string[] = [];
    // The loop's next turn: before the statements when each yields to it first, after all of them when they chain through promises alone.
    setImmediate(() => turns.push('event loop'));
    const statements = Array.from({ length: 3 }, async (_, index) => {
      await client.query('select $1::int as n', [index]);
      turns.push(`statement ${index}`);
    });
    await Promise.all(statements);
    expect(turns[0]).toBe('event loop');
  });

  it('runs statements for a few milliseconds per turn of the event loop, then lets it turn, and goes on with the rest in order', async () => {
    const turns: string[] = [];
    const statements = Array.from({ length: 10 }, async (_, index) => {
      await client.query('select pg_sleep(0.003), $1::int as n', [index]);
      turns.push(`statement ${index}`);
    });
    // Queued behind the ten statements' turns: it runs once this turn's slice is spent.
    setImmediate(() => turns.push('event loop'));
    await Promise.all(statements);
    const loop = turns.indexOf('event loop');
    expect(loop).toBeGreaterThan(0);
    expect(loop).toBeLessThan(10);
    expect(turns.filter((turn) => turn !== 'event loop')).toEqual(Array.from({ length: 10 }, (_, index) => `statement ${index}`));
  });
});
