import { sql, type SQL } from 'drizzle-orm';
import { timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

/** Every time column is timestamptz; the API turns them into epoch seconds. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A CHECK condition: `column` holds one of `values` (the list the code writes, from the schema). */
export function oneOf(column: AnyPgColumn, values: readonly string[]): SQL {
  return sql`${column} in (${sql.raw(values.map((value) => `'${value}'`).join(', '))})`;
}

/** The languages customers' documents (invoices, credit notes, e-mails) are written in. */
export const DOCUMENT_LANGUAGES = ['en', 'de'] as const;
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];
