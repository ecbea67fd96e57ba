import { and, eq, lte, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import type { checkoutSessions, subscriptionCheckouts } from '@/db/schema';
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

/**
 * Turns the open rows `which` selects into expired ones and returns them. Each table has one such
 * function (checkout sessions: expireCheckoutSessions), which every path that expires a row calls.
 */
export type ExpireRows<Row> = (db: Executor, which: SQL) => Promise<Row[]>;

/**
 * The write itself: conditional on `open`, so a payment that completes at the same moment is
 * never overwritten.
 */
export function markExpired<Table extends ExpiringTable>(table: Table): ExpireRows<Table['$inferSelect']> {
  const expiring: ExpiringTable = table;
  return async (db, which) =>
    (await db
      .update(expiring)
      .set({ status: 'expired' })
      .where(and(which, eq(expiring.status, 'open')))
      .returning()) as Table['$inferSelect'][];
}

/** Status as of `now`: an open row whose deadline has passed is expired, even before that is written. */
export function isDue(row: { status: string; expiresAt: Date }, now: Date): boolean {
  return row.status === 'open' && now.getTime() >= row.expiresAt.getTime();
}

/**
 * `open` → `expired` once the deadline passes, written lazily when a row is read (through the
 * table's `expire`); the row is returned as it now stands.
 */
export async function withExpiryApplied<Table extends ExpiringTable>(
  db: Executor,
  table: Table,
  row: Table['$inferSelect'],
  now: Date,
  expire: ExpireRows<Table['$inferSelect']>,
): Promise<Table['$inferSelect']> {
  if (!isDue(row, now)) return row;
  const expiring: ExpiringTable = table;
  const [expired] = await expire(db, and(eq(expiring.id, row.id), lte(expiring.expiresAt, now))!);
  if (expired) return expired;
  const [current] = await db.select().from(expiring).where(eq(expiring.id, row.id));
  return (current as Table['$inferSelect'] | undefined) ?? row;
}

/** Every open row of one store and environment past its deadline becomes `expired` (through the table's `expire`); returns how many changed. */
export async function expireDueRows<Table extends ExpiringTable>(db: Executor, table: Table, scope: Scope, now: Date, expire: ExpireRows<Table['$inferSelect']>): Promise<number> {
  const expiring: ExpiringTable = table;
  const expired = await expire(db, and(ownedBy(expiring, scope), lte(expiring.expiresAt, now))!);
  return expired.length;
}
