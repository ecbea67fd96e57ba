/**
 * Scheduled payouts: the first pass after a schedule date makes at most one payout per store and
 * environment, however many dates passed, and none under a hold or below the minimum. Each date
 * is taken up once (the store's row, locked, records the last one), and the unique schedule date
 * of payouts keeps it so across instances and workers. The background pass runs within a minute of
 * a date; advance_clock runs the store's test mode before it answers.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { stores, type PayoutSchedule } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import { lastPayoutDate } from '../balance/schedule';
import { storeClock, type Clock } from '../clock';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import { newId } from '../ids';
import type { Scope } from '../kit/scope';
import { attemptPayout, lockPayoutStore } from './service';

export interface ScheduledPayoutDeps {
  db: Database;
  /** Wall time: each store's clock follows from it. */
  clock: Clock;
  config: { ledger: { payoutMinimum: number } };
}

const ENVIRONMENTS = [false, true] as const;

/** Takes up the scope's latest schedule date if no pass did yet: whether a payout was made. */
async function payOutScheduled(deps: ScheduledPayoutDeps, scope: Scope): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const store = await lockPayoutStore(tx, scope, deps.clock);
    const date = store && lastPayoutDate(store.schedule, store.now);
    if (!store || !date || (store.scheduledThrough !== null && store.scheduledThrough.getTime() >= date.getTime())) return false;
    await tx
      .update(stores)
      .set(scope.livemode ? { payoutsScheduledThroughLive: date } : { payoutsScheduledThroughTest: date })
      .where(eq(stores.id, scope.storeId));
    const attempt = await attemptPayout(tx, scope, store, { minimum: deps.config.ledger.payoutMinimum, wallNow: deps.clock.now() }, { id: newId('po', scope.livemode), scheduledFor: date });
    return 'made' in attempt;
  });
}

/** Whether a schedule date passed since the last one taken up, read without a lock (the payout transaction decides). */
function scheduleDatePassed(schedule: PayoutSchedule, now: Date, scheduledThrough: Date | null): boolean {
  const date = lastPayoutDate(schedule, now);
  return date !== null && (scheduledThrough === null || scheduledThrough.getTime() < date.getTime());
}

/** One pass over every store (or `only` one scope): the payouts made. */
export async function runScheduledPayouts(deps: ScheduledPayoutDeps, only?: Scope): Promise<number> {
  const rows = await deps.db
    .select({
      id: stores.id,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
      scheduleLive: stores.payoutScheduleLive,
      scheduleTest: stores.payoutScheduleTest,
      throughLive: stores.payoutsScheduledThroughLive,
      throughTest: stores.payoutsScheduledThroughTest,
    })
    .from(stores)
    .where(only === undefined ? undefined : eq(stores.id, only.storeId));
  let made = 0;
  for (const row of rows) {
    for (const livemode of ENVIRONMENTS) {
      if (only !== undefined && only.livemode !== livemode) continue;
      const now = storeClock(deps.clock, { livemode, testClockOffsetSeconds: row.testClockOffsetSeconds }).now();
      const due = livemode ? scheduleDatePassed(row.scheduleLive, now, row.throughLive) : scheduleDatePassed(row.scheduleTest, now, row.throughTest);
      if (due && (await payOutScheduled(deps, { storeId: row.id, livemode }))) made += 1;
    }
  }
  return made;
}

/** advance_clock: the store's test mode paid out if a schedule date passed. */
export const scheduledPayoutsDueJob: DueJob = (services, scope) => runScheduledPayouts(services, scope);

/** Often enough that a payout follows its schedule date within a minute. */
const PASS_INTERVAL_MS = 30_000;

/** The background task (server/background-tasks.ts). */
export function startScheduledPayoutJob(services: Services): PeriodicTask {
  return startPeriodic('scheduled payouts', () => runScheduledPayouts(services), { intervalMs: PASS_INTERVAL_MS });
}
