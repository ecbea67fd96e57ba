/**
 * The PDFs of invoices and credit notes (pdfkit), in the customer's language: seller and buyer
 * (with the billing address and the country of taxation where known), number, dates of issue and
 * supply, the lines with their rates, VAT per rate, totals in EUR, the note on a sale without
 * VAT, the withdrawal waiver when given, and a footer with the seller's details on every page.
 * Rendered from the stored document alone, so a PDF reads the same however often and whenever it
 * is fetched.
 */
import { COLOURS, CONTENT_BOTTOM, CONTENT_WIDTH, openPdf, PAGE, pdfTable, writeFooters, writeNotices, writePartyAndFacts, writeRule, writeTitle } from './pdf-layout';
import { documentTexts, type DocumentTexts } from './texts';
import type { CreditNoteRow, InvoiceRow } from './view';
import type { CustomerDetails, DocumentLanguage, DocumentLine, TaxBreakdownEntry } from '@/db/schema';
import { countryName } from '../kit/countries';

interface Formatters {
  money(cents: number): string;
  date(at: Date): string;
}

function formattersFor(texts: DocumentTexts): Formatters {
  const money = new Intl.NumberFormat(texts.locale, { style: 'currency', currency: 'EUR' });
  const date = new Intl.DateTimeFormat(texts.locale, { dateStyle: 'long', timeZone: 'UTC' });
  return { money: (cents) => money.format(cents / 100), date: (at) => date.format(at) };
}

/** What both documents print: who sold to whom, and what. */
interface DocumentContent {
  title: string;
  number: string;
  livemode: boolean;
  issuedAt: Date;
  /** Label and value pairs beside the seller: dates and references. */
  facts: [string, string][];
  invoice: InvoiceRow;
  /** The document's own copy of the buyer's billing details and tax country (a credit note's are its invoice's). */
  taxation: Pick<InvoiceRow, 'customerDetails' | 'taxCountry'>;
  lines: DocumentLine[];
  breakdown: TaxBreakdownEntry[];
  subtotal: number;
  tax: number;
  total: number;
  totalLabel: string;
  notices: string[];
}

async function render(content: DocumentContent, texts: DocumentTexts): Promise<Buffer> {
  const format = formattersFor(texts);
  const invoice = content.invoice;
  const { doc, finish } = await openPdf({ title: `${content.title} ${content.number}`, author: invoice.sellerName, createdAt: content.issuedAt, language: invoice.language });
  const left = PAGE.margin;
  const half = CONTENT_WIDTH / 2;

  writeTitle(doc, { title: content.title, numberLine: `${texts.number} ${content.number}`, testModeNotice: content.livemode ? undefined : texts.testModeNotice });

  // Seller (left) and the facts (right), then the buyer.
  writePartyAndFacts(
    doc,
    { heading: texts.seller, name: invoice.sellerName, lines: [invoice.sellerAddress, `${texts.vatId}: ${invoice.sellerVatId}`], note: texts.soldOnBehalfOf(invoice.storeName) },
    content.facts,
  );
  doc.font('Bold').fontSize(9).fillColor(COLOURS.muted).text(texts.buyer.toUpperCase(), left, doc.y, { width: CONTENT_WIDTH });
  doc.font('Regular').fontSize(10).fillColor(COLOURS.text);
  if (invoice.customerName) doc.font('Bold').text(invoice.customerName).font('Regular');
  for (const line of buyerAddressLines(content.taxation.customerDetails, invoice.language)) doc.text(line);
  doc.text(invoice.customerEmail);
  if (invoice.buyerVatId) doc.text(`${texts.vatId}: ${invoice.buyerVatId}`);
  if (content.taxation.taxCountry) {
    doc.moveDown(0.4);
    doc.text(texts.countryOfTaxation(countryName(content.taxation.taxCountry, invoice.language)));
  }
  doc.moveDown(1.2);

  // The lines.
  const table = pdfTable(doc, [
    { label: texts.description, width: 190, align: 'left' },
    { label: texts.quantity, width: 50, align: 'right' },
    { label: texts.unitPrice, width: 70, align: 'right' },
    { label: texts.vatRate, width: 40, align: 'right' },
    { label: texts.net, width: 70, align: 'right' },
    { label: texts.amount, width: 75, align: 'right' },
  ]);
  table.header();
  for (const line of content.lines) {
    table.row(
      [line.description, String(line.quantity), format.money(line.unit_amount), texts.rateLabel(line.tax_rate), format.money(line.amount_subtotal), format.money(line.amount_total)],
      'Regular',
    );
    // The net and amount above are after it; the row says what was taken off the unit price × quantity.
    if (invoice.discount !== null && (line.amount_discount ?? 0) > 0) table.row([texts.discountLine(invoice.discount.label, format.money(line.amount_discount!)), '', '', '', '', ''], 'Regular');
  }
  writeRule(doc);

  // VAT per rate, then the totals, kept together on one page.
  const summaryHeight = 40 + 16 * (content.breakdown.length + 3);
  if (doc.y + summaryHeight > CONTENT_BOTTOM) doc.addPage();
  doc.moveDown(0.6);
  const summaryTop = doc.y;
  doc.font('Bold').fontSize(9).fillColor(COLOURS.muted).text(texts.vatBreakdown.toUpperCase(), left, summaryTop, { width: half });
  doc.moveDown(0.3);
  const breakdownRow = (cells: string[], font: 'Regular' | 'Bold') => {
    const top = doc.y;
    doc
      .font(font)
      .fontSize(9.5)
      .fillColor(font === 'Bold' ? COLOURS.muted : COLOURS.text);
    doc.text(cells[0]!, left, top, { width: 60 });
    doc.text(cells[1]!, left + 60, top, { width: 90, align: 'right' });
    doc.text(cells[2]!, left + 150, top, { width: 90, align: 'right' });
    doc.y = top + 15;
  };
  breakdownRow([texts.vatRate, texts.netAtRate, texts.vatAtRate], 'Bold');
  for (const entry of content.breakdown) breakdownRow([texts.rateLabel(entry.rate), format.money(entry.amount_net), format.money(entry.amount_tax)], 'Regular');
  const breakdownBottom = doc.y;

  let totalsY = summaryTop;
  const totalRow = (label: string, value: string, font: 'Regular' | 'Bold', size = 10) => {
    doc.font(font).fontSize(size).fillColor(COLOURS.text);
    doc.text(label, left + half + 20, totalsY, { width: 130 });
    doc.text(value, left + half + 150, totalsY, { width: half - 150, align: 'right' });
    totalsY += size + 8;
  };
  totalRow(texts.subtotal, format.money(content.subtotal), 'Regular');
  totalRow(texts.totalVat, format.money(content.tax), 'Regular');
  doc
    .moveTo(left + half + 20, totalsY - 2)
    .lineTo(left + CONTENT_WIDTH, totalsY - 2)
    .lineWidth(0.8)
    .strokeColor(COLOURS.text)
    .stroke();
  totalsY += 4;
  totalRow(content.totalLabel, format.money(content.total), 'Bold', 12);
  doc.y = Math.max(breakdownBottom, totalsY) + 16;

  writeNotices(doc, content.notices);

  // Every page: the seller's details and the page number, below the content area.
  const footer = [invoice.sellerName, invoice.sellerAddress, `${texts.vatId}: ${invoice.sellerVatId}`, invoice.sellerEmail].join(' · ');
  writeFooters(doc, footer, (current, count) => `${content.number} · ${texts.page(current, count)}`);
  return finish();
}

/** The buyer's company and billing address as given, the country named in the document's language. */
function buyerAddressLines(details: CustomerDetails | null, language: DocumentLanguage): string[] {
  if (!details) return [];
  const address = details.address;
  const town = [address?.postal_code, address?.city].filter(Boolean).join(' ');
  return [details.company, address?.line1, town, address ? countryName(address.country, language) : null].filter((line): line is string => Boolean(line));
}

function supplyFact(invoice: InvoiceRow, texts: DocumentTexts, format: Formatters): [string, string] {
  const from = format.date(invoice.suppliedFrom);
  const until = format.date(invoice.suppliedUntil);
  return from === until ? [texts.supplyDate, from] : [texts.supplyPeriod, `${from} – ${until}`];
}

/** Every invoice documents an order; a subscription's also names the subscription it pays for. */
function referenceFacts(invoice: InvoiceRow, texts: DocumentTexts): [string, string][] {
  const order: [string, string] = [texts.orderReference, invoice.orderId!];
  return invoice.subscriptionId ? [order, [texts.subscriptionReference, invoice.subscriptionId]] : [order];
}

export function renderInvoicePdf(invoice: InvoiceRow): Promise<Buffer> {
  const texts = documentTexts(invoice.language);
  const format = formattersFor(texts);
  // The note says why no VAT was charged; without one, the plain fact does.
  const notices = [invoice.amountTotal === 0 ? texts.nothingDueNotice : texts.paidNotice];
  const noVat = invoice.taxNote ?? (invoice.amountTax === 0 ? texts.noVatNotice : null);
  if (noVat) notices.push(noVat);
  if (invoice.withdrawalWaiver) {
    notices.push(texts.withdrawalWaiver(format.date(new Date(invoice.withdrawalWaiver.accepted_at * 1000)), invoice.withdrawalWaiver.text_version));
  }
  return render(
    {
      title: texts.invoiceTitle,
      number: invoice.number,
      livemode: invoice.livemode,
      issuedAt: invoice.createdAt,
      facts: [[texts.issueDate, format.date(invoice.createdAt)], supplyFact(invoice, texts, format), ...referenceFacts(invoice, texts)],
      invoice,
      taxation: invoice,
      lines: invoice.lines,
      breakdown: invoice.taxBreakdown,
      subtotal: invoice.amountSubtotal,
      tax: invoice.amountTax,
      total: invoice.amountTotal,
      totalLabel: texts.total,
      notices,
    },
    texts,
  );
}

/** A credit note, with the buyer and seller of the invoice it corrects, in that invoice's language. */
export function renderCreditNotePdf(note: CreditNoteRow, invoice: InvoiceRow): Promise<Buffer> {
  const texts = documentTexts(invoice.language);
  const format = formattersFor(texts);
  return render(
    {
      title: texts.creditNoteTitle,
      number: note.number,
      livemode: note.livemode,
      issuedAt: note.createdAt,
      facts: [
        [texts.issueDate, format.date(note.createdAt)],
        [texts.creditedInvoice, `${invoice.number} (${format.date(invoice.createdAt)})`],
        supplyFact(invoice, texts, format),
        ...referenceFacts(invoice, texts),
        note.refundId === null ? [texts.disputeReference, note.disputeId!] : [texts.refundReference, note.refundId],
      ],
      invoice,
      taxation: note,
      lines: note.lines,
      breakdown: note.taxBreakdown,
      subtotal: note.amountSubtotal,
      tax: note.amountTax,
      total: note.amountTotal,
      totalLabel: texts.totalCredited,
      notices: [note.reason === 'refund' ? texts.creditNotice : texts.disputeCreditNotice, ...(note.taxNote ? [note.taxNote] : [])],
    },
    texts,
  );
}

/** `INV-7KQ2MX-000001.pdf`: the number, which is safe in a file name. */
export function pdfFilename(number: string): string {
  return `${number}.pdf`;
}
