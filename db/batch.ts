/**
 * Many rows' values as one relation of a statement: `json_to_recordset` over one JSON parameter,
 * so a statement that updates N rows with N different values is one statement of one text,
 * whatever N is (PostgreSQL and PGlite alike).
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

type ColumnsOf<T extends PgTable> = keyof T['_']['columns'] & string;

/** `json_to_recordset(<json>) as <alias>(<column type>, …)`: the rows of a JSON array (a parameter or placeholder) as a relation. */
export function jsonRecordset(json: unknown, alias: string, columns: Readonly<Record<string, string>>): SQL {
  const definitions = Object.entries(columns).map(([name, type]) => `${name} ${type}`).join(', ');
  return sql`json_to_recordset(${json}::json) as ${sql.raw(alias)}(${sql.raw(definitions)})`;
}

/** jsonRecordset of each row's `fields`, typed as `table`'s columns and named as they are. */
export function batchRelation<T extends PgTable, F extends ColumnsOf<T>>(table: T, alias: string, fields: readonly F[], rows: readonly Record<F, unknown>[]): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  // Dates become ISO text, which the column's timestamptz reads back exactly.
  const json = rows.map((row) => Object.fromEntries(fields.map((field) => [columns[field]!.name, row[field] ?? null])));
  return jsonRecordset(JSON.stringify(json), alias, Object.fromEntries(fields.map((field) => [columns[field]!.name, columns[field]!.getSQLType()])));
}

/** For `.set()`: each of `fields` takes its value from the batch relation `alias`. */
export function setFromBatch<T extends PgTable, F extends ColumnsOf<T>>(table: T, alias: string, fields: readonly F[]): Record<F, SQL> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  return Object.fromEntries(fields.map((field) => [field, sql.raw(`${alias}.${columns[field]!.name}`)])) as Record<F, SQL>;
}
