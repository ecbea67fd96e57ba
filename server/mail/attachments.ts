/**
 * Files attached to customer e-mails (an order's invoice to its receipt, a refund's credit note
 * to its e-mail). The outbox stores a reference, `{ kind, id }`; the file is rendered from the
 * document it names whenever the e-mail is sent or listed, so the outbox never holds a copy that
 * could differ from the issued document.
 */
import type { Database } from '@/db/client';
import type { EmailAttachmentRef } from '@/db/schema';
import { readCreditNote, readInvoice } from '../invoices/service';
import { pdfFilename, renderCreditNotePdf, renderInvoicePdf } from '../invoices/pdf';
import type { Scope } from '../kit/scope';

export interface AttachmentFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** The e-mail attachments go with: its store and environment scope the documents it names. */
export interface AttachingEmail extends Scope {
  attachments: EmailAttachmentRef[];
}

async function renderAttachment(db: Database, scope: Scope, ref: EmailAttachmentRef): Promise<AttachmentFile> {
  if (ref.kind === 'invoice') {
    const invoice = await readInvoice(db, scope, ref.id);
    return { filename: pdfFilename(invoice.number), contentType: 'application/pdf', content: await renderInvoicePdf(invoice) };
  }
  const note = await readCreditNote(db, scope, ref.id);
  const invoice = await readInvoice(db, scope, note.invoiceId);
  return { filename: pdfFilename(note.number), contentType: 'application/pdf', content: await renderCreditNotePdf(note, invoice) };
}

/** The files of an e-mail's references, in their order. */
export async function renderAttachments(db: Database, email: AttachingEmail): Promise<AttachmentFile[]> {
  const scope = { storeId: email.storeId, livemode: email.livemode };
  return Promise.all(email.attachments.map((ref) => renderAttachment(db, scope, ref)));
}
