import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** The one source of "now"; tests inject their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** What a store's clock depends on: test mode reads the store's test clock. */
export interface ClockScope {
  livemode: boolean;
  testClockOffsetSeconds: number;
}

/** The clock of one store and environment: wall time in live mode, the test clock in test mode. */
export function storeClock(clock: Clock, scope: ClockScope): Clock {
  if (scope.livemode || scope.testClockOffsetSeconds === 0) return clock;
  const offsetMs = scope.testClockOffsetSeconds * 1000;
  return { now: () => new Date(clock.now().getTime() + offsetMs) };
}

/**
 * storeClock in SQL, for a pass over many stores: the store's now for a row of `livemode`, from the
 * wall time and its store's `test_clock_offset_seconds`.
 */
export function storeNowSql(wallNow: Date, livemode: SQLWrapper, testClockOffsetSeconds: SQLWrapper): SQL {
  return sql`(${wallNow.toISOString()}::timestamptz + case when ${livemode} then interval '0 seconds' else ${testClockOffsetSeconds} * interval '1 second' end)`;
}
