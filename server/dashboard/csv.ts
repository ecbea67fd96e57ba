/**
 * CSV exports of the dashboard's lists: every order, customer or subscription the list's filters
 * match, newest first, streamed page by page (a store's 100,000 orders are never in memory at
 * once). RFC 4180: a header row, CRLF line ends, a field quoted when it holds `"`, `,`, `;`, tab,
 * CR or LF, quotes doubled. A cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with
 * `'` so a spreadsheet shows it as text instead of running it as a formula, and so is every part of
 * a cell after a `,`, `;`, tab, CR or LF: a spreadsheet that splits on one of them (a `;` locale,
 * or quotes ignored) starts a cell there. The rule applies to every text cell; a number (integer
 * cents, signed in the ledger) is written as it is, which no spreadsheet runs as a formula. Times
 * are ISO 8601 UTC to the second (the API's epoch seconds); an empty cell is null.
 */
import type { Database } from '@/db/client';
import { customers, orders, subscriptions } from '@/db/schema';
import type { BalanceTransaction, BalanceTransactionListFilters } from '../balance/schemas';
import { listBalanceTransactions } from '../balance/service';
import type { Clock } from '../clock';
import { listAll } from '../kit/list';
import type { Scope } from '../kit/scope';
import { orderListConditions } from '../orders/service';
import type { OrderListFilters } from '../orders/schemas';
import { customerSearchConditions, type CustomerSearch } from './customers';
import { subscriptionSearchConditions, type SubscriptionSearch } from './subscriptions';

type Cell = string | number | Date | null;

/** A formula's first character at the cell's start or after a separator a spreadsheet may split on. */
const FORMULA_STARTS = /(^|[,;\t\r\n])(?=[=+\-@\t\r])/g;
const NEEDS_QUOTES = /[",;\t\r\n]/;

/** One field: a number as it is; text neutralised against formulas, then quoted if it holds a quote or a separator. */
export function csvField(value: Cell): string {
  if (typeof value === 'number') return String(value);
  const text = (value === null ? '' : value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, 'Z') : String(value)).replace(FORMULA_STARTS, "$1'");
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRecord(cells: Cell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/** Rows read per query; large enough that 100,000 orders take a hundred reads, small enough to hold. */
const EXPORT_PAGE_SIZE = 1000;

export interface ExportOptions {
  pageSize?: number;
}

interface ExportDeps {
  db: Database;
}

/** The header row, then one chunk per page read; a page is read only when the consumer asks for more. */
async function* csvChunks<Row>(header: string[], pages: AsyncIterable<Row[]>, cells: (row: Row) => Cell[]): AsyncGenerator<string> {
  yield csvRecord(header);
  for await (const rows of pages) yield rows.map((row) => csvRecord(cells(row))).join('');
}

const ORDER_COLUMNS = ['id', 'created', 'status', 'customer_email', 'customer_id', 'amount_subtotal', 'amount_tax', 'amount_total', 'amount_refunded', 'currency', 'card_brand', 'card_last4'];

/** orders.csv: the orders GET /orders would list with these filters, every page. */
export function exportOrdersCsv(deps: ExportDeps, scope: Scope, filters: OrderListFilters, options: ExportOptions = {}): AsyncIterable<string> {
  const pages = listAll(deps.db, orders, { scope, pageSize: options.pageSize ?? EXPORT_PAGE_SIZE, ...orderListConditions(filters) });
  return csvChunks(ORDER_COLUMNS, pages, (row) => [
    row.id,
    row.createdAt,
    row.status,
    row.customerEmail,
    row.customerId,
    row.amountSubtotal,
    row.amountTax,
    row.amountTotal,
    row.amountRefunded,
    'eur',
    row.cardBrand,
    row.cardLast4,
  ]);
}

const CUSTOMER_COLUMNS = ['id', 'created', 'email', 'name'];

/** customers.csv: the customers the list page shows with these filters (deleted ones left out). */
export function exportCustomersCsv(deps: ExportDeps, scope: Scope, filters: CustomerSearch, options: ExportOptions = {}): AsyncIterable<string> {
  const pages = listAll(deps.db, customers, { scope, pageSize: options.pageSize ?? EXPORT_PAGE_SIZE, ...customerSearchConditions(filters) });
  return csvChunks(CUSTOMER_COLUMNS, pages, (row) => [row.id, row.createdAt, row.email, row.name]);
}

const SUBSCRIPTION_COLUMNS = ['id', 'created', 'status', 'customer_email', 'plan_name', 'amount', 'currency', 'interval', 'interval_count', 'current_period_end', 'canceled_at'];

/** subscriptions.csv: the subscriptions the list page shows with these filters. */
export function exportSubscriptionsCsv(deps: ExportDeps, scope: Scope, filters: SubscriptionSearch, options: ExportOptions = {}): AsyncIterable<string> {
  const pages = listAll(deps.db, subscriptions, { scope, pageSize: options.pageSize ?? EXPORT_PAGE_SIZE, ...subscriptionSearchConditions(filters) });
  return csvChunks(SUBSCRIPTION_COLUMNS, pages, (row) => [
    row.id,
    row.createdAt,
    row.status,
    row.customerEmail,
    row.planName,
    row.amount,
    'eur',
    row.interval,
    row.intervalCount,
    row.currentPeriodEnd,
    row.canceledAt,
  ]);
}

const BALANCE_TRANSACTION_COLUMNS = ['id', 'created', 'available_on', 'type', 'amount', 'currency', 'source_type', 'source_id', 'description', 'status', 'payout_id'];

/** Every page of GET /balance_transactions with these filters, read one after the other (entries are never removed, so a cursor stays valid). */
async function* balanceTransactionPages(deps: { db: Database; clock: Clock }, scope: Scope, filters: BalanceTransactionListFilters, pageSize: number): AsyncGenerator<BalanceTransaction[]> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await listBalanceTransactions(deps, scope, { ...filters, limit: pageSize, starting_after: startingAfter });
    if (page.data.length > 0) yield page.data;
    if (!page.has_more) return;
    startingAfter = page.data.at(-1)!.id;
  }
}

const epochDate = (seconds: number) => new Date(seconds * 1000);

/** balance_transactions.csv: the entries GET /balance_transactions lists with these filters, newest first; `clock` is the store's (it decides `status`). */
export function exportBalanceTransactionsCsv(deps: { db: Database; clock: Clock }, scope: Scope, filters: BalanceTransactionListFilters, options: ExportOptions = {}): AsyncIterable<string> {
  const pages = balanceTransactionPages(deps, scope, filters, options.pageSize ?? EXPORT_PAGE_SIZE);
  return csvChunks(BALANCE_TRANSACTION_COLUMNS, pages, (entry) => [
    entry.id,
    epochDate(entry.created),
    epochDate(entry.available_on),
    entry.type,
    entry.amount,
    entry.currency,
    entry.source?.type ?? null,
    entry.source?.id ?? null,
    entry.description,
    entry.status,
    entry.payout_id,
  ]);
}

/** Chunks as they come: a large export is never held whole in memory. */
function streamOf(chunks: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** An export as a streamed attachment named `filename`. */
export function csvDownload(filename: string, chunks: AsyncIterable<string>): Response {
  return new Response(streamOf(chunks), {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
    },
  });
}

/** An export refused (403) or asked with a query it cannot take (400), as plain text. */
export function csvRefusal(text: string, status: 403 | 400): Response {
  return new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}
