/**
 * VAT by the buyer's country: where a sale is taxed, how (VAT of that country, reverse charge, or
 * none outside the EU), at which rate on the day, and what the documents say about it. Pure rules:
 * the hosted pages, the payment and the billing runs apply them to their own rows.
 */
import type { CustomerDetails, DocumentLanguage, TaxCategory, TaxEvidence, TaxTreatment } from '@/db/schema';
import { lineTaxAt, type LineAmounts } from '../kit/line-tax';
import { countryOfVatPrefix, isMemberState, vatAreaCountry } from '../kit/countries';
import type { RateTable } from '../kit/vat-rates';

/**
 * The operator's member state, from its VAT ID's prefix (`DE` for the demo value); null when that
 * is no member state (the non-Union scheme's `EU…`, a `GB…`): then every VAT ID is of another one.
 */
export function operatorCountryOf(operatorVatId: string): string | null {
  const country = countryOfVatPrefix(operatorVatId.trim().slice(0, 2).toUpperCase());
  return isMemberState(country) ? country : null;
}

export interface BuyerTaxFacts {
  /** The billing country as entered (ISO alpha-2). */
  billingCountry: string;
  /** A VAT ID that passed its checks (normalised, `EL…` for Greece), or null. */
  vatId: string | null;
  /** Whether reverse charge may rest on it: always in test mode, in live mode only when VIES confirmed it. */
  vatIdConfirmed: boolean;
  operatorCountry: string | null;
}

export interface BuyerTax {
  taxCountry: string;
  treatment: TaxTreatment;
}

/** Where and how a buyer is taxed. */
export function buyerTaxOf(facts: BuyerTaxFacts): BuyerTax {
  const taxCountry = vatAreaCountry(facts.billingCountry);
  if (!isMemberState(taxCountry)) return { taxCountry, treatment: 'outside_eu' };
  const vatIdCountry = facts.vatId === null ? null : countryOfVatPrefix(facts.vatId.slice(0, 2));
  if (vatIdCountry !== null && facts.vatIdConfirmed && vatIdCountry !== facts.operatorCountry) return { taxCountry, treatment: 'reverse_charge' };
  return { taxCountry, treatment: 'vat' };
}

const TAX_NOTES: Record<Exclude<TaxTreatment, 'vat'>, Record<DocumentLanguage, string>> = {
  reverse_charge: {
    en: 'Reverse charge: VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC)',
    de: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)',
  },
  outside_eu: {
    en: 'Not subject to EU VAT: place of supply outside the EU',
    de: 'Nicht der EU-Umsatzsteuer unterliegend: Leistungsort außerhalb der EU',
  },
};

/** What a document says about a sale without VAT; null where VAT was charged (or the treatment is unknown). */
export function taxNoteOf(treatment: TaxTreatment | null, language: DocumentLanguage): string | null {
  return treatment === null || treatment === 'vat' ? null : TAX_NOTES[treatment][language];
}

/** What a line is, for its tax: unit amount × quantity, whether that includes VAT, and its category. */
export interface TaxableLine {
  gross: number;
  inclusive: boolean;
  category: TaxCategory;
}

export interface BuyerLineAmounts extends LineAmounts {
  /** Percent with at most two decimals; null before the buyer's country is known. */
  taxRate: number | null;
  /** Whether the rate is its country's standard rate that day (the OSS report's `rate_type`). */
  standardRate: boolean;
}

/**
 * A line taxed for the buyer on `date`: the rate of its category in the tax country under `vat`,
 * 0 under reverse charge and outside the EU (an inclusive price stays the gross, so the net is
 * the whole of it), and no tax at all while the country is unknown.
 */
export function buyerLineAmounts(line: TaxableLine, tax: BuyerTax | null, rates: RateTable, date: Date): BuyerLineAmounts {
  if (tax === null) return { ...lineTaxAt(line.gross, 0, line.inclusive), taxRate: null, standardRate: false };
  if (tax.treatment !== 'vat') return { ...lineTaxAt(line.gross, 0, line.inclusive), taxRate: 0, standardRate: false };
  const applied = rates.rateOn(tax.taxCountry, line.category, date);
  return { ...lineTaxAt(line.gross, applied.hundredths, line.inclusive), taxRate: applied.rate, standardRate: applied.standard };
}

/** The evidence of where the buyer is, and whether its two pieces contradict each other (Monaco counts as France). */
export function taxEvidenceOf(billingCountry: string | null, cardCountry: string | null): { evidence: TaxEvidence; conflict: boolean } {
  return {
    evidence: [
      { type: 'billing_country', country: billingCountry },
      { type: 'card_country', country: cardCountry },
    ],
    conflict: billingCountry !== null && cardCountry !== null && vatAreaCountry(billingCountry) !== vatAreaCountry(cardCountry),
  };
}

/** A VAT ID entered in `product_rate` mode, as `customer_details` shows it. */
export function vatIdOnlyDetails(vatId: string | null): CustomerDetails | null {
  return vatId === null ? null : { name: null, company: null, address: null, vat_id: vatId };
}
