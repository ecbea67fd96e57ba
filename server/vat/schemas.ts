/**
 * How the API shows a buyer's billing details and taxation, on checkout sessions, subscription
 * checkouts, orders, subscriptions, invoices and credit notes alike.
 */
import { z } from 'zod';
import { TAX_TREATMENTS, type CustomerDetails, type TaxEvidence, type TaxTreatment } from '@/db/schema';
import { vatIdOnlyDetails } from './taxation';

export const customerDetailsSchema = z
  .object({
    name: z.string().nullable(),
    company: z.string().nullable(),
    address: z
      .object({
        line1: z.string().nullable(),
        postal_code: z.string().nullable(),
        city: z.string().nullable(),
        country: z.string().describe('The billing country, ISO 3166-1 alpha-2.'),
      })
      .nullable(),
    vat_id: z.string().nullable().describe('A business buyer’s EU VAT ID, normalised (`DE123456789`).'),
  })
  .nullable()
  .describe(
    'The buyer’s billing details from the hosted page where the store taxes by the buyer’s country; elsewhere `{ name: null, company: null, address: null, vat_id }` when a VAT ID was entered. Null when none were given.',
  )
  .meta({
    id: 'CustomerDetails',
    examples: [{ name: 'Anna Huber', company: 'Huber GmbH', address: { line1: 'Ringstraße 1', postal_code: '1010', city: 'Wien', country: 'AT' }, vat_id: 'ATU13585627' }],
  });

const taxFields = {
  customer_details: customerDetailsSchema,
  tax_country: z
    .string()
    .nullable()
    .describe('Where the sale is taxed (ISO 3166-1 alpha-2; Monaco is taxed as `FR`); null until the buyer’s country is known, and where the store uses each product’s own rate.'),
  tax_treatment: z
    .enum(TAX_TREATMENTS)
    .nullable()
    .describe('`vat`: VAT of the tax country; `reverse_charge`: a business buyer of another member state accounts for it; `outside_eu`: no EU VAT. Null as `tax_country` is.'),
};

/** The fields of a checkout session, a subscription checkout, an invoice and a credit note. */
export const buyerTaxFields = taxFields;

/** An order's and a subscription's: the taxation, and the evidence of where the buyer is. */
export const paidBuyerTaxFields = {
  ...taxFields,
  tax_evidence: z
    .array(z.object({ type: z.enum(['billing_country', 'card_country']), country: z.string().nullable() }))
    .nullable()
    .describe('The billing country and the card’s issuing country (null when unknown), recorded at the payment attempt where the store taxes by the buyer’s country.'),
  evidence_conflict: z.boolean().nullable().describe('True when both pieces of evidence are known and name different countries; it refuses nothing.'),
};

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
