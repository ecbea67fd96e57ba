/**
 * Reading invoices and credit notes: by id, listed newest first, and as PDF. Every lookup is
 * scoped to the caller's store and environment, so an unknown, foreign or other-environment id
 * answers the same 404.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { creditNotes, invoices } from '@/db/schema';
import { resourceMissing } from '../errors';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import { pdfFilename, renderCreditNotePdf, renderInvoicePdf } from './pdf';
import type { CreditNote, CreditNoteList, Invoice, InvoiceList, ListCreditNotesQuery, ListInvoicesQuery, PdfFile } from './schemas';
import { creditNoteView, invoiceView, type CreditNoteRow, type InvoiceRow } from './view';

export async function readInvoice(db: Database, scope: Scope, id: string): Promise<InvoiceRow> {
  const [row] = await db
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, id), ownedBy(invoices, scope)));
  if (!row) throw resourceMissing('invoice', id);
  return row;
}

export async function readCreditNote(db: Database, scope: Scope, id: string): Promise<CreditNoteRow> {
  const [row] = await db
    .select()
    .from(creditNotes)
    .where(and(eq(creditNotes.id, id), ownedBy(creditNotes, scope)));
  if (!row) throw resourceMissing('credit note', id);
  return row;
}

/** GET /invoices/{id}. */
export async function getInvoice(db: Database, scope: Scope, id: string): Promise<Invoice> {
  return invoiceView(await readInvoice(db, scope, id));
}

/** GET /credit_notes/{id}. */
export async function getCreditNote(db: Database, scope: Scope, id: string): Promise<CreditNote> {
  return creditNoteView(await readCreditNote(db, scope, id));
}

/** GET /invoices: newest first, filtered; `created_*` read the issue time. */
export async function listInvoices(db: Database, scope: Scope, query: ListInvoicesQuery): Promise<InvoiceList> {
  const { rows, hasMore } = await listPage(db, invoices, {
    scope,
    page: query,
    kind: 'invoice',
    where: [
      query.order_id === undefined ? undefined : eq(invoices.orderId, query.order_id),
      query.subscription_id === undefined ? undefined : eq(invoices.subscriptionId, query.subscription_id),
      query.customer_id === undefined ? undefined : eq(invoices.customerId, query.customer_id),
      ...createdWithin(invoices.createdAt, query),
    ],
  });
  return listEnvelope('/api/v1/invoices', scope, rows.map(invoiceView), hasMore);
}

/** GET /credit_notes: newest first, filtered. */
export async function listCreditNotes(db: Database, scope: Scope, query: ListCreditNotesQuery): Promise<CreditNoteList> {
  const { rows, hasMore } = await listPage(db, creditNotes, {
    scope,
    page: query,
    kind: 'credit note',
    where: [query.invoice_id === undefined ? undefined : eq(creditNotes.invoiceId, query.invoice_id), query.order_id === undefined ? undefined : eq(creditNotes.orderId, query.order_id)],
  });
  return listEnvelope('/api/v1/credit_notes', scope, rows.map(creditNoteView), hasMore);
}

function pdfFile(number: string, bytes: Buffer): PdfFile {
  return { filename: pdfFilename(number), content_type: 'application/pdf', content_base64: bytes.toString('base64') };
}

/** The invoice's PDF, rendered from the stored document. */
export async function invoicePdf(db: Database, scope: Scope, id: string): Promise<PdfFile> {
  const invoice = await readInvoice(db, scope, id);
  return pdfFile(invoice.number, await renderInvoicePdf(invoice));
}

/** The credit note's PDF, with the buyer and seller of its invoice. */
export async function creditNotePdf(db: Database, scope: Scope, id: string): Promise<PdfFile> {
  const note = await readCreditNote(db, scope, id);
  const invoice = await readInvoice(db, scope, note.invoiceId);
  return pdfFile(note.number, await renderCreditNotePdf(note, invoice));
}
