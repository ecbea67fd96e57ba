import { and, eq, lte } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { checkoutSessions, subscriptionCheckouts } from '@/db/schema';
import { ownedBy, type Scope } from './scope';

/** How long a link or session may live, in seconds from its creation. */
export interface Lifetime {
  min: number;
  max: number;
  /** Used when the caller asks for no particular expiry. */
  default: number;
}

/** A requested `expires_at` (epoch seconds) pulled into [now + min, now + max]; none asked: now + default. */
export function clampExpiry(nowSeconds: number, requested: number | undefined, lifetime: Lifetime): number {
  if (requested === undefined) return nowSeconds + lifetime.default;
  return Math.min(Math.max(requested, nowSeconds + lifetime.min), nowSeconds + lifetime.max);
}

/** Tables whose rows go `open` → `expired` when their `expiresAt` passes. */
type ExpiringTable = typeof checkoutSessions | typeof subscriptionCheckouts;

/** Status as of `now`: an open row whose deadline has passed is expired, even before that is written. */
export function isDue(row: { status: string; expiresAt: Date }, now: Date): boolean {
  return row.status === 'open' && now.getTime() >= row.expiresAt.getTime();
}

/**
 * `open` → `expired` once the deadline passes, written lazily when a row is read. Conditional on
 * `open`, so a payment that completes at the same moment is never overwritten; the row is
 * returned as it now stands.
 */
export async function withExpiryApplied<Table extends ExpiringTable>(db: Executor, table: Table, row: Table['$inferSelect'], now: Date): Promise<Table['$inferSelect']> {
  if (!isDue(row, now)) return row;
  const expiring: ExpiringTable = table;
  const [expired] = await db
    .update(expiring)
    .set({ status: 'expired' })
    .where(and(eq(expiring.id, row.id), eq(expiring.status, 'open'), lte(expiring.expiresAt, now)))
    .returning();
  if (expired) return expired as Table['$inferSelect'];
  const [current] = await db.select().from(expiring).where(eq(expiring.id, row.id));
  return (current as Table['$inferSelect'] | undefined) ?? row;
}

/** Every open row of one store and environment past its deadline becomes `expired`; returns how many changed. */
export async function expireDueRows(db: Executor, table: ExpiringTable, scope: Scope, now: Date): Promise<number> {
  const expired = await db
    .update(table)
    .set({ status: 'expired' })
    .where(and(ownedBy(table, scope), eq(table.status, 'open'), lte(table.expiresAt, now)))
    .returning({ id: table.id });
  return expired.length;
}
