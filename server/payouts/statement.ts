/**
 * A paid payout's statement (PDF), in the store's language: who paid whom, the payout's dates and
 * destination, one row per cause of the entries it settled (a paid order, a refund, a dispute, an
 * adjustment, a payout given back) with its document and its gross, VAT, fee and net, the totals
 * per type of entry, and last the amount paid out. Every figure is a sum of the entries
 * themselves, so the rows, the totals and the amount agree to the cent.
 */
import { BALANCE_TRANSACTION_TYPES, type BalanceTransactionType } from '@/db/schema';
import type { OperatorConfig } from '../config';
import { COLOURS, CONTENT_BOTTOM, CONTENT_WIDTH, openPdf, PAGE, pdfTable, writeFooters, writeNotices, writeParty, writePartyAndFacts, writeRule, writeTitle } from '../invoices/pdf-layout';
import type { PdfFile } from '../invoices/schemas';
import { epochSeconds } from '../clock';
import type { Executor } from '@/db/client';
import { ibanLast4 } from '../kit/iban';
import { formattersFor } from '../kit/locale';
import type { Scope } from '../kit/scope';
import { readPayoutStatement, type PayoutStatement, type StatementEntry } from './service';
import { statementTexts, type StatementTexts } from './statement-texts';

/** The columns an entry's amount adds to: what the customer paid or got back, the VAT in it, the operator's fee. */
const COLUMN_OF: Record<Exclude<BalanceTransactionType, 'payout'>, 'gross' | 'vat' | 'fee'> = {
  payment: 'gross',
  refund: 'gross',
  dispute: 'gross',
  dispute_reversal: 'gross',
  adjustment: 'gross',
  payout_failure: 'gross',
  payout_cancel: 'gross',
  tax: 'vat',
  fee: 'fee',
  dispute_fee: 'fee',
};

interface CauseRow {
  createdAt: Date;
  document: string;
  gross: number;
  vat: number;
  fee: number;
  net: number;
}

/** What names a cause on the statement: its invoice or credit note, else what it is. */
function documentOf(entry: StatementEntry, texts: StatementTexts): string {
  if (entry.documentNumber !== null) return entry.documentNumber;
  if (entry.source === null) return texts.adjustment(entry.description);
  if (entry.source.type === 'dispute') return texts.dispute(entry.source.id);
  if (entry.type === 'payout_failure' || entry.type === 'payout_cancel') return texts.payoutReturned(entry.type, entry.source.id);
  return entry.source.id;
}

/** One row per cause (an adjustment has none: each is its own), in the order the causes were recorded. */
function causeRows(entries: readonly StatementEntry[], texts: StatementTexts): CauseRow[] {
  const rows = new Map<string, CauseRow>();
  for (const entry of entries) {
    const key = entry.source === null ? entry.id : `${entry.source.type}:${entry.source.id}`;
    let row = rows.get(key);
    if (!row) {
      row = { createdAt: entry.createdAt, document: documentOf(entry, texts), gross: 0, vat: 0, fee: 0, net: 0 };
      rows.set(key, row);
    }
    // A payout never settles another payout's `payout` entry.
    row[COLUMN_OF[entry.type as Exclude<BalanceTransactionType, 'payout'>]] += entry.amount;
    row.net += entry.amount;
  }
  return [...rows.values()];
}

/** The sum of each type of entry settled, in the ledger's order of types. */
function totalsByType(entries: readonly StatementEntry[]): [Exclude<BalanceTransactionType, 'payout'>, number][] {
  const totals = new Map<Exclude<BalanceTransactionType, 'payout'>, number>();
  for (const entry of entries) {
    const type = entry.type as Exclude<BalanceTransactionType, 'payout'>;
    totals.set(type, (totals.get(type) ?? 0) + entry.amount);
  }
  return BALANCE_TRANSACTION_TYPES.flatMap((type) => (type !== 'payout' && totals.has(type) ? [[type, totals.get(type)!] as [Exclude<BalanceTransactionType, 'payout'>, number]] : []));
}

export async function renderPayoutStatement(statement: PayoutStatement, operator: OperatorConfig): Promise<Buffer> {
  const { payout, store, entries } = statement;
  const texts = statementTexts(store.language);
  const format = formattersFor(texts.locale);
  const day = new Intl.DateTimeFormat(texts.locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const { doc, finish } = await openPdf({ title: `${texts.title} ${payout.id}`, author: operator.legalName, createdAt: payout.createdAt, language: store.language });
  const left = PAGE.margin;
  const half = CONTENT_WIDTH / 2;

  writeTitle(doc, { title: texts.title, numberLine: `${texts.payout} ${payout.id}`, testModeNotice: payout.livemode ? undefined : texts.testModeNotice });
  writePartyAndFacts(doc, { heading: texts.paidBy, name: operator.legalName, lines: [operator.address, `${texts.vatId}: ${operator.vatId}`] }, [
    [texts.created, format.date(epochSeconds(payout.createdAt))],
    // A paid payout has arrived.
    [texts.arrivalDate, format.date(epochSeconds(payout.arrivalDate!))],
    [texts.bankAccount, `•••• ${ibanLast4(payout.iban)}`],
    [texts.accountHolder, payout.accountHolder],
  ]);
  writeParty(doc, { heading: texts.paidTo, name: store.name, lines: [`${texts.storeId}: ${store.id}`] }, doc.y);
  doc.moveDown(1.2);

  const table = pdfTable(doc, [
    { label: texts.date, width: 68, align: 'left' },
    { label: texts.document, width: 147, align: 'left' },
    { label: texts.gross, width: 72, align: 'right' },
    { label: texts.vat, width: 67, align: 'right' },
    { label: texts.fee, width: 66, align: 'right' },
    { label: texts.net, width: 75, align: 'right' },
  ]);
  table.header();
  const rows = causeRows(entries, texts);
  for (const row of rows) table.row([day.format(row.createdAt), row.document, format.amount(row.gross), format.amount(row.vat), format.amount(row.fee), format.amount(row.net)], 'Regular');
  writeRule(doc);
  const sum = (column: 'gross' | 'vat' | 'fee' | 'net') => rows.reduce((total, row) => total + row[column], 0);
  table.row([texts.total, '', format.amount(sum('gross')), format.amount(sum('vat')), format.amount(sum('fee')), format.amount(sum('net'))], 'Bold');

  // The totals per type, then the amount paid out, kept together on one page.
  const totals = totalsByType(entries);
  if (doc.y + 60 + 18 * (totals.length + 1) > CONTENT_BOTTOM) doc.addPage();
  doc.moveDown(0.8);
  doc
    .font('Bold')
    .fontSize(9)
    .fillColor(COLOURS.muted)
    .text(texts.totalsByType.toUpperCase(), left + half, doc.y, { width: half });
  doc.moveDown(0.3);
  let y = doc.y;
  const totalRow = (label: string, cents: number, font: 'Regular' | 'Bold', size = 10) => {
    doc.font(font).fontSize(size).fillColor(COLOURS.text);
    doc.text(label, left + half, y, { width: half - 100 });
    const labelBottom = doc.y;
    doc.text(format.amount(cents), left + CONTENT_WIDTH - 100, y, { width: 100, align: 'right' });
    y = Math.max(labelBottom, doc.y) + 4;
  };
  for (const [type, cents] of totals) totalRow(texts.types[type], cents, 'Regular');
  doc
    .moveTo(left + half, y)
    .lineTo(left + CONTENT_WIDTH, y)
    .lineWidth(0.8)
    .strokeColor(COLOURS.text)
    .stroke();
  y += 6;
  totalRow(texts.paidOut, payout.amount, 'Bold', 12);
  doc.y = y + 16;

  writeNotices(doc, [texts.notInvoice, texts.signs]);
  const footer = [operator.legalName, operator.address, `${texts.vatId}: ${operator.vatId}`, operator.email].join(' · ');
  writeFooters(doc, footer, (current, count) => `${payout.id} · ${texts.page(current, count)}`);
  return finish();
}

/** GET /payouts/{id}/statement.pdf: the statement of a paid payout of the scope. */
export async function payoutStatementPdf(deps: { db: Executor; config: { operator: OperatorConfig } }, scope: Scope, id: string): Promise<PdfFile> {
  const statement = await readPayoutStatement(deps.db, scope, id);
  const bytes = await renderPayoutStatement(statement, deps.config.operator);
  return { filename: `statement-${id}.pdf`, content_type: 'application/pdf', content_base64: bytes.toString('base64') };
}
