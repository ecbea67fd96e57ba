/** When payouts fall due: the schedule dates, 00:00 UTC on the store's clock. */
import type { PayoutSchedule } from '@/db/schema';

const DAY_MS = 86_400_000;

/** The first Monday 00:00 UTC after `now` (a Monday's midnight itself is the date just passed). */
export function nextWeeklyPayout(now: Date): Date {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // getUTCDay: 0 Sunday … 6 Saturday; Monday is 1.
  const daysAhead = (8 - now.getUTCDay()) % 7 || 7;
  return new Date(midnight + daysAhead * DAY_MS);
}

/** The next schedule date after `now`; null when payouts are made only when asked. */
export function nextPayoutDate(schedule: PayoutSchedule, now: Date): Date | null {
  switch (schedule) {
    case 'weekly':
      return nextWeeklyPayout(now);
    case 'monthly':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    case 'manual':
      return null;
  }
}

/** The latest schedule date at or before `now`; null when payouts are made only when asked. */
export function lastPayoutDate(schedule: PayoutSchedule, now: Date): Date | null {
  switch (schedule) {
    case 'weekly':
      return new Date(nextWeeklyPayout(now).getTime() - 7 * DAY_MS);
    case 'monthly':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    case 'manual':
      return null;
  }
}
