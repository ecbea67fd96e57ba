import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { oneOf, TAX_CATEGORIES, timestamptz, type TaxCategory } from './columns';
import { stores } from './stores';

export type ProductType = 'digital' | 'physical';
export type PriceMode = 'one_time' | 'recurring';
export type PriceInterval = 'day' | 'week' | 'month' | 'year';

/**
 * A product and its single price. They are one row because they are created,
 * updated and deleted together; `price_id` is still its own unique id for checkout lookups.
 */
export const products = pgTable(
  'products',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** Unique across the whole platform, whatever the store or environment. */
    sku: text('sku').notNull().unique(),
    type: text('type').$type<ProductType>().notNull(),
    showInStore: boolean('show_in_store').notNull(),
    images: json('images').$type<string[]>().notNull(),
    taxRate: integer('tax_rate'),
    taxInclusive: boolean('tax_inclusive').notNull(),
    /** The VAT category that picks the buyer's country's rate where the store taxes by buyer country. */
    taxCategory: text('tax_category').$type<TaxCategory>().notNull().default('standard'),
    hasLicense: boolean('has_license').notNull().default(false),
    /** Delivery file location: set by the operator, never returned by any read. */
    fileUrl: text('file_url'),
    licenseDuration: text('license_duration'),
    priceId: text('price_id').notNull().unique(),
    amount: integer('amount').notNull(),
    priceMode: text('price_mode').$type<PriceMode>().notNull(),
    priceInterval: text('price_interval').$type<PriceInterval>(),
    priceIntervalCount: integer('price_interval_count'),
    priceActive: boolean('price_active').notNull(),
    priceCreatedAt: timestamptz('price_created_at').notNull(),
    priceUpdatedAt: timestamptz('price_updated_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (t) => [
    // Newest-first listing within one store and environment (`created` desc, then id desc).
    index('products_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    check('products_amount_nonnegative', sql`${t.amount} >= 0`),
    check('products_tax_category_check', oneOf(t.taxCategory, TAX_CATEGORIES)),
    check('products_interval_matches_mode', sql`(${t.priceMode} = 'recurring') = (${t.priceInterval} is not null and ${t.priceIntervalCount} is not null)`),
  ],
);
