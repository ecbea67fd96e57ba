/**
 * The dashboard's audit log: a store's entries, newest first, a page at a time by keyset on
 * (created_at, id), filtered by action, by who acted and by time. Each filter walks an index made
 * for it (db/schema/audit.ts), so a store with a long trail still answers at once.
 */
import { and, desc, eq, gte, isNull, like, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { auditEvents } from '@/db/schema';
import { epochSeconds } from '../clock';
import { ApiError } from '../errors';
import type { Scope } from '../kit/scope';

export interface AuditFilters {
  /** An action (`refund.create`), or a prefix ending in a dot (`refund.`) for every action under it. */
  action?: string;
  /** Who acted, exactly: an API key's hint (`sk_test_…abcd`) or a person (`user:<email>`). */
  actor?: string;
  /** Epoch seconds, both inclusive. */
  createdGte?: number;
  createdLte?: number;
  /** The id of the last entry of the previous page. */
  startingAfter?: number;
  limit: number;
}

export interface AuditEntryView {
  id: number;
  action: string;
  code: string | null;
  /** An API key's hint or `user:<email>`; null for an unauthenticated attempt. */
  who: string | null;
  /** Null for an entry of the store as a whole (its name, its team, a person's account). */
  livemode: boolean | null;
  ip: string | null;
  method: string | null;
  path: string | null;
  details: Record<string, unknown> | null;
  created: number;
}

export interface AuditPage {
  data: AuditEntryView[];
  has_more: boolean;
}

/** `%` and `_` typed in a prefix are themselves, not wildcards. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function actionFilter(action: string): SQL {
  return action.endsWith('.') ? like(auditEvents.action, `${escapeLike(action)}%`) : eq(auditEvents.action, action);
}

/**
 * The store's entries seen from one mode's page. An entry without a mode (livemode null: a
 * rename, a team change, a person's password change) concerns the store in both modes, so it
 * appears on both pages; hiding it from either would hide who changed the team from that page.
 * Entries of the other mode never appear.
 */
export async function listAuditEntries(db: Executor, scope: Scope, filters: AuditFilters): Promise<AuditPage> {
  const conditions: (SQL | undefined)[] = [eq(auditEvents.storeId, scope.storeId), or(eq(auditEvents.livemode, scope.livemode), isNull(auditEvents.livemode))];
  if (filters.action) conditions.push(actionFilter(filters.action));
  if (filters.actor) conditions.push(eq(auditEvents.keyHint, filters.actor));
  if (filters.createdGte !== undefined) conditions.push(gte(auditEvents.createdAt, new Date(filters.createdGte * 1000)));
  // Inclusive to the second: everything before the next one.
  if (filters.createdLte !== undefined) conditions.push(lt(auditEvents.createdAt, new Date((filters.createdLte + 1) * 1000)));
  if (filters.startingAfter !== undefined) {
    const cursor = and(eq(auditEvents.id, filters.startingAfter), eq(auditEvents.storeId, scope.storeId));
    const [found] = await db.select({ id: auditEvents.id }).from(auditEvents).where(cursor);
    // Another store's entry reads as no entry at all.
    if (!found) throw new ApiError('resource_missing', `No audit entry '${filters.startingAfter}'.`, { param: 'starting_after' });
    // Compared in the database: created_at has microseconds, which a JavaScript Date would round off.
    conditions.push(sql`(${auditEvents.createdAt}, ${auditEvents.id}) < (select ${auditEvents.createdAt}, ${auditEvents.id} from ${auditEvents} where ${cursor})`);
  }
  const rows = await db
    .select()
    .from(auditEvents)
    .where(and(...conditions))
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(filters.limit + 1);
  return {
    data: rows.slice(0, filters.limit).map((row) => ({
      id: row.id,
      action: row.action,
      code: row.code,
      who: row.keyHint,
      livemode: row.livemode,
      ip: row.ip,
      method: row.method,
      path: row.path,
      details: row.details,
      created: epochSeconds(row.createdAt),
    })),
    has_more: rows.length > filters.limit,
  };
}
