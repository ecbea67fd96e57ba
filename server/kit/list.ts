/**
 * Lists of the API: the page fields (`limit`, `starting_after`), the `created` range filters,
 * newest-first order with a keyset cursor over (created_at, id), and the list envelope.
 */
import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { alias, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Database } from '@/db/client';
import { resourceMissing } from '../errors';
import { exampleOf } from './examples';
import { isEmailAddress } from './fields';
import { ownedBy, type Scope } from './scope';

/** `limit` and `starting_after`: in every list's query. */
export const pageFields = {
  limit: z.number().int().min(1).max(100).default(10).describe('Page size, 1–100; default 10.'),
  starting_after: z.string().min(1).optional().describe('The id of the last item of the previous page: the page continues after it.'),
};

/** The year 9999: later instants do not fit a timestamp. */
export const MAX_EPOCH_SECONDS = 253_402_300_799;

/** `created_gte` and `created_lte`, epoch seconds, both inclusive. */
export const createdRangeFields = {
  created_gte: z.number().int().min(0).max(MAX_EPOCH_SECONDS).optional().describe('Only items created at or after this time (epoch seconds).'),
  created_lte: z.number().int().min(0).max(MAX_EPOCH_SECONDS).optional().describe('Only items created at or before this time (epoch seconds).'),
};

export interface PageQuery {
  limit: number;
  starting_after?: string | undefined;
}

export interface CreatedRange {
  created_gte?: number | undefined;
  created_lte?: number | undefined;
}

/** A case-insensitive e-mail filter: shaped like an address, compared lower-cased. */
export const emailFilter = (description: string) =>
  z
    .string()
    .refine(isEmailAddress, 'must be an email address')
    .transform((email) => email.toLowerCase())
    .optional()
    .describe(description);

/** An id filter: `<prefix>_test_…` or `<prefix>_live_…`; anything else is refused rather than matching nothing. */
export const idFilter = (prefix: string, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_(test|live)_[0-9A-Za-z]{1,64}$`), `must be an id of the form ${prefix}_…`)
    .optional()
    .describe(description);

/**
 * `created_gte` / `created_lte` on a timestamp column. `created` is the epoch second the
 * timestamp falls in, so `created_lte = t` takes everything before the second after t.
 */
export function createdWithin(column: PgColumn, range: CreatedRange): SQL[] {
  const conditions: SQL[] = [];
  if (range.created_gte !== undefined) conditions.push(gte(column, new Date(range.created_gte * 1000)));
  if (range.created_lte !== undefined) conditions.push(lt(column, new Date((range.created_lte + 1) * 1000)));
  return conditions;
}

/** A table listed newest first: its tenancy columns, `id` and `created_at`. */
type ListedTable = PgTable & { id: PgColumn; createdAt: PgColumn; storeId: PgColumn; livemode: PgColumn };

/**
 * Spelled as the list indexes are declared (drizzle-kit writes `DESC NULLS LAST`): a plain
 * `desc` means NULLS FIRST, which such an index cannot return in order, and PostgreSQL would
 * then sort the store's rows for every page. The columns are NOT NULL, so the order is the same.
 */
export function newestFirst(table: ListedTable): SQL[] {
  return [sql`${table.createdAt} desc nulls last`, sql`${table.id} desc nulls last`];
}

export interface ListOptions<T extends ListedTable> {
  scope: Scope;
  page: PageQuery;
  /** The list's filters. */
  where?: (SQL | undefined)[];
  /** Rows the API never shows (deleted ones): hidden from the page and never a cursor. */
  visible?: (table: T) => SQL;
  /** What the list holds, for the 404 of an unknown cursor (`customer`). */
  kind: string;
}

/** The (created_at, id) of row `id` of the scope, for the keyset condition "after this row". */
function cursorRow<T extends ListedTable>(db: Database, table: T, scope: Scope, id: string, visible?: (table: T) => SQL) {
  const cursorTable = alias(table, 'cursor_row') as unknown as T;
  return db
    .select({ createdAt: cursorTable.createdAt, id: cursorTable.id })
    .from(cursorTable as PgTable)
    .where(and(eq(cursorTable.id, id), ownedBy(cursorTable, scope), visible?.(cursorTable)));
}

/** Up to `limit` rows of the scope matching `where`, newest first, after the cursor row if any. */
function rowsAfter<T extends ListedTable>(db: Database, table: T, options: Omit<ListOptions<T>, 'page' | 'kind'>, cursor: SQL | undefined, limit: number) {
  const conditions = [ownedBy(table, options.scope), options.visible?.(table), ...(options.where ?? [])];
  if (cursor !== undefined) conditions.push(sql`(${table.createdAt}, ${table.id}) < (${cursor})`);
  return db
    .select()
    .from(table as PgTable)
    .where(and(...conditions))
    .orderBy(...newestFirst(table))
    .limit(limit) as Promise<T['$inferSelect'][]>;
}

/**
 * One page, newest first, then by id. `starting_after` continues strictly after that row, looked
 * up inside the page query with the same scope, so an unknown, foreign, other-environment or
 * hidden cursor matches nothing; only an empty page takes a second look to tell such a cursor
 * (404 naming `starting_after`) from the end of the list. `limit + 1` rows tell whether another
 * page follows.
 */
export async function listPage<T extends ListedTable>(db: Database, table: T, options: ListOptions<T>): Promise<{ rows: T['$inferSelect'][]; hasMore: boolean }> {
  const { scope, page } = options;
  const cursor = () => cursorRow(db, table, scope, page.starting_after!, options.visible);
  const rows = await rowsAfter(db, table, options, page.starting_after === undefined ? undefined : sql`${cursor()}`, page.limit + 1);
  if (rows.length === 0 && page.starting_after !== undefined) {
    const [found] = await cursor();
    if (!found) throw resourceMissing(options.kind, page.starting_after, 'starting_after');
  }
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/**
 * Every row of a list, newest first, read `pageSize` rows at a time on the pages' keyset (for
 * exports). Each read continues after the last row yielded even if that row was hidden since
 * (a customer deleted during the export), which a page's `starting_after` would refuse.
 */
export async function* listAll<T extends ListedTable>(db: Database, table: T, options: Omit<ListOptions<T>, 'page' | 'kind'> & { pageSize: number }): AsyncGenerator<T['$inferSelect'][]> {
  let last: string | undefined;
  for (;;) {
    const cursor = last === undefined ? undefined : sql`${cursorRow(db, table, options.scope, last)}`;
    const rows = await rowsAfter(db, table, options, cursor, options.pageSize);
    if (rows.length > 0) yield rows;
    if (rows.length < options.pageSize) return;
    last = rows.at(-1)!.id as string;
  }
}

/** The list envelope. */
export interface List<Item, Url extends string> {
  object: 'list';
  data: Item[];
  has_more: boolean;
  url: Url;
  livemode: boolean;
}

export function listEnvelope<Item, Url extends string>(url: Url, scope: Scope, data: Item[], hasMore: boolean): List<Item, Url> {
  return { object: 'list', data, has_more: hasMore, url, livemode: scope.livemode };
}

/** The response schema of a list of `item` at `url`, named `id` in the OpenAPI document. */
export function listSchema<Item extends z.ZodType, Url extends string>(item: Item, url: Url, id: string) {
  const example = exampleOf(item);
  return z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean().describe('Whether another page follows; fetch it with `starting_after` = the last id of `data`.'),
      url: z.literal(url),
      livemode: z.boolean(),
    })
    .meta({ id, ...(example === undefined ? {} : { examples: [{ object: 'list', data: [example], has_more: false, url, livemode: false }] }) });
}
