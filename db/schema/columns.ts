import { sql, type SQL } from 'drizzle-orm';
import { timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

/** Every time column is timestamptz; the API turns them into epoch seconds. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A CHECK condition: `column` holds one of `values` (the list the code writes, from the schema). */
export function oneOf(column: AnyPgColumn, values: readonly string[]): SQL {
  return sql`${column} in (${sql.raw(values.map((value) => `'${value}'`).join(', '))})`;
}

/** The languages customers' documents (invoices, credit notes, e-mails) are written in. */
export const DOCUMENT_LANGUAGES = ['en', 'de'] as const;
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];

/** How a store's sales are taxed: the product's own rate, or the rate of the buyer's EU member state. */
export const TAX_MODES = ['product_rate', 'buyer_country'] as const;
export type TaxMode = (typeof TAX_MODES)[number];

/** What a product is for VAT: an electronically supplied service, or a reduced-rate kind of one. */
export const TAX_CATEGORIES = ['standard', 'ebook', 'enewspaper'] as const;
export type TaxCategory = (typeof TAX_CATEGORIES)[number];

/** How a sale to the buyer was taxed: VAT of their country, reverse charge, or outside the EU. */
export const TAX_TREATMENTS = ['vat', 'reverse_charge', 'outside_eu'] as const;
export type TaxTreatment = (typeof TAX_TREATMENTS)[number];

/** The buyer's billing details as the hosted page took them (all strings null when not given). */
export interface CustomerDetails {
  name: string | null;
  company: string | null;
  address: { line1: string | null; postal_code: string | null; city: string | null; country: string } | null;
  vat_id: string | null;
}

/** The two pieces of evidence of where the buyer is: the billing country, then the card's issuing country (null when unknown). */
export type TaxEvidence = [{ type: 'billing_country'; country: string | null }, { type: 'card_country'; country: string | null }];
