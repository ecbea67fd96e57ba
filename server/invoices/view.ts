/** The API shapes of invoices and credit notes, apart from the services so events can carry them. */
import type { creditNotes, invoices } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { CreditNote, Invoice } from './schemas';

export type InvoiceRow = typeof invoices.$inferSelect;
export type CreditNoteRow = typeof creditNotes.$inferSelect;

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
    lines: row.lines,
    tax_breakdown: row.taxBreakdown,
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
    lines: row.lines,
    tax_breakdown: row.taxBreakdown,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    issued_at: epochSeconds(row.createdAt),
  };
}
