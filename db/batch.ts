/**
 * Many rows' values as one relation of a statement: `json_to_recordset` over one JSON parameter,
 * so a statement that writes N rows with N different values is one statement of one text,
 * whatever N is (PostgreSQL and PGlite alike).
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

type ColumnsOf<T extends PgTable> = keyof T['_']['columns'] & string;

/** `json_to_recordset(<json>) as <alias>(<column type>, …)`: the rows of a JSON array (a parameter or placeholder) as a relation. */
export function jsonRecordset(json: unknown, alias: string, columns: Readonly<Record<string, string>>): SQL {
  const definitions = Object.entries(columns)
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');
  return sql`json_to_recordset(${json}::json) as ${sql.raw(alias)}(${sql.raw(definitions)})`;
}

/** The relation's column definitions for `fields`: `table`'s column names and SQL types. */
export function batchColumns<T extends PgTable, F extends ColumnsOf<T>>(table: T, fields: readonly F[]): Record<string, string> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  return Object.fromEntries(fields.map((field) => [columns[field]!.name, columns[field]!.getSQLType()]));
}

/** The JSON of each row's `fields` under `table`'s column names: what jsonRecordset reads. */
export function batchJson<T extends PgTable, F extends ColumnsOf<T>>(table: T, fields: readonly F[], rows: readonly Record<F, unknown>[]): string {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const names = fields.map((field) => columns[field]!.name);
  // Dates become ISO text, which the column's timestamptz reads back exactly.
  return JSON.stringify(rows.map((row) => Object.fromEntries(fields.map((field, index) => [names[index]!, row[field] ?? null]))));
}

/** jsonRecordset of each row's `fields`, typed as `table`'s columns and named as they are. */
export function batchRelation<T extends PgTable, F extends ColumnsOf<T>>(table: T, alias: string, fields: readonly F[], rows: readonly Record<F, unknown>[]): SQL {
  return jsonRecordset(batchJson(table, fields, rows), alias, batchColumns(table, fields));
}

/** Each of `fields` as the batch relation `alias`'s column: the values of a `.set()` or of an insert's select. */
export function fromBatch<T extends PgTable, F extends ColumnsOf<T>>(table: T, alias: string, fields: readonly F[]): Record<F, SQL> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  return Object.fromEntries(fields.map((field) => [field, sql.raw(`${alias}.${columns[field]!.name}`)])) as Record<F, SQL>;
}
