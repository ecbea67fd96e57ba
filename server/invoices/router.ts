import { createRouter, secretKeyProcedure } from '../trpc';
import {
  creditNoteListSchema,
  creditNoteSchema,
  invoiceListSchema,
  invoiceSchema,
  listCreditNotesInput,
  listInvoicesInput,
  pdfFileSchema,
  retrieveCreditNoteInput,
  retrieveInvoiceInput,
} from './schemas';
import { creditNotePdf, getCreditNote, getInvoice, invoicePdf, listCreditNotes, listInvoices } from './service';

export const invoicesRouter = createRouter({
  // GET /api/v1/invoices: this store's invoices in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/invoices', tags: ['Invoices'], summary: 'List invoices', protect: true }, errors: ['resource_missing'] })
    .input(listInvoicesInput)
    .output(invoiceListSchema)
    .query(({ ctx, input }) => listInvoices(ctx.db, ctx.subject, input)),

  // GET /api/v1/invoices/{id}: an invoice as issued.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/invoices/{id}', tags: ['Invoices'], summary: 'Retrieve an invoice', protect: true } })
    .input(retrieveInvoiceInput)
    .output(invoiceSchema)
    .query(({ ctx, input }) => getInvoice(ctx.db, ctx.subject, input.id)),

  // GET /api/v1/invoices/{id}/pdf: the invoice as a PDF in the customer's language.
  retrievePdf: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invoices/{id}/pdf',
        tags: ['Invoices'],
        summary: 'Download an invoice as PDF',
        description: 'Answers `application/pdf` over REST; over /api/trpc, the same file in base64.',
        protect: true,
      },
      file: 'application/pdf',
    })
    .input(retrieveInvoiceInput)
    .output(pdfFileSchema)
    .query(({ ctx, input }) => invoicePdf(ctx.db, ctx.subject, input.id)),
});

export const creditNotesRouter = createRouter({
  // GET /api/v1/credit_notes: this store's credit notes in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/credit_notes', tags: ['Invoices'], summary: 'List credit notes', protect: true }, errors: ['resource_missing'] })
    .input(listCreditNotesInput)
    .output(creditNoteListSchema)
    .query(({ ctx, input }) => listCreditNotes(ctx.db, ctx.subject, input)),

  // GET /api/v1/credit_notes/{id}: a credit note as issued.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/credit_notes/{id}', tags: ['Invoices'], summary: 'Retrieve a credit note', protect: true } })
    .input(retrieveCreditNoteInput)
    .output(creditNoteSchema)
    .query(({ ctx, input }) => getCreditNote(ctx.db, ctx.subject, input.id)),

  // GET /api/v1/credit_notes/{id}/pdf: the credit note as a PDF in the customer's language.
  retrievePdf: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/credit_notes/{id}/pdf',
        tags: ['Invoices'],
        summary: 'Download a credit note as PDF',
        description: 'Answers `application/pdf` over REST; over /api/trpc, the same file in base64.',
        protect: true,
      },
      file: 'application/pdf',
    })
    .input(retrieveCreditNoteInput)
    .output(pdfFileSchema)
    .query(({ ctx, input }) => creditNotePdf(ctx.db, ctx.subject, input.id)),
});
