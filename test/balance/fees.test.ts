import { describe, expect, it } from 'vitest';
import { feeDescription, platformFee } from '@/server/balance/ledger';
import { nextWeeklyPayout } from '@/server/balance/schedule';
import { loadConfig, parseFeePercent } from '@/server/config';
import { formatEuros, formatFeePercent } from '@/server/kit/fees';

describe('fee rates', () => {
  it('a percentage with at most two decimals is read exactly, in hundredths; anything else is refused', () => {
    expect(['0', '5', '2.5', '2.50', '12.34', '0.05', '100', '100.00'].map(parseFeePercent)).toEqual([0, 500, 250, 250, 1234, 5, 10000, 10000]);
    for (const text of ['', '5.125', '100.01', '101', '-1', '1e2', '5%', '.5', '5.', 'five']) expect(parseFeePercent(text), text).toBeUndefined();
  });

  it('reads as the description shows it', () => {
    expect([500, 250, 1234, 5, 10, 0, 10000].map(formatFeePercent)).toEqual(['5', '2.5', '12.34', '0.05', '0.1', '0', '100']);
    expect([50, 0, 5, 1234, 100].map(formatEuros)).toEqual(['0.50', '0.00', '0.05', '12.34', '1.00']);
    expect(feeDescription({ basisPoints: 250, fixed: 30 }, 'INV-7KQ2MX-000001')).toBe('Fee 2.5% + 0.30 EUR on INV-7KQ2MX-000001');
  });

  it('the fee: the percentage rounded half up to the cent, plus the fixed part, at most the net', () => {
    const defaults = { basisPoints: 500, fixed: 50 };
    expect(platformFee(1190, 190, defaults)).toBe(110); // 59.5 → 60
    expect(platformFee(1189, 190, defaults)).toBe(109); // 59.45 → 59
    expect(platformFee(990, 0, defaults)).toBe(100); // 49.5 → 50
    expect(platformFee(50, 0, defaults)).toBe(50); // 3 + 50 capped at 50
    expect(platformFee(119, 19, { basisPoints: 5000, fixed: 50 })).toBe(100); // 60 + 50 capped at the net of 100
    expect(platformFee(2379, 380, { basisPoints: 250, fixed: 0 })).toBe(59); // 59.475 → 59
    expect(platformFee(2_000_000_000, 0, { basisPoints: 10000, fixed: 0 })).toBe(2_000_000_000);
  });

  it('PLATFORM_FEE_PERCENT, PLATFORM_FEE_FIXED, PAYOUT_HOLD_DAYS, PAYOUT_MINIMUM and DISPUTE_FEE, with their defaults', () => {
    expect(loadConfig({}).ledger).toEqual({ defaultFees: { basisPoints: 500, fixed: 50 }, payoutHoldDays: 7, payoutMinimum: 1000, disputeFee: 1500 });
    expect(loadConfig({ PLATFORM_FEE_PERCENT: '2.9', PLATFORM_FEE_FIXED: '0', PAYOUT_HOLD_DAYS: '0', PAYOUT_MINIMUM: '500', DISPUTE_FEE: '0' }).ledger).toEqual({
      defaultFees: { basisPoints: 290, fixed: 0 },
      payoutHoldDays: 0,
      payoutMinimum: 500,
      disputeFee: 0,
    });
    expect(() => loadConfig({ DISPUTE_FEE: '-1' })).toThrow(/DISPUTE_FEE/);
    expect(() => loadConfig({ PLATFORM_FEE_PERCENT: '2.999' })).toThrow(/PLATFORM_FEE_PERCENT must be a percentage from 0 to 100 with at most two decimals/);
    expect(() => loadConfig({ PLATFORM_FEE_FIXED: '0.5' })).toThrow(/PLATFORM_FEE_FIXED must be a whole number/);
    expect(() => loadConfig({ PAYOUT_MINIMUM: '0' })).toThrow(/PAYOUT_MINIMUM must be a positive integer/);
  });
});

describe('the weekly payout date', () => {
  it('is the next Monday 00:00 UTC; on a Monday at midnight, the one after', () => {
    expect(nextWeeklyPayout(new Date('2026-03-01T12:00:00Z'))).toEqual(new Date('2026-03-02T00:00:00Z')); // Sunday
    expect(nextWeeklyPayout(new Date('2026-03-02T00:00:00Z'))).toEqual(new Date('2026-03-09T00:00:00Z')); // Monday, midnight
    expect(nextWeeklyPayout(new Date('2026-03-02T23:59:59Z'))).toEqual(new Date('2026-03-09T00:00:00Z'));
    expect(nextWeeklyPayout(new Date('2026-03-07T08:00:00Z'))).toEqual(new Date('2026-03-09T00:00:00Z')); // Saturday
    expect(nextWeeklyPayout(new Date('2026-12-29T08:00:00Z'))).toEqual(new Date('2027-01-04T00:00:00Z')); // across a year
  });
});
