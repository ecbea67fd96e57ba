import { timestamp } from 'drizzle-orm/pg-core';

/** Every time column is timestamptz; the API turns them into epoch seconds. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
