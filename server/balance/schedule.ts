/** When payouts fall due: the schedule dates, 00:00 UTC on the store's clock. */

const DAY_MS = 86_400_000;

/** The first Monday 00:00 UTC after `now` (a Monday's midnight itself is the date just passed). */
export function nextWeeklyPayout(now: Date): Date {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // getUTCDay: 0 Sunday … 6 Saturday; Monday is 1.
  const daysAhead = (8 - now.getUTCDay()) % 7 || 7;
  return new Date(midnight + daysAhead * DAY_MS);
}
