/** The buyer's billing details and taxation as the API objects show them (server/kit/taxation-schemas.ts). */
import type { CustomerDetails, TaxEvidence, TaxTreatment } from '@/db/schema';
import { vatIdOnlyDetails } from './taxation';

export interface BuyerTaxRow {
  customerDetails: CustomerDetails | null;
  taxCountry: string | null;
  taxTreatment: TaxTreatment | null;
}

/** The three fields as the API shows them; `vatId`: a VAT ID entered without billing details. */
export function buyerTaxView(row: BuyerTaxRow, vatId: string | null = null) {
  return { customer_details: row.customerDetails ?? vatIdOnlyDetails(vatId), tax_country: row.taxCountry, tax_treatment: row.taxTreatment };
}

/** An order's or a subscription's fields. */
export function paidBuyerTaxView(row: BuyerTaxRow & { taxEvidence: TaxEvidence | null; evidenceConflict: boolean | null }, vatId: string | null = null) {
  return { ...buyerTaxView(row, vatId), tax_evidence: row.taxEvidence, evidence_conflict: row.evidenceConflict };
}
