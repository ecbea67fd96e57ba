/**
 * How the API shows where and how a sale was taxed: the buyer's billing details, the tax country
 * and the treatment. Shared by every object that carries them (checkout sessions, orders,
 * subscriptions, invoices, credit notes), so they read alike in the OpenAPI document.
 */
import { z } from 'zod';
import { TAX_TREATMENTS } from '@/db/schema';

const optionalText = (what: string) => z.string().nullable().describe(`${what}; null when not given.`);

export const customerDetailsSchema = z
  .object({
    name: optionalText('The buyer’s name'),
    company: optionalText('The company name'),
    address: z
      .object({
        line1: optionalText('The street address'),
        postal_code: optionalText('The postal code'),
        city: optionalText('The city'),
        country: z.string().describe('The billing country, ISO 3166-1 alpha-2 (`DE`).'),
      })
      .nullable()
      .describe('The billing address; null where the store does not tax by the buyer’s country.'),
    vat_id: z.string().nullable().describe('The business buyer’s EU VAT ID, normalised (`ATU13585627`); null when none was entered.'),
  })
  .meta({
    id: 'CustomerDetails',
    examples: [{ name: 'Anna Gruber', company: 'Gruber Verlag GmbH', address: { line1: 'Ringstraße 1', postal_code: '1010', city: 'Wien', country: 'AT' }, vat_id: 'ATU13585627' }],
  });

/** Null when unknown: before the buyer gave a country, or where the store taxes at the product's rate. */
export const customerDetailsField = customerDetailsSchema
  .nullable()
  .describe(
    'The buyer’s billing details from the hosted page. Where the store taxes at the product’s rate, only a VAT ID is known: `{ name: null, company: null, address: null, vat_id }` when one was entered, else null.',
  );

export const taxCountryField = z
  .string()
  .nullable()
  .describe('The member state or other country where the sale is taxed, ISO 3166-1 alpha-2 (the billing country; Monaco is taxed as `FR`); null when unknown.');

export const taxTreatmentField = z
  .enum(TAX_TREATMENTS)
  .nullable()
  .describe('`vat`: VAT of the tax country; `reverse_charge`: a business buyer of another member state accounts for it; `outside_eu`: no EU VAT. Null when unknown.');

/** A VAT rate in percent: at most two decimals (`5.5`), a whole rate an integer (`19`). */
export const vatRateField = (description: string) => z.number().min(0).max(100).describe(description);

/** Where the buyer is, as the payment attempt found it: the billing country, then the card's issuing country (null when unknown). */
export const taxEvidenceField = z
  .tuple([z.object({ type: z.literal('billing_country'), country: z.string().nullable() }), z.object({ type: z.literal('card_country'), country: z.string().nullable() })])
  .nullable()
  .describe('The two pieces of evidence of the buyer’s country: the billing country, then the card’s issuing country, `country` null when unknown.');

/** The fields of a checkout session, a subscription checkout, an invoice and a credit note. */
export const buyerTaxFields = { customer_details: customerDetailsField, tax_country: taxCountryField, tax_treatment: taxTreatmentField };

/** An order's and a subscription's: the taxation, and the evidence of where the buyer is. */
export const paidBuyerTaxFields = {
  ...buyerTaxFields,
  tax_evidence: taxEvidenceField,
  evidence_conflict: z
    .boolean()
    .nullable()
    .describe('True when both pieces of evidence are known and name different countries; it refuses nothing. Null where the store does not tax by the buyer’s country.'),
};
