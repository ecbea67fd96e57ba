/** The API shapes of invoices and credit notes, apart from the services so events can carry them. */
import type { creditNotes, DocumentLine, invoices } from '@/db/schema';
import { discountView } from '../kit/discount-schemas';
import { epochSeconds } from '../clock';
import type { CreditNote, Invoice } from './schemas';

export type InvoiceRow = typeof invoices.$inferSelect;
export type CreditNoteRow = typeof creditNotes.$inferSelect;

/** A document's lines as the API shows them; those issued before discounts existed had none (0). */
function documentLinesView(lines: readonly DocumentLine[]): Invoice['lines'] {
  return lines.map(({ description, quantity, unit_amount, amount_discount, amount_subtotal, tax_rate, amount_tax, amount_total }) => ({
    description,
    quantity,
    unit_amount,
    amount_discount: amount_discount ?? 0,
    amount_subtotal,
    tax_rate,
    amount_tax,
    amount_total,
  }));
}

export function invoiceView(row: Omit<InvoiceRow, 'storeName'>): Invoice {
  return {
    id: row.id,
    object: 'invoice',
    number: row.number,
    livemode: row.livemode,
    order_id: row.orderId,
    subscription_id: row.subscriptionId,
    customer_id: row.customerId,
    customer_email: row.customerEmail,
    customer_name: row.customerName,
    buyer_vat_id: row.buyerVatId,
    customer_details: row.customerDetails,
    tax_country: row.taxCountry,
    tax_treatment: row.taxTreatment,
    tax_note: row.taxNote,
    seller: { name: row.sellerName, address: row.sellerAddress, vat_id: row.sellerVatId },
    currency: 'eur',
    lines: documentLinesView(row.lines),
    tax_breakdown: row.taxBreakdown,
    discount: row.discount === null ? null : discountView(row.discount),
    amount_discount: row.amountDiscount,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    language: row.language,
    withdrawal_waiver: row.withdrawalWaiver,
    issued_at: epochSeconds(row.createdAt),
  };
}

export function creditNoteView(row: CreditNoteRow): CreditNote {
  return {
    id: row.id,
    object: 'credit_note',
    number: row.number,
    livemode: row.livemode,
    invoice_id: row.invoiceId,
    refund_id: row.refundId,
    dispute_id: row.disputeId,
    reason: row.reason,
    order_id: row.orderId,
    customer_details: row.customerDetails,
    tax_country: row.taxCountry,
    tax_treatment: row.taxTreatment,
    tax_note: row.taxNote,
    lines: documentLinesView(row.lines),
    tax_breakdown: row.taxBreakdown,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    issued_at: epochSeconds(row.createdAt),
  };
}
