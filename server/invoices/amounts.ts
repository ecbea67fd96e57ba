/**
 * The arithmetic of invoices and credit notes, in integer cents: VAT per rate, and how a refund
 * is split over an invoice's rates so that every credit note is exact to the cent and, refund
 * after refund, never credits more of a rate (or of its VAT) than the invoice charged.
 */
import type { DocumentLine, TaxBreakdownEntry } from '@/db/schema';
import { divideRoundHalfUp, spreadByLargestRemainder } from '../kit/rounding';

/** The lines' net and VAT summed per rate, in the order the rates first appear. */
export function taxBreakdownOf(lines: readonly DocumentLine[]): TaxBreakdownEntry[] {
  const byRate = new Map<number, TaxBreakdownEntry>();
  for (const line of lines) {
    const entry = byRate.get(line.tax_rate) ?? { rate: line.tax_rate, amount_net: 0, amount_tax: 0 };
    entry.amount_net += line.amount_subtotal;
    entry.amount_tax += line.amount_tax;
    byRate.set(line.tax_rate, entry);
  }
  return [...byRate.values()];
}

/** A breakdown's totals. */
export function sumBreakdown(entries: readonly TaxBreakdownEntry[]): { subtotal: number; tax: number; total: number } {
  const subtotal = entries.reduce((sum, entry) => sum + entry.amount_net, 0);
  const tax = entries.reduce((sum, entry) => sum + entry.amount_tax, 0);
  return { subtotal, tax, total: subtotal + tax };
}

const gross = (entry: TaxBreakdownEntry) => entry.amount_net + entry.amount_tax;

/**
 * `amount` split over the invoice's rates in proportion to their totals (largest remainder, so
 * the shares sum to `amount` exactly), each share capped at what is still uncredited of its rate
 * and any excess moved to rates with room. Within a rate the VAT credited so far always equals
 * round_half_up(credited gross × the rate's VAT / its gross): it never passes the invoice's VAT
 * for the rate, and the refund that completes a rate credits exactly what is left of it.
 *
 * `credited`: the breakdowns of the credit notes already issued against the invoice. The caller
 * guarantees `amount` is at most what remains uncredited of the invoice.
 */
export function splitCredit(invoice: readonly TaxBreakdownEntry[], credited: readonly TaxBreakdownEntry[], amount: number): TaxBreakdownEntry[] {
  const creditedOf = (rate: number) => {
    const entries = credited.filter((entry) => entry.rate === rate);
    return { gross: entries.reduce((sum, entry) => sum + gross(entry), 0), tax: entries.reduce((sum, entry) => sum + entry.amount_tax, 0) };
  };
  const rates = invoice.map((entry) => ({ entry, credited: creditedOf(entry.rate) }));
  const room = rates.map(({ entry, credited: before }) => gross(entry) - before.gross);

  const shares = spreadByLargestRemainder(
    amount,
    rates.map(({ entry }) => gross(entry)),
  );
  // Never more of a rate than remains of it: the excess goes where there is room, most room first.
  let excess = 0;
  shares.forEach((share, index) => {
    const capped = Math.min(share, room[index]!);
    excess += share - capped;
    shares[index] = capped;
  });
  for (const index of room.map((_, index) => index).sort((a, b) => room[b]! - shares[b]! - (room[a]! - shares[a]!))) {
    const moved = Math.min(excess, room[index]! - shares[index]!);
    shares[index]! += moved;
    excess -= moved;
  }

  return rates.flatMap(({ entry, credited: before }, index) => {
    const share = shares[index]!;
    if (share === 0) return [];
    const rateGross = BigInt(gross(entry));
    const taxAfter = Number(divideRoundHalfUp(BigInt(before.gross + share) * BigInt(entry.amount_tax), rateGross));
    const tax = Math.min(share, Math.max(0, taxAfter - before.tax));
    return [{ rate: entry.rate, amount_net: share - tax, amount_tax: tax }];
  });
}
