import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';
import { stores } from './stores';

/**
 * Customers, created or matched by email within one store and environment when a payment
 * settles. Deleting one keeps the row (orders point at it) but frees its email.
 */
export const customers = pgTable(
  'customers',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    /** Lower-cased, so matching by email is case-insensitive. */
    email: text('email').notNull(),
    name: text('name'),
    createdAt: timestamptz('created_at').notNull(),
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [
    uniqueIndex('customers_email_unique').on(t.storeId, t.livemode, t.email).where(sql`${t.deletedAt} is null`),
    // GET /customers, newest first; the email filter uses customers_email_unique.
    index('customers_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    // The dashboard's search by the start of an e-mail (`LIKE 'ada@%'`): pattern order, whatever the collation.
    index('customers_email_prefix_idx').on(t.storeId, t.livemode, t.email.op('text_pattern_ops')).where(sql`${t.deletedAt} is null`),
  ],
);
