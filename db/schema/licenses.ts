import { boolean, index, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';
import { products } from './products';
import { stores } from './stores';

/**
 * License keys issued for paid order lines of products with a license, one per line.
 * A revoked key stops validating; force-deleting its product revokes it.
 */
export const licenseKeys = pgTable(
  'license_keys',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    productId: text('product_id').references(() => products.id, { onDelete: 'set null' }),
    orderId: text('order_id'),
    orderLineId: text('order_line_id'),
    key: text('key').notNull().unique(),
    createdAt: timestamptz('created_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [index('license_keys_product_idx').on(t.productId), index('license_keys_order_idx').on(t.orderId)],
);
