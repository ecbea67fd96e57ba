/**
 * Leases: how a background pass claims the rows it works on, so that any number of processes
 * (web instances and workers on one PostgreSQL) run it side by side and no two work on, or ask
 * the gateway about, the same row at once. A lease is a time on the row: taken by one statement
 * that locks a free row (SKIP LOCKED passes over a row another process is taking that instant)
 * and stamps it; given back as soon as the row's work is done. A process killed meanwhile holds
 * it only until that time passes; then any pass takes the row again. So work under a lease must
 * be safe to repeat: gateway calls carry the row's idempotency key, settlements are conditional.
 */
import { and, eq, inArray, isNull, lte, notInArray, or, type SQL } from 'drizzle-orm';
import type { Database } from '@/db/client';
import type { emails, paymentAttempts, paymentMethodUpdates, planChanges, refunds, subscriptionCharges } from '@/db/schema';

/** Tables whose rows background passes lease (a `leased_until` column: null or past means free). */
type LeasedTable = typeof paymentAttempts | typeof refunds | typeof subscriptionCharges | typeof paymentMethodUpdates | typeof planChanges | typeof emails;

export interface LeasedPass {
  /** The rows that need the work. */
  where: SQL | undefined;
  /** Which go first. */
  orderBy: SQL[];
  /** Rows one pass works on at most. */
  limit: number;
  /** Wall clock. */
  now: () => Date;
  leaseMs: number;
}

/**
 * Runs `work` on up to `limit` rows, one at a time, each under its own lease taken just before
 * its work and given back right after (whatever the work did or threw), so a lease covers one
 * row's work, never a whole pass. A pass takes each row once. Returns how many calls of `work`
 * answered true.
 */
export async function forEachLeased<Table extends LeasedTable>(db: Database, table: Table, pass: LeasedPass, work: (row: Table['$inferSelect']) => Promise<boolean>): Promise<number> {
  const leased: LeasedTable = table;
  const taken: string[] = [];
  let counted = 0;
  while (taken.length < pass.limit) {
    const now = pass.now();
    const until = new Date(now.getTime() + pass.leaseMs);
    const next = db
      .select({ id: leased.id })
      .from(leased)
      .where(and(pass.where, or(isNull(leased.leasedUntil), lte(leased.leasedUntil, now)), taken.length > 0 ? notInArray(leased.id, taken) : undefined))
      .orderBy(...pass.orderBy)
      .limit(1)
      .for('update', { skipLocked: true });
    const [row] = await db.update(leased).set({ leasedUntil: until }).where(inArray(leased.id, next)).returning();
    if (!row) break;
    taken.push(row.id);
    try {
      if (await work(row as Table['$inferSelect'])) counted += 1;
    } finally {
      // Only our own lease: past its time another pass may hold the row now.
      await db
        .update(leased)
        .set({ leasedUntil: null })
        .where(and(eq(leased.id, row.id), eq(leased.leasedUntil, until)));
    }
  }
  return counted;
}
