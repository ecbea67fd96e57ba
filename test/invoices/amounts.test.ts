import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaxBreakdownEntry } from '@/db/schema';
import { splitCredit, sumBreakdown, taxBreakdownOf } from '@/server/invoices/amounts';
import { documentNumber, storeCode } from '@/server/invoices/numbering';

/** The arithmetic of credit notes and the form of document numbers. */

const gross = (entry: TaxBreakdownEntry) => entry.amount_net + entry.amount_tax;

/** An invoice's breakdown: 1–4 distinct rates, each with a gross total and the VAT within it. */
const invoiceBreakdown = fc
  .uniqueArray(fc.integer({ min: 0, max: 27 }), { minLength: 1, maxLength: 4 })
  .chain((rates) =>
    fc.tuple(
      ...rates.map((rate) =>
        fc.integer({ min: 1, max: 2_000_000 }).map((total) => ({ rate, amount_tax: Math.round((total * rate) / (100 + rate)), amount_net: total - Math.round((total * rate) / (100 + rate)) })),
      ),
    ),
  );

describe('splitCredit', () => {
  it('each credit sums to its refund exactly; refund after refund, no rate (nor its VAT) is credited beyond the invoice; the last completes every rate', () => {
    fc.assert(
      fc.property(invoiceBreakdown, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }), (invoice, fractions) => {
        const total = invoice.reduce((sum, entry) => sum + gross(entry), 0);
        const credited: TaxBreakdownEntry[] = [];
        let remaining = total;
        // Refunds of random parts of what remains, then the rest.
        const amounts = fractions.map((fraction) => Math.floor(fraction * remaining)).filter((amount) => amount > 0);
        const refunds: number[] = [];
        for (const amount of amounts) {
          const take = Math.min(amount, remaining);
          if (take > 0) refunds.push(take);
          remaining -= take;
        }
        if (remaining > 0) refunds.push(remaining);
        for (const amount of refunds) {
          const credit = splitCredit(invoice, credited, amount);
          expect(sumBreakdown(credit).total).toBe(amount);
          for (const entry of credit) {
            expect(entry.amount_net).toBeGreaterThanOrEqual(0);
            expect(entry.amount_tax).toBeGreaterThanOrEqual(0);
          }
          credited.push(...credit);
          for (const rate of invoice) {
            const sofar = credited.filter((entry) => entry.rate === rate.rate);
            expect(sofar.reduce((sum, entry) => sum + gross(entry), 0)).toBeLessThanOrEqual(gross(rate));
            expect(sofar.reduce((sum, entry) => sum + entry.amount_tax, 0)).toBeLessThanOrEqual(rate.amount_tax);
          }
        }
        for (const rate of invoice) {
          const all = credited.filter((entry) => entry.rate === rate.rate);
          expect([all.reduce((sum, entry) => sum + entry.amount_net, 0), all.reduce((sum, entry) => sum + entry.amount_tax, 0)]).toEqual([rate.amount_net, rate.amount_tax]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a first refund splits in proportion to the rates’ totals (largest remainder)', () => {
    const invoice = [
      { rate: 19, amount_net: 10000, amount_tax: 1900 },
      { rate: 7, amount_net: 935, amount_tax: 65 },
    ];
    expect(splitCredit(invoice, [], 3333)).toEqual([
      { rate: 19, amount_net: 2584, amount_tax: 491 },
      { rate: 7, amount_net: 241, amount_tax: 17 },
    ]);
    expect(splitCredit(invoice, [], 12900)).toEqual(invoice);
    expect(splitCredit(invoice, [], 1)).toEqual([{ rate: 19, amount_net: 1, amount_tax: 0 }]);
  });

  it('taxBreakdownOf sums the lines per rate, in the order the rates first appear', () => {
    const line = (rate: number, net: number, tax: number) => ({ description: 'x', quantity: 1, unit_amount: net, amount_subtotal: net, tax_rate: rate, amount_tax: tax, amount_total: net + tax });
    expect(taxBreakdownOf([line(7, 100, 7), line(19, 1000, 190), line(7, 50, 4), line(0, 300, 0)])).toEqual([
      { rate: 7, amount_net: 150, amount_tax: 11 },
      { rate: 19, amount_net: 1000, amount_tax: 190 },
      { rate: 0, amount_net: 300, amount_tax: 0 },
    ]);
  });
});

describe('document numbers', () => {
  it('TEST- in test mode, the kind, the store’s six characters, six digits and more once past 999999', () => {
    const code = storeCode(1);
    expect(code).toMatch(/^[0-9A-Z]{6}$/);
    expect(documentNumber('invoice', { storeId: 'x', livemode: false }, 1, 1)).toBe(`TEST-INV-${code}-000001`);
    expect(documentNumber('credit_note', { storeId: 'x', livemode: true }, 1, 42)).toBe(`CN-${code}-000042`);
    expect(documentNumber('invoice', { storeId: 'x', livemode: true }, 1, 1_234_567)).toBe(`INV-${code}-1234567`);
  });

  it('distinct stores never share a code', () => {
    const codes = new Set(Array.from({ length: 20_000 }, (_, i) => storeCode(i + 1)));
    expect(codes.size).toBe(20_000);
    fc.assert(fc.property(fc.integer({ min: 1, max: 2_000_000_000 }), fc.integer({ min: 1, max: 2_000_000_000 }), (a, b) => (a === b) === (storeCode(a) === storeCode(b))));
  });
});
