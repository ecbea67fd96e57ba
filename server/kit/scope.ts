/**
 * Tenancy: every row belongs to one store in one environment (test or live), and every lookup
 * made for a caller carries both in the same WHERE. Unknown, other-store and other-environment
 * ids then answer alike.
 */
import { and, eq, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';

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
