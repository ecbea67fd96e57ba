/**
 * A dispute's evidence pack (PDF, in English, the card networks' language): what the store sends
 * the acquirer to answer the cardholder. Each piece in its own section: the dispute, the order and
 * its documents, refunds and withdrawal, the withdrawal waiver with its exact wording, the
 * customer with the address and browser that paid, each download and license validation, the
 * e-mails sent to the customer, and the store's evidence text. Times in UTC, amounts in EUR.
 */
import { and, asc, count, desc, eq, inArray, or } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { creditNotes, emails, fileDownloads, invoices, licenseKeys, licenseValidations, orderLines, orders, stores } from '@/db/schema';
import type { Clock } from '../clock';
import type { Config, OperatorConfig } from '../config';
import { COLOURS, CONTENT_BOTTOM, CONTENT_WIDTH, openPdf, PAGE, pdfTable, writeFacts, writeFooters, writeNotices, writePartyAndFacts, writeSectionHeading, writeTitle } from '../invoices/pdf-layout';
import type { PdfFile } from '../invoices/schemas';
import { formattersFor } from '../kit/locale';
import { ownedBy, type Scope } from '../kit/scope';
import { CUSTOMER_TEMPLATES } from '../mail/outbox';
import { renderEmailSubject } from '../mail/renderer';
import { getOrder } from '../orders/service';
import type { Order } from '../orders/schemas';
import { waiverText } from '../orders/withdrawals/waiver';
import { BUYER_DATA_DAYS, buyerDataExpired } from './buyer-data';
import type { EvidenceField } from './schemas';
import { evidenceOf, readDispute, type DisputeRow } from './service';

/** Validations listed at most from each end of a key's history: a key checked hourly for a year would fill hundreds of pages. */
const VALIDATIONS_EACH_END = 100;

export interface EvidenceDeps {
  db: Database;
  /** The store's clock: the time the pack is prepared, and whether the buyer data's time is up. */
  clock: Clock;
  /** The operator, the seller of record; the public URL the e-mails' subjects are rendered with. */
  config: Pick<Config, 'operator' | 'publicBaseUrl'>;
}

interface ValidationLine {
  key: string;
  result: 'active' | 'revoked';
  createdAt: Date;
}

/** Everything the pack shows, read under the dispute's scope. */
export interface DisputeEvidence {
  preparedAt: Date;
  store: { id: string; name: string };
  dispute: DisputeRow;
  order: Order;
  payment: {
    paidAt: Date | null;
    cardBrand: string | null;
    cardLast4: string | null;
    invoiceNumber: string | null;
    customerName: string | null;
    vatId: string | null;
    ip: string | null;
    userAgent: string | null;
  };
  creditNotes: { number: string; reason: 'refund' | 'dispute_lost'; amountTotal: number; createdAt: Date }[];
  downloads: { description: string; createdAt: Date }[];
  validations: { first: ValidationLine[]; last: ValidationLine[]; total: number };
  emails: { template: string; to: string; subject: string; status: string; createdAt: Date; sentAt: Date | null }[];
}

/** The first and the last of a key's validations, at most VALIDATIONS_EACH_END of each, and how many there are. */
async function readValidations(db: Database, scope: Scope, orderId: string): Promise<DisputeEvidence['validations']> {
  const page = (order: 'asc' | 'desc', limit: number) =>
    db
      .select({ key: licenseKeys.key, result: licenseValidations.result, createdAt: licenseValidations.createdAt })
      .from(licenseValidations)
      .innerJoin(licenseKeys, eq(licenseKeys.id, licenseValidations.licenseKeyId))
      .where(and(eq(licenseValidations.orderId, orderId), ownedBy(licenseValidations, scope)))
      .orderBy(order === 'asc' ? asc(licenseValidations.createdAt) : desc(licenseValidations.createdAt), order === 'asc' ? asc(licenseValidations.id) : desc(licenseValidations.id))
      .limit(limit);
  const [[counted], first] = await Promise.all([
    db
      .select({ total: count() })
      .from(licenseValidations)
      .where(and(eq(licenseValidations.orderId, orderId), ownedBy(licenseValidations, scope))),
    page('asc', 2 * VALIDATIONS_EACH_END),
  ]);
  const total = counted!.total;
  if (total <= 2 * VALIDATIONS_EACH_END) return { first, last: [], total };
  return { first: first.slice(0, VALIDATIONS_EACH_END), last: (await page('desc', VALIDATIONS_EACH_END)).reverse(), total };
}

/** The pack's contents: 404 `resource_missing` for a dispute outside the scope, as every read. */
export async function readDisputeEvidence(deps: EvidenceDeps, scope: Scope, id: string): Promise<DisputeEvidence> {
  const { db } = deps;
  const dispute = await readDispute(db, scope, id);
  const [order, [row], notes, downloads, validations, [store]] = await Promise.all([
    getOrder(db, scope, dispute.orderId),
    db
      .select({
        paidAt: orders.paidAt,
        cardBrand: orders.cardBrand,
        cardLast4: orders.cardLast4,
        vatId: orders.buyerVatId,
        ip: orders.buyerIp,
        userAgent: orders.buyerUserAgent,
        invoiceNumber: invoices.number,
        customerName: invoices.customerName,
      })
      .from(orders)
      .leftJoin(invoices, eq(invoices.id, orders.invoiceId))
      .where(and(eq(orders.id, dispute.orderId), ownedBy(orders, scope))),
    db
      .select({ number: creditNotes.number, reason: creditNotes.reason, amountTotal: creditNotes.amountTotal, createdAt: creditNotes.createdAt })
      .from(creditNotes)
      .where(and(eq(creditNotes.orderId, dispute.orderId), ownedBy(creditNotes, scope)))
      .orderBy(asc(creditNotes.createdAt), asc(creditNotes.number)),
    db
      .select({ description: orderLines.description, createdAt: fileDownloads.createdAt })
      .from(fileDownloads)
      .innerJoin(orderLines, eq(orderLines.id, fileDownloads.orderLineId))
      .where(and(eq(orderLines.orderId, dispute.orderId), ownedBy(fileDownloads, scope)))
      .orderBy(asc(fileDownloads.createdAt), asc(orderLines.position), asc(fileDownloads.id)),
    readValidations(db, scope, dispute.orderId),
    db.select({ id: stores.id, name: stores.name }).from(stores).where(eq(stores.id, scope.storeId)),
  ]);
  const about = order.subscription_id === null ? eq(emails.orderId, order.id) : or(eq(emails.orderId, order.id), eq(emails.subscriptionId, order.subscription_id));
  const mailRows = await db
    .select()
    .from(emails)
    .where(and(ownedBy(emails, scope), about, inArray(emails.template, [...CUSTOMER_TEMPLATES])))
    .orderBy(asc(emails.createdAt), asc(emails.id));
  const mails = await Promise.all(
    mailRows.map(async (mail) => ({
      template: mail.template,
      to: mail.toAddress,
      subject: await renderEmailSubject(mail, { storeName: store!.name, config: deps.config }),
      status: mail.status,
      createdAt: mail.createdAt,
      sentAt: mail.sentAt,
    })),
  );
  return { preparedAt: deps.clock.now(), store: store!, dispute, order, payment: row!, creditNotes: notes, downloads, validations, emails: mails };
}

/** `2026-03-01 12:00:00 UTC`. */
const utc = (date: Date) => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
const utcSeconds = (seconds: number) => utc(new Date(seconds * 1000));

/** A license key with all but its last group hidden: enough to tell keys apart, too little to use one. */
export function maskedLicenseKey(key: string): string {
  const groups = key.split('-');
  return groups.map((group, index) => (index === 0 || index === groups.length - 1 ? group : '•'.repeat(group.length))).join('-');
}

const EVIDENCE_TITLES: Record<EvidenceField, string> = {
  customer_communication: 'Customer communication',
  product_description: 'Product description',
  uncategorized_text: 'Additional information',
};

/** The buyer's address or user agent as the pack states it: erased once its time is up, else as recorded. */
function buyerData(value: string | null, paidAt: Date | null, now: Date): string {
  if (paidAt !== null && buyerDataExpired(paidAt, now)) return `erased (kept ${BUYER_DATA_DAYS} days after the payment)`;
  return value ?? 'not recorded';
}

export async function renderDisputeEvidence(evidence: DisputeEvidence, operator: OperatorConfig): Promise<Buffer> {
  const { dispute, order, payment, preparedAt } = evidence;
  const amount = formattersFor('en').amount;
  const { doc, finish } = await openPdf({ title: `Dispute evidence ${dispute.id}`, author: operator.legalName, createdAt: preparedAt, language: 'en' });
  const none = (text: string) => writeNotices(doc, [text]);

  writeTitle(doc, {
    title: 'Dispute evidence',
    numberLine: `Dispute ${dispute.id} · Order ${order.id}`,
    testModeNotice: dispute.livemode ? undefined : 'TEST MODE: a test dispute of a test payment; no money moved.',
  });
  writePartyAndFacts(
    doc,
    {
      heading: 'Seller',
      name: operator.legalName,
      lines: [operator.address, `VAT ID: ${operator.vatId}`, operator.email],
      note: `Seller of record for ${evidence.store.name} (store ${evidence.store.id})`,
    },
    [
      ['Prepared', utc(preparedAt)],
      ['Dispute', dispute.id],
      ['Order', order.id],
    ],
  );

  writeSectionHeading(doc, 'Dispute');
  writeFacts(doc, [
    ['Dispute ID', dispute.id],
    ['Reason', dispute.reason],
    ['Status', dispute.status],
    ['Amount', amount(dispute.amount)],
    ['Created', utc(dispute.createdAt)],
    ['Evidence due by', utc(dispute.evidenceDueBy)],
    ['Evidence submitted', dispute.evidenceSubmittedAt === null ? 'not submitted' : utc(dispute.evidenceSubmittedAt)],
    ...(dispute.closedAt === null ? [] : [['Closed', utc(dispute.closedAt)] as [string, string]]),
  ]);

  writeSectionHeading(doc, 'Order');
  writeFacts(doc, [
    ['Order ID', order.id],
    ['Status', order.status],
    ['Paid at', payment.paidAt === null ? 'not paid' : utc(payment.paidAt)],
    ['Card', payment.cardLast4 === null ? 'not recorded' : `${payment.cardBrand ?? 'card'} •••• ${payment.cardLast4}`],
    ['Invoice', payment.invoiceNumber ?? 'none'],
    [
      'Credit notes',
      evidence.creditNotes.length === 0
        ? 'none'
        : evidence.creditNotes.map((note) => `${note.number} (${amount(note.amountTotal)}, ${note.reason === 'dispute_lost' ? 'dispute lost' : 'refund'}, ${utc(note.createdAt)})`).join('; '),
    ],
    ...(order.subscription_id === null ? [] : [['Subscription', order.subscription_id] as [string, string]]),
  ]);
  doc.moveDown(0.4);
  const lines = pdfTable(doc, [
    { label: 'Description', width: 175, align: 'left' },
    { label: 'Quantity', width: 55, align: 'right' },
    { label: 'Unit price', width: 70, align: 'right' },
    { label: 'Net', width: 65, align: 'right' },
    { label: 'VAT', width: 65, align: 'right' },
    { label: 'Total', width: 65, align: 'right' },
  ]);
  lines.header();
  for (const line of order.lines) {
    lines.row([line.description, String(line.quantity), amount(line.unit_amount), amount(line.amount_subtotal), amount(line.amount_tax), amount(line.amount_total)], 'Regular');
  }
  doc.moveDown(0.3);
  writeFacts(doc, [
    ['Subtotal', amount(order.amount_subtotal)],
    ['VAT', amount(order.amount_tax)],
    ['Total', amount(order.amount_total)],
    ['Refunded', amount(order.amount_refunded)],
  ]);
  doc.moveDown(0.4);
  if (order.refunds.length === 0) none('Refunds: none.');
  else {
    const refunds = pdfTable(doc, [
      { label: 'Refund', width: 190, align: 'left' },
      { label: 'Amount', width: 80, align: 'right' },
      { label: 'Status', width: 80, align: 'left' },
      { label: 'Time', width: 145, align: 'left' },
    ]);
    refunds.header();
    for (const refund of order.refunds) refunds.row([refund.id, amount(refund.amount), refund.status, utcSeconds(refund.created)], 'Regular');
  }
  const { withdrawal } = order;
  if (withdrawal === null) none('Withdrawal: none declared.');
  else {
    writeFacts(doc, [
      ['Withdrawal declared', utcSeconds(withdrawal.requested_at)],
      ['Withdrawal status', withdrawal.status],
      ['Reason given', withdrawal.reason ?? 'none'],
    ]);
  }

  writeSectionHeading(doc, 'Withdrawal waiver');
  const waiver = order.withdrawal_waiver;
  if (waiver === null) none('No waiver of the right of withdrawal was given with this order.');
  else {
    const wording = waiverText(waiver.text_version);
    writeFacts(doc, [
      ['Accepted at', utcSeconds(waiver.accepted_at)],
      ['Text version', waiver.text_version],
      ['Checkbox 1', wording?.deliveryConsent ?? 'wording of this version unknown'],
      ['Checkbox 2', wording?.acknowledgement ?? 'wording of this version unknown'],
    ]);
  }

  writeSectionHeading(doc, 'Customer');
  writeFacts(doc, [
    ['E-mail', order.customer_email ?? 'not given'],
    ['Name', payment.customerName ?? 'not given'],
    ['VAT ID', payment.vatId ?? 'none'],
    ['IP address at payment', buyerData(payment.ip, payment.paidAt, preparedAt)],
    ['User agent at payment', buyerData(payment.userAgent, payment.paidAt, preparedAt)],
  ]);

  writeSectionHeading(doc, 'Downloads');
  if (evidence.downloads.length === 0) none('No file of this order was downloaded.');
  else {
    const table = pdfTable(doc, [
      { label: 'Time', width: 145, align: 'left' },
      { label: 'File', width: 270, align: 'left' },
      { label: 'Result', width: 80, align: 'left' },
    ]);
    table.header();
    for (const download of evidence.downloads) table.row([utc(download.createdAt), download.description, 'served'], 'Regular');
  }

  writeSectionHeading(doc, 'License key validations');
  const { validations } = evidence;
  if (validations.total === 0) none('No license key of this order was validated.');
  else {
    const table = pdfTable(doc, [
      { label: 'Time', width: 145, align: 'left' },
      { label: 'Key (last group shown)', width: 270, align: 'left' },
      { label: 'Result', width: 80, align: 'left' },
    ]);
    table.header();
    const row = (validation: ValidationLine) => table.row([utc(validation.createdAt), maskedLicenseKey(validation.key), validation.result], 'Regular');
    validations.first.forEach(row);
    if (validations.last.length > 0) {
      table.row(['…', `${validations.total - validations.first.length - validations.last.length} more validations`, ''], 'Regular', COLOURS.muted);
      validations.last.forEach(row);
    }
    doc.moveDown(0.2);
    none(`${validations.total} validation${validations.total === 1 ? '' : 's'} in all.`);
  }

  writeSectionHeading(doc, 'E-mails to the customer');
  if (evidence.emails.length === 0) none('No e-mail was written to the customer about this order.');
  else {
    // The subject has the page's width: it often names an id, which must not break.
    const table = pdfTable(doc, [
      { label: 'Time', width: 122, align: 'left' },
      { label: 'E-mail', width: 373, align: 'left' },
    ]);
    table.header();
    for (const mail of evidence.emails) {
      const sent = mail.sentAt === null ? '' : ` at ${utc(mail.sentAt)}`;
      table.row([utc(mail.createdAt), `${mail.subject}\n${mail.template} e-mail to ${mail.to}: ${mail.status}${sent}`], 'Regular');
    }
  }

  writeSectionHeading(doc, 'Evidence');
  for (const [field, title] of Object.entries(EVIDENCE_TITLES) as [EvidenceField, string][]) {
    const text = evidenceOf(dispute)[field];
    // A title is kept with the first lines of its text.
    if (doc.y + 50 > CONTENT_BOTTOM) doc.addPage();
    doc.font('Bold').fontSize(10).fillColor(COLOURS.text).text(title, PAGE.margin, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.2);
    none(text ?? 'Not given.');
    doc.moveDown(0.4);
  }

  const footer = [operator.legalName, operator.address, `VAT ID: ${operator.vatId}`, operator.email].join(' · ');
  writeFooters(doc, footer, (current, total) => `${dispute.id} · Page ${current} of ${total}`);
  return finish();
}

/** GET /disputes/{id}/evidence.pdf: the pack of a dispute of the scope, in any status. */
export async function disputeEvidencePdf(deps: EvidenceDeps, scope: Scope, id: string): Promise<PdfFile> {
  const bytes = await renderDisputeEvidence(await readDisputeEvidence(deps, scope, id), deps.config.operator);
  return { filename: `evidence-${id}.pdf`, content_type: 'application/pdf', content_base64: bytes.toString('base64') };
}
