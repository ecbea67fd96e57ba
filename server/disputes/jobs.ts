/**
 * The disputes' background work: their deadlines, and the erasure of the buyer data kept for them.
 *
 * The deadlines: once `evidence_due_by` passes on the store's clock, saved evidence is
 * submitted and a dispute without any is lost; test mode then decides the outcome from the
 * evidence text (./service.ts, applyDeadline). Each dispute is taken up in its own transaction
 * with its order and itself locked, and only while still due, so instances and workers running
 * the pass at once decide each dispute once. The background pass runs within a minute of a
 * deadline; advance_clock runs the store's test mode before it answers.
 */
import { and, asc, eq, inArray, lte, or } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { disputes, stores } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import { storeNowSql, type Clock } from '../clock';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import type { Scope } from '../kit/scope';
import { eraseExpiredBuyerData } from './buyer-data';
import { applyDeadline, lockDueDispute, type LostDisputeEffects } from './service';

export interface DisputeDeadlineDeps {
  db: Database;
  /** Wall time: each store's clock follows from it. */
  clock: Clock;
}

/** Disputes taken up per pass at most: the next pass continues. */
const BATCH = 100;

/** Decides every dispute whose deadline passed (of one store's scope with `only`): how many changed. */
export async function runDisputeDeadlines(deps: DisputeDeadlineDeps, effects: LostDisputeEffects, only?: Scope): Promise<number> {
  const wallNow = deps.clock.now();
  const storeNow = storeNowSql(wallNow, disputes.livemode, stores.testClockOffsetSeconds);
  const due = await deps.db
    .select({ id: disputes.id })
    .from(disputes)
    .innerJoin(stores, eq(stores.id, disputes.storeId))
    .where(
      and(
        inArray(disputes.status, ['needs_response', 'under_review']),
        // A live dispute under review waits for the acquirer's outcome, which the operator records.
        or(eq(disputes.status, 'needs_response'), eq(disputes.livemode, false)),
        lte(disputes.evidenceDueBy, storeNow),
        only === undefined ? undefined : and(eq(disputes.storeId, only.storeId), eq(disputes.livemode, only.livemode)),
      ),
    )
    .orderBy(asc(disputes.evidenceDueBy))
    .limit(BATCH);
  let changed = 0;
  for (const { id } of due) {
    const decided = await deps.db.transaction(async (tx) => {
      const locked = await lockDueDispute(tx, id, deps.clock);
      if (!locked) return false;
      await applyDeadline(tx, locked.dispute, effects, locked.times);
      return true;
    });
    if (decided) changed += 1;
  }
  return changed;
}

/** advance_clock: the store's test disputes whose deadline the move passed. */
export const disputeDeadlinesDueJob =
  (effects: LostDisputeEffects): DueJob =>
  (services, scope) =>
    runDisputeDeadlines(services, effects, scope);

/** Often enough that a deadline is applied within a minute. */
const PASS_INTERVAL_MS = 30_000;

/** The background task (server/background-tasks.ts). */
export function startDisputeDeadlineJob(services: Services, effects: LostDisputeEffects): PeriodicTask {
  return startPeriodic('dispute deadlines', () => runDisputeDeadlines(services, effects), { intervalMs: PASS_INTERVAL_MS });
}

/** advance_clock: the store's test payments the move took past the time their buyer's address and user agent are kept. */
export const buyerDataErasureDueJob: DueJob = (services, scope) => eraseExpiredBuyerData(services.db, services.clock.now(), scope);

/** A payment's buyer data is erased within the hour its time is up. */
const ERASURE_INTERVAL_MS = 60 * 60_000;

/** The background task (server/background-tasks.ts). */
export function startBuyerDataErasureJob(services: Pick<Services, 'db' | 'clock'>): PeriodicTask {
  return startPeriodic('buyer data erasure', () => eraseExpiredBuyerData(services.db, services.clock.now()), { intervalMs: ERASURE_INTERVAL_MS });
}
