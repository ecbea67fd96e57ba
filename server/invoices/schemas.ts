/**
 * The public contract of invoices and credit notes: the documents the operator issues, as seller,
 * for every payment and refund. Explicit allowlists, as every object of the API.
 */
import { z } from 'zod';
import { CREDIT_NOTE_REASONS, DOCUMENT_LANGUAGES } from '@/db/schema';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, idFilter, listSchema, pageFields } from '../kit/list';
import { discountSchema } from '../kit/discount-schemas';
import { customerDetailsField, taxCountryField, taxTreatmentField, vatRateField } from '../kit/taxation-schemas';

/** The ebook of the order's example, at 19% VAT. */
const lineExample = { description: 'Ebook: Payments in practice', quantity: 1, unit_amount: 1999, amount_discount: 0, amount_subtotal: 1999, tax_rate: 19, amount_tax: 380, amount_total: 2379 };
const breakdownExample = { rate: 19, amount_net: 1999, amount_tax: 380 };
/** The €5.00 refund of the order's example, VAT included. */
const creditedLineExample = { description: 'Ebook: Payments in practice', quantity: 1, unit_amount: 500, amount_discount: 0, amount_subtotal: 420, tax_rate: 19, amount_tax: 80, amount_total: 500 };

export const documentLineSchema = z
  .object({
    description: z.string(),
    quantity: z.number().int(),
    unit_amount: z.number().int().describe('Cents per unit, as sold (tax included where the price included it).'),
    amount_discount: z.number().int().describe('Cents of the discount taken off `unit_amount × quantity`, before tax; 0 without one.'),
    amount_subtotal: z.number().int().describe('Cents before VAT, after the discount.'),
    tax_rate: vatRateField('VAT rate in percent, at most two decimals (`5.5`); 0 where no VAT was charged.'),
    amount_tax: z.number().int(),
    amount_total: z.number().int(),
  })
  .meta({ id: 'DocumentLine', examples: [lineExample] });

export const taxBreakdownSchema = z
  .object({
    rate: vatRateField('VAT rate in percent, at most two decimals (`5.5`).'),
    amount_net: z.number().int().describe('Cents before VAT at this rate.'),
    amount_tax: z.number().int().describe('Cents of VAT at this rate.'),
  })
  .meta({ id: 'TaxBreakdown', examples: [breakdownExample] });

const taxNoteField = z.string().nullable().describe('What the document says about a sale without VAT, in its language: the reverse charge, or a supply outside the EU; null where VAT was charged.');

export const invoiceSchema = z
  .object({
    id: z.string(),
    object: z.literal('invoice'),
    number: z.string().describe('Gapless per store and mode, unique across the operator: `INV-7KQ2MX-000001`; `TEST-` in test mode.'),
    livemode: z.boolean(),
    order_id: z.string().nullable().describe('The paid order it documents; null for a subscription charge.'),
    subscription_id: z.string().nullable().describe('The subscription whose charge it documents; null for an order.'),
    customer_id: z.string().nullable(),
    customer_email: z.string(),
    customer_name: z.string().nullable(),
    buyer_vat_id: z.string().nullable().describe('The business buyer’s EU VAT ID as entered on the hosted checkout, normalised (`DE123456789`).'),
    customer_details: customerDetailsField,
    tax_country: taxCountryField,
    tax_treatment: taxTreatmentField,
    tax_note: taxNoteField,
    seller: z
      .object({ name: z.string(), address: z.string(), vat_id: z.string() })
      .describe('The operator, who sells in its own name on the store’s behalf, as configured when the invoice was issued.'),
    currency: z.literal('eur'),
    lines: z.array(documentLineSchema),
    tax_breakdown: z.array(taxBreakdownSchema).describe('The lines’ VAT per rate.'),
    discount: discountSchema.nullable().describe('The discount the order was sold with; null without one.'),
    amount_discount: z.number().int().describe('Cents taken off the lines before tax: the sum of their `amount_discount`.'),
    amount_subtotal: z.number().int(),
    amount_tax: z.number().int(),
    amount_total: z.number().int().describe('Cents paid.'),
    language: z.enum(DOCUMENT_LANGUAGES).describe('The customer’s language on the hosted page; the PDF is written in it.'),
    withdrawal_waiver: z
      .object({ accepted_at: z.number().int(), text_version: z.string() })
      .nullable()
      .describe('The customer’s waiver of the right of withdrawal for digital content, when given at checkout.'),
    issued_at: z.number().int(),
  })
  .meta({
    id: 'Invoice',
    examples: [
      {
        id: EXAMPLE.invoiceId,
        object: 'invoice',
        number: EXAMPLE.invoiceNumber,
        livemode: false,
        order_id: EXAMPLE.orderId,
        subscription_id: null,
        customer_id: EXAMPLE.customerId,
        customer_email: EXAMPLE.customerEmail,
        customer_name: null,
        buyer_vat_id: null,
        customer_details: null,
        tax_country: null,
        tax_treatment: null,
        tax_note: null,
        seller: { name: 'Example Payments GmbH', address: 'Musterstraße 1, 10115 Berlin, Germany', vat_id: 'DE123456789' },
        currency: 'eur',
        lines: [lineExample],
        tax_breakdown: [breakdownExample],
        discount: null,
        amount_discount: 0,
        amount_subtotal: 1999,
        amount_tax: 380,
        amount_total: 2379,
        language: 'en',
        withdrawal_waiver: null,
        issued_at: EXAMPLE.created + 9,
      },
    ],
  });
export type Invoice = z.infer<typeof invoiceSchema>;

export const creditNoteSchema = z
  .object({
    id: z.string(),
    object: z.literal('credit_note'),
    number: z.string().describe('Gapless per store and mode, unique across the operator: `CN-7KQ2MX-000001`; `TEST-` in test mode.'),
    livemode: z.boolean(),
    invoice_id: z.string(),
    refund_id: z.string().nullable().describe('The refund it documents; null for a lost dispute.'),
    dispute_id: z.string().nullable().describe('The lost dispute it documents; null for a refund.'),
    reason: z.enum(CREDIT_NOTE_REASONS).describe('`refund`, or `dispute_lost`: the cardholder’s dispute took the amount back.'),
    order_id: z.string(),
    customer_details: customerDetailsField.describe('Its invoice’s.'),
    tax_country: taxCountryField.describe('Its invoice’s.'),
    tax_treatment: taxTreatmentField.describe('Its invoice’s.'),
    tax_note: taxNoteField.describe('Its invoice’s.'),
    lines: z.array(documentLineSchema).describe('Positive amounts: what is credited. A partial credit is one line per VAT rate of the invoice.'),
    tax_breakdown: z.array(taxBreakdownSchema).describe('A partial refund is split over the invoice’s VAT rates in proportion to their totals.'),
    amount_subtotal: z.number().int(),
    amount_tax: z.number().int(),
    amount_total: z.number().int().describe('Cents credited: the refund’s or the dispute’s amount.'),
    issued_at: z.number().int(),
  })
  .meta({
    id: 'CreditNote',
    examples: [
      {
        id: EXAMPLE.creditNoteId,
        object: 'credit_note',
        number: EXAMPLE.creditNoteNumber,
        livemode: false,
        invoice_id: EXAMPLE.invoiceId,
        refund_id: EXAMPLE.refundId,
        dispute_id: null,
        reason: 'refund',
        order_id: EXAMPLE.orderId,
        customer_details: null,
        tax_country: null,
        tax_treatment: null,
        tax_note: null,
        lines: [creditedLineExample],
        tax_breakdown: [{ rate: 19, amount_net: 420, amount_tax: 80 }],
        amount_subtotal: 420,
        amount_tax: 80,
        amount_total: 500,
        issued_at: EXAMPLE.created + 9,
      },
    ],
  });
export type CreditNote = z.infer<typeof creditNoteSchema>;

export const retrieveInvoiceInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The invoice id, `in_…`.')
    .meta({ examples: [EXAMPLE.invoiceId] }),
});
export const retrieveCreditNoteInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('The credit note id, `cn_…`.')
    .meta({ examples: [EXAMPLE.creditNoteId] }),
});

/** The list queries; unknown parameters are refused. */
export const listInvoicesInput = z.strictObject({
  ...pageFields,
  order_id: idFilter('ord', 'Only the invoice of this order, `ord_…`.'),
  subscription_id: idFilter('sub', 'Only invoices of this subscription’s charges, `sub_…`.'),
  customer_id: idFilter('cus', 'Only invoices of this customer, `cus_…`.'),
  ...createdRangeFields,
});
export type ListInvoicesQuery = z.infer<typeof listInvoicesInput>;

export const listCreditNotesInput = z.strictObject({
  ...pageFields,
  invoice_id: idFilter('in', 'Only credit notes against this invoice, `in_…`.'),
  order_id: idFilter('ord', 'Only credit notes of this order’s refunds, `ord_…`.'),
});
export type ListCreditNotesQuery = z.infer<typeof listCreditNotesInput>;

export const invoiceListSchema = listSchema(invoiceSchema, '/api/v1/invoices', 'InvoiceList');
export type InvoiceList = z.infer<typeof invoiceListSchema>;
export const creditNoteListSchema = listSchema(creditNoteSchema, '/api/v1/credit_notes', 'CreditNoteList');
export type CreditNoteList = z.infer<typeof creditNoteListSchema>;

/**
 * A document's PDF. The REST API answers the bytes themselves (`application/pdf`); over
 * /api/trpc, where answers are JSON, this object carries them in base64.
 */
export const pdfFileSchema = z.object({
  filename: z.string(),
  content_type: z.literal('application/pdf'),
  content_base64: z.string(),
});
export type PdfFile = z.infer<typeof pdfFileSchema>;
