/**
 * The layout the service's PDFs share (pdfkit on A4): a title with its number, a party beside its
 * facts, tables that continue on a new page under their header, and a footer on every page.
 * Invoices and credit notes (pdf.ts), payout statements and dispute evidence packs are drawn with
 * it, so they read alike.
 *
 * Noto Sans is embedded (only the glyphs used): the PDF standard fonts cover Western European
 * letters only, and buyers are named in every EU language.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const FONT_DIR = path.join(/* turbopackIgnore: true */ process.cwd(), 'node_modules', '@expo-google-fonts', 'noto-sans');
let fonts: { regular: Buffer; bold: Buffer } | undefined;

function loadFonts() {
  fonts ??= {
    regular: readFileSync(path.join(FONT_DIR, '400Regular', 'NotoSans_400Regular.ttf')),
    bold: readFileSync(path.join(FONT_DIR, '700Bold', 'NotoSans_700Bold.ttf')),
  };
  return fonts;
}

export const PAGE = { width: 595.28, height: 841.89, margin: 50 };
export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
/** The size of a fact's value (dates, ids). */
const FACT_SIZE = 9.5;
/** Below this the footer starts: content that would reach it continues on a new page. */
export const CONTENT_BOTTOM = PAGE.height - 110;
export const COLOURS = { text: '#1a1a1a', muted: '#5b5b66', rule: '#d0d0d8', accent: '#3d3aa8' };

export type Pdf = PDFKit.PDFDocument;
export type PdfFont = 'Regular' | 'Bold';

/** A new A4 document with the fonts registered; `finish` ends it and resolves to its bytes. */
export async function openPdf(info: { title: string; author: string; createdAt: Date; language: string }): Promise<{ doc: Pdf; finish(): Promise<Buffer> }> {
  // pdfkit loads with the first document, not with every process that never renders one.
  const { default: PDFDocument } = await import('pdfkit');
  const { regular, bold } = loadFonts();
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.height - CONTENT_BOTTOM },
    bufferPages: true,
    // The document's own time, not the render time: the same document gives the same metadata.
    info: { Title: info.title, Author: info.author, CreationDate: info.createdAt },
    lang: info.language,
  });
  doc.registerFont('Regular', regular);
  doc.registerFont('Bold', bold);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return {
    doc,
    finish() {
      doc.end();
      return done;
    },
  };
}

/** The title, the number line under it, and in test mode the notice that the document has no effect. */
export function writeTitle(doc: Pdf, heading: { title: string; numberLine: string; testModeNotice?: string }): void {
  doc.font('Bold').fontSize(22).fillColor(COLOURS.accent).text(heading.title, PAGE.margin, PAGE.margin);
  doc.font('Regular').fontSize(10).fillColor(COLOURS.muted).text(heading.numberLine);
  if (heading.testModeNotice) doc.font('Bold').fillColor('#b42318').text(heading.testModeNotice, { width: CONTENT_WIDTH });
  doc.moveDown(1.2);
}

/** A party as a block: its heading, name (bold), lines, and a muted note under them. */
export interface PdfParty {
  heading: string;
  name: string;
  lines: string[];
  note?: string;
}

/** A party's block at the left margin, `width` wide (the page's by default). */
export function writeParty(doc: Pdf, party: PdfParty, top: number, width = CONTENT_WIDTH): void {
  doc.font('Bold').fontSize(9).fillColor(COLOURS.muted).text(party.heading.toUpperCase(), PAGE.margin, top, { width });
  doc.font('Bold').fontSize(10).fillColor(COLOURS.text).text(party.name, { width });
  doc.font('Regular');
  for (const line of party.lines) doc.text(line, { width });
  if (party.note) doc.fillColor(COLOURS.muted).text(party.note, { width });
}

/** A party (left) beside label and value pairs (right: dates, ids); the page continues below the longer of the two. */
export function writePartyAndFacts(doc: Pdf, party: PdfParty, facts: [string, string][]): void {
  const left = PAGE.margin;
  const blockTop = doc.y;
  // The facts' column is wide enough for an id (`sub_test_…`) on one line.
  const factsX = left + CONTENT_WIDTH / 2 - 30;
  writeParty(doc, party, blockTop, factsX - left - 15);
  const partyBottom = doc.y;
  let factsY = blockTop;
  for (const [label, value] of facts) {
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
  doc.y = Math.max(partyBottom, factsY) + 14;
}

export interface PdfColumn {
  label: string;
  width: number;
  align: 'left' | 'right';
}

/** A full-width hairline at the current position. */
export function writeRule(doc: Pdf): void {
  doc
    .moveTo(PAGE.margin, doc.y)
    .lineTo(PAGE.margin + CONTENT_WIDTH, doc.y)
    .lineWidth(0.6)
    .strokeColor(COLOURS.rule)
    .stroke();
  doc.y += 5;
}

/**
 * A table of `columns` (their widths summing to the content width): `header` draws the labels, and
 * a row that would reach the footer starts a new page under the header again.
 */
export function pdfTable(doc: Pdf, columns: readonly PdfColumn[]) {
  const row = (cells: string[], font: PdfFont, colour = COLOURS.text) => {
    doc.font(font).fontSize(9.5);
    const height = Math.max(...cells.map((cell, index) => doc.heightOfString(cell, { width: columns[index]!.width - 6 })));
    if (doc.y + height > CONTENT_BOTTOM) {
      doc.addPage();
      header();
      doc.font(font).fontSize(9.5);
    }
    const top = doc.y;
    let x = PAGE.margin;
    cells.forEach((cell, index) => {
      const column = columns[index]!;
      doc.fillColor(colour).text(cell, x + 3, top, { width: column.width - 6, align: column.align });
      x += column.width;
    });
    doc.y = top + height + 5;
  };
  const header = () => {
    row(
      columns.map((column) => column.label),
      'Bold',
      COLOURS.muted,
    );
    writeRule(doc);
  };
  return { header, row };
}

/** A section's heading across the page, kept on one page with the first lines under it. */
export function writeSectionHeading(doc: Pdf, title: string): void {
  doc.moveDown(0.8);
  if (doc.y + 80 > CONTENT_BOTTOM) doc.addPage();
  doc.font('Bold').fontSize(12).fillColor(COLOURS.accent).text(title, PAGE.margin, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.2);
  writeRule(doc);
}

/**
 * Label and value pairs, one pair a row: the label in a narrow column, the value wrapping beside
 * it; a pair that would reach the footer starts a new page.
 */
export function writeFacts(doc: Pdf, facts: readonly [string, string][], labelWidth = 150): void {
  const valueWidth = CONTENT_WIDTH - labelWidth;
  for (const [label, value] of facts) {
    doc.font('Regular').fontSize(9.5);
    const height = Math.max(doc.heightOfString(label, { width: labelWidth - 6 }), doc.heightOfString(value, { width: valueWidth }));
    if (doc.y + height > CONTENT_BOTTOM) doc.addPage();
    const top = doc.y;
    doc.fillColor(COLOURS.muted).text(label, PAGE.margin, top, { width: labelWidth - 6 });
    doc.fillColor(COLOURS.text).text(value, PAGE.margin + labelWidth, top, { width: valueWidth });
    doc.y = top + height + 3;
  }
}

/** Paragraphs across the page, in order. */
export function writeNotices(doc: Pdf, notices: readonly string[]): void {
  for (const notice of notices) {
    doc.font('Regular').fontSize(9.5).fillColor(COLOURS.text).text(notice, PAGE.margin, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.5);
  }
}

/** Every page: `footer` (the issuer's details) and the page's label, below the content area. */
export function writeFooters(doc: Pdf, footer: string, pageLabel: (current: number, count: number) => string): void {
  const left = PAGE.margin;
  const range = doc.bufferedPageRange();
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
    doc.text(pageLabel(index + 1, range.count), left, doc.y + 2, { width: CONTENT_WIDTH, align: 'center' });
  }
}
