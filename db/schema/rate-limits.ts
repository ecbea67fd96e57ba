import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';

/** Shared rate-limit counters (rate-limiter-flexible's Drizzle store) so every instance counts alike. */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull().default(0),
  expire: timestamptz('expire'),
});
