import type { TaxTreatment } from '@/db/schema';
import { countryName } from '../countries';

/** How a page names an order's tax: the rates of its taxed lines (ascending, each once), and whether the prices contain it. */
export interface TaxLabel {
  rates: number[];
  inclusive: boolean;
  /** Where the store taxes by the buyer's country: that country (null until chosen) and how it is taxed. */
  buyer?: BuyerTaxFacts;
}

export interface BuyerTaxFacts {
  taxCountry: string | null;
  treatment: TaxTreatment | null;
}

type LabelLine = { amountTax: number; taxRate: number | null; taxInclusive: boolean };

/**
 * Taxed by the buyer's country, every line has its country's rate, even one too small to carry a
 * cent of VAT; otherwise only the lines that were taxed name it.
 */
export function taxLabelOf(lines: readonly LabelLine[], buyer?: BuyerTaxFacts): TaxLabel {
  const taxed = buyer ? lines : lines.filter((line) => line.amountTax > 0);
  const label = {
    rates: [...new Set(taxed.flatMap((line) => (line.taxRate === null ? [] : [line.taxRate])))].sort((a, b) => a - b),
    inclusive: taxed.length > 0 && taxed.every((line) => line.taxInclusive),
  };
  return buyer ? { ...label, buyer } : label;
}

/**
 * `VAT 19%`, `VAT 7% and 19% (included)`; plain `VAT` when nothing was taxed. By the buyer's
 * country: `VAT (select your country)` until it is known, then `VAT 19% (Germany)`,
 * `VAT 20% (Austria, included)`, `VAT 0% (reverse charge)` or `No EU VAT`.
 */
export function taxLineLabel(tax: TaxLabel): string {
  const rates = tax.rates.map((rate) => `${rate}%`);
  const listed = rates.length > 1 ? `${rates.slice(0, -1).join(', ')} and ${rates[rates.length - 1]}` : rates[0];
  const vat = `VAT${listed ? ` ${listed}` : ''}`;
  if (!tax.buyer) return `${vat}${tax.inclusive ? ' (included)' : ''}`;
  const { taxCountry, treatment } = tax.buyer;
  if (taxCountry === null || treatment === null) return 'VAT (select your country)';
  if (treatment === 'outside_eu') return 'No EU VAT';
  if (treatment === 'reverse_charge') return 'VAT 0% (reverse charge)';
  return `${vat} (${countryName(taxCountry)}${tax.inclusive ? ', included' : ''})`;
}
