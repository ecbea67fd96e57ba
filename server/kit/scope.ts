/**
 * Tenancy: every row belongs to one store in one environment (test or live), and every lookup
 * made for a caller carries both in the same WHERE. Unknown, other-store and other-environment
 * ids then answer alike.
 */
import { and, eq, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '@/db/client';

/** Whose rows a call may see: the authenticated store, in the key's environment. */
export interface Scope {
  storeId: string;
  livemode: boolean;
}

/** A table with the two tenancy columns. */
interface OwnedTable {
  storeId: AnyColumn;
  livemode: AnyColumn;
}

/** "Owned by this store in this environment", for any table; a prepared statement passes placeholders. */
export function ownedBy(table: OwnedTable, scope: { [K in keyof Scope]: Scope[K] | Placeholder }): SQL {
  return and(eq(table.storeId, scope.storeId), eq(table.livemode, scope.livemode))!;
}

/** The scope as parameters `storeId` and `livemode` of a prepared statement. */
export const SCOPE_PLACEHOLDERS = { storeId: sql.placeholder('storeId'), livemode: sql.placeholder('livemode') };

/**
 * A row by its primary key alone, as a subquery for the caller's scope to filter (`ownedBy` on
 * it): the key then finds the row under any plan, where the scope beside it in one condition let
 * a generic plan made on a small table walk a store's index instead.
 */
export function rowById<T extends PgTable & { id: PgColumn }>(executor: Executor, table: T, id: Placeholder | string, alias: string) {
  // `never`: Drizzle cannot tell that a generic table is no data-modifying subquery.
  return executor
    .select()
    .from<T>(table as never)
    .where(eq(table.id, id))
    .limit(1)
    .as(alias);
}
