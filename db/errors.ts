/** Finds a PostgreSQL error code on an error or its causes (Drizzle wraps driver errors). */
function postgresError(error: unknown): { code?: string; constraint?: string; constraint_name?: string } | undefined {
  for (let current = error; current && typeof current === 'object'; current = (current as { cause?: unknown }).cause) {
    if (typeof (current as { code?: unknown }).code === 'string') return current as { code: string };
  }
  return undefined;
}

/**
 * True for a unique-constraint violation, optionally of exactly the named constraint (as
 * postgres.js reports it, `constraint_name`, or PGlite, `constraint`).
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = postgresError(error);
  if (pg?.code !== '23505') return false;
  return constraint === undefined || (pg.constraint_name ?? pg.constraint) === constraint;
}
