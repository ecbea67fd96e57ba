/**
 * The PDFs of invoices and credit notes (pdfkit), in the customer's language: seller and buyer,
 * number, dates of issue and supply, the lines, VAT per rate, totals in EUR, the withdrawal
 * waiver when given, and a footer with the seller's details on every page. Rendered from the
 * stored document alone, so a PDF reads the same however often and whenever it is fetched.
 *
 * Noto Sans is embedded (only the glyphs used): the PDF standard fonts cover Western European
 * letters only, and buyers are named in every EU language.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { documentTexts, type DocumentTexts } from './texts';
import type { CreditNoteRow, InvoiceRow } from './view';
import type { DocumentLine, TaxBreakdownEntry } from '@/db/schema';

const FONT_DIR = path.join(/* turbopackIgnore: true */ process.cwd(), 'node_modules', '@expo-google-fonts', 'noto-sans');
let fonts: { regular: Buffer; bold: Buffer } | undefined;

function loadFonts() {
  fonts ??= {
    regular: readFileSync(path.join(FONT_DIR, '400Regular', 'NotoSans_400Regular.ttf')),
    bold: readFileSync(path.join(FONT_DIR, '700Bold', 'NotoSans_700Bold.ttf')),
  };
  return fonts;
}

const PAGE = { width: 595.28, height: 841.89, margin: 50 };
const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
/** The size of a fact's value (dates, the order or subscription id). */
const FACT_SIZE = 9.5;
/** Below this the footer starts: content that would reach it continues on a new page. */
const CONTENT_BOTTOM = PAGE.height - 110;
const COLOURS = { text: '#1a1a1a', muted: '#5b5b66', rule: '#d0d0d8', accent: '#3d3aa8' };

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
  lines: DocumentLine[];
  breakdown: TaxBreakdownEntry[];
  subtotal: number;
  tax: number;
  total: number;
  totalLabel: string;
  notices: string[];
}

async function render(content: DocumentContent, texts: DocumentTexts): Promise<Buffer> {
  // pdfkit loads with the first document, not with every process that never renders one.
  const { default: PDFDocument } = await import('pdfkit');
  const format = formattersFor(texts);
  const { regular, bold } = loadFonts();
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.height - CONTENT_BOTTOM },
    bufferPages: true,
    // The issue time, not the render time: the same document gives the same metadata.
    info: { Title: `${content.title} ${content.number}`, Author: content.invoice.sellerName, CreationDate: content.issuedAt },
    lang: content.invoice.language,
  });
  doc.registerFont('Regular', regular);
  doc.registerFont('Bold', bold);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const invoice = content.invoice;
  const left = PAGE.margin;
  const half = CONTENT_WIDTH / 2;

  // Title and number.
  doc.font('Bold').fontSize(22).fillColor(COLOURS.accent).text(content.title, left, PAGE.margin);
  doc.font('Regular').fontSize(10).fillColor(COLOURS.muted).text(`${texts.number} ${content.number}`);
  if (!content.livemode) doc.font('Bold').fillColor('#b42318').text(texts.testModeNotice, { width: CONTENT_WIDTH });
  doc.moveDown(1.2);

  // Seller (left) and the facts (right), then the buyer.
  const blockTop = doc.y;
  // The facts' column is wide enough for an id (`sub_test_…`) on one line.
  const factsX = left + half - 30;
  const sellerWidth = factsX - left - 15;
  doc.font('Bold').fontSize(9).fillColor(COLOURS.muted).text(texts.seller.toUpperCase(), left, blockTop, { width: sellerWidth });
  doc.font('Bold').fontSize(10).fillColor(COLOURS.text).text(invoice.sellerName, { width: sellerWidth });
  doc.font('Regular').text(invoice.sellerAddress, { width: sellerWidth });
  doc.text(`${texts.vatId}: ${invoice.sellerVatId}`, { width: sellerWidth });
  doc.fillColor(COLOURS.muted).text(texts.soldOnBehalfOf(invoice.storeName), { width: sellerWidth });
  const sellerBottom = doc.y;
  let factsY = blockTop;
  for (const [label, value] of content.facts) {
    doc.font('Regular').fontSize(9).fillColor(COLOURS.muted).text(label, factsX, factsY, { width: 92 });
    const valueWidth = left + CONTENT_WIDTH - factsX - 95;
    doc.font('Regular').fontSize(FACT_SIZE);
    // An id is one word: one wider than the column (its random characters vary) is set smaller rather
    // than split, with 1% to spare against the measure's rounding.
    const size = /\s/.test(value) ? FACT_SIZE : Math.min(FACT_SIZE, (FACT_SIZE * valueWidth * 0.99) / doc.widthOfString(value));
    doc
      .fontSize(size)
      .fillColor(COLOURS.text)
      .text(value, factsX + 95, factsY, { width: valueWidth });
    factsY = doc.y + 3;
  }
  doc.y = Math.max(sellerBottom, factsY) + 14;
  doc.font('Bold').fontSize(9).fillColor(COLOURS.muted).text(texts.buyer.toUpperCase(), left, doc.y, { width: CONTENT_WIDTH });
  doc.font('Regular').fontSize(10).fillColor(COLOURS.text);
  if (invoice.customerName) doc.font('Bold').text(invoice.customerName).font('Regular');
  doc.text(invoice.customerEmail);
  if (invoice.buyerVatId) doc.text(`${texts.vatId}: ${invoice.buyerVatId}`);
  doc.moveDown(1.2);

  // The lines.
  const columns = [
    { label: texts.description, width: 190, align: 'left' as const },
    { label: texts.quantity, width: 50, align: 'right' as const },
    { label: texts.unitPrice, width: 70, align: 'right' as const },
    { label: texts.vatRate, width: 40, align: 'right' as const },
    { label: texts.net, width: 70, align: 'right' as const },
    { label: texts.amount, width: 75, align: 'right' as const },
  ];
  const row = (cells: string[], font: 'Regular' | 'Bold', colour = COLOURS.text) => {
    doc.font(font).fontSize(9.5);
    const height = Math.max(...cells.map((cell, index) => doc.heightOfString(cell, { width: columns[index]!.width - 6 })));
    if (doc.y + height > CONTENT_BOTTOM) {
      doc.addPage();
      header();
      doc.font(font).fontSize(9.5);
    }
    const top = doc.y;
    let x = left;
    cells.forEach((cell, index) => {
      const column = columns[index]!;
      doc.fillColor(colour).text(cell, x + 3, top, { width: column.width - 6, align: column.align });
      x += column.width;
    });
    doc.y = top + height + 5;
  };
  const rule = () => {
    doc
      .moveTo(left, doc.y)
      .lineTo(left + CONTENT_WIDTH, doc.y)
      .lineWidth(0.6)
      .strokeColor(COLOURS.rule)
      .stroke();
    doc.y += 5;
  };
  const header = () => {
    row(
      columns.map((column) => column.label),
      'Bold',
      COLOURS.muted,
    );
    rule();
  };
  header();
  for (const line of content.lines) {
    row([line.description, String(line.quantity), format.money(line.unit_amount), texts.rateLabel(line.tax_rate), format.money(line.amount_subtotal), format.money(line.amount_total)], 'Regular');
  }
  rule();

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

  for (const notice of content.notices) {
    doc.font('Regular').fontSize(9.5).fillColor(COLOURS.text).text(notice, left, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.5);
  }

  // Every page: the seller's details and the page number, below the content area.
  const range = doc.bufferedPageRange();
  const footer = [invoice.sellerName, invoice.sellerAddress, `${texts.vatId}: ${invoice.sellerVatId}`, invoice.sellerEmail].join(' · ');
  for (let index = 0; index < range.count; index += 1) {
    doc.switchToPage(range.start + index);
    // Drawing below the bottom margin would start a new page.
    doc.page.margins.bottom = 0;
    const top = CONTENT_BOTTOM + 40;
    doc
      .moveTo(left, top)
      .lineTo(left + CONTENT_WIDTH, top)
      .lineWidth(0.6)
      .strokeColor(COLOURS.rule)
      .stroke();
    doc
      .font('Regular')
      .fontSize(8)
      .fillColor(COLOURS.muted)
      .text(footer, left, top + 8, { width: CONTENT_WIDTH, align: 'center' });
    doc.text(`${content.number} · ${texts.page(index + 1, range.count)}`, left, doc.y + 2, { width: CONTENT_WIDTH, align: 'center' });
  }
  doc.end();
  return done;
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
  const notices = [texts.paidNotice];
  if (invoice.amountTax === 0) notices.push(texts.noVatNotice);
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
        [texts.refundReference, note.refundId],
      ],
      invoice,
      lines: note.lines,
      breakdown: note.taxBreakdown,
      subtotal: note.amountSubtotal,
      tax: note.amountTax,
      total: note.amountTotal,
      totalLabel: texts.totalCredited,
      notices: [texts.creditNotice],
    },
    texts,
  );
}

/** `INV-7KQ2MX-000001.pdf`: the number, which is safe in a file name. */
export function pdfFilename(number: string): string {
  return `${number}.pdf`;
}
