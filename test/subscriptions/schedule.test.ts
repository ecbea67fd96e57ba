import { describe, expect, it } from 'vitest';
import { periodBoundary } from '@/server/subscriptions/schedule';

const at = (iso: string) => new Date(iso);

describe('billing period boundaries', () => {
  it('months are counted from the anchor, clamped to the month end without drifting', () => {
    const anchor = at('2026-01-31T10:00:00Z');
    expect(periodBoundary(anchor, 'month', 1, 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(periodBoundary(anchor, 'month', 1, 2).toISOString()).toBe('2026-03-31T10:00:00.000Z');
    expect(periodBoundary(at('2027-12-31T00:00:00Z'), 'month', 2, 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('years keep 29 February on leap years only', () => {
    const anchor = at('2028-02-29T12:00:00Z');
    expect(periodBoundary(anchor, 'year', 1, 1).toISOString()).toBe('2029-02-28T12:00:00.000Z');
    expect(periodBoundary(anchor, 'year', 1, 4).toISOString()).toBe('2032-02-29T12:00:00.000Z');
  });

  it('days and weeks are fixed lengths, times interval_count', () => {
    const anchor = at('2026-03-01T00:00:00Z');
    expect(periodBoundary(anchor, 'day', 3, 2).toISOString()).toBe('2026-03-07T00:00:00.000Z');
    expect(periodBoundary(anchor, 'week', 2, 1).toISOString()).toBe('2026-03-15T00:00:00.000Z');
    expect(periodBoundary(anchor, 'week', 1, 0)).toEqual(anchor);
  });
});
