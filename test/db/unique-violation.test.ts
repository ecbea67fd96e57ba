import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '@/db/errors';
import { createTestDatabase } from '../support/database';

/**
 * isUniqueViolation names the one constraint a duplicate broke, exactly, on both drivers
 * (PGlite reports it as `constraint`, postgres.js as `constraint_name`): a constraint whose
 * name merely contains the one asked for is another constraint.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table widgets (code text constraint widgets_code_unique unique, label text constraint widgets_code_unique_label unique)`);
  await database.db.execute(sql`insert into widgets values ('a', 'A')`);
});

afterAll(() => database.close());

async function violation(statement: ReturnType<typeof sql>): Promise<unknown> {
  try {
    await database.db.execute(statement);
  } catch (error) {
    return error;
  }
  throw new Error('expected a unique violation');
}

describe('isUniqueViolation', () => {
  it('matches the constraint the duplicate broke, not one whose name contains the name asked for', async () => {
    const byLabel = await violation(sql`insert into widgets values ('b', 'A')`);
    expect(isUniqueViolation(byLabel)).toBe(true);
    expect(isUniqueViolation(byLabel, 'widgets_code_unique_label')).toBe(true);
    expect(isUniqueViolation(byLabel, 'widgets_code_unique')).toBe(false);
    expect(isUniqueViolation(byLabel, 'widgets')).toBe(false);

    const byCode = await violation(sql`insert into widgets values ('a', 'B')`);
    expect(isUniqueViolation(byCode, 'widgets_code_unique')).toBe(true);
    expect(isUniqueViolation(byCode, 'widgets_code_unique_label')).toBe(false);
  });

  it('inside a transaction too', async () => {
    const error = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into widgets values ('a', 'C')`);
      })
      .catch((caught: unknown) => caught);
    expect(isUniqueViolation(error, 'widgets_code_unique')).toBe(true);
    expect(isUniqueViolation(error, 'widgets_code')).toBe(false);
  });

  it('an error that names no constraint is no violation of a named one, whatever its message says', () => {
    const unnamed = Object.assign(new Error('duplicate key value violates unique constraint "widgets_code_unique_label"'), { code: '23505' });
    expect(isUniqueViolation(unnamed)).toBe(true);
    expect(isUniqueViolation(unnamed, 'widgets_code_unique')).toBe(false);
    expect(isUniqueViolation(unnamed, 'widgets_code_unique_label')).toBe(false);
  });
});
