import { sql } from 'drizzle-orm';
import { stores } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds, storeClock } from '../clock';
import type { Services } from '../context';
import { ApiError } from '../errors';
import type { Scope } from '../kit/scope';
import { advanceTestDeliveries } from '../webhooks/delivery';
import { runDueJobs } from './jobs';
import { MAX_CLOCK_AHEAD_SECONDS, type TestClockView } from './schemas';

/**
 * POST /test_helpers/advance_clock: adds to the store's offset in one UPDATE, so two
 * concurrent advances both count, and brings the store's webhook retries forward in the same
 * transaction with its audit entry; then runs what fell due
 * before answering with the new time.
 */
export async function advanceTestClock(deps: Services & { actor: Actor }, subject: Scope, seconds: number): Promise<TestClockView> {
  if (subject.livemode) {
    throw new ApiError('test_mode_only', 'The test clock exists in test mode only: use a test secret key (sk_test_…).');
  }
  const row = await deps.db.transaction(async (tx) => {
    const [moved] = await tx
      .update(stores)
      .set({ testClockOffsetSeconds: sql`${stores.testClockOffsetSeconds} + ${seconds}` })
      .where(sql`${stores.id} = ${subject.storeId} and ${stores.testClockOffsetSeconds} <= ${MAX_CLOCK_AHEAD_SECONDS - seconds}`)
      .returning({ offset: stores.testClockOffsetSeconds });
    if (moved) await advanceTestDeliveries(tx, subject.storeId, seconds);
    if (moved) await recordAudit(tx, actorAudit(subject, deps.actor, 'test_clock.advance', { seconds }));
    return moved;
  });
  if (!row) {
    throw new ApiError('parameter_invalid', `The test clock cannot move that far: it never runs more than 5 × 365 days (${MAX_CLOCK_AHEAD_SECONDS} seconds) ahead of the real time.`, {
      param: 'seconds',
    });
  }
  const now = storeClock(deps.clock, { livemode: false, testClockOffsetSeconds: row.offset }).now();
  await runDueJobs(deps, { storeId: subject.storeId, livemode: false }, now);
  return { object: 'test_clock', now: epochSeconds(now) };
}
