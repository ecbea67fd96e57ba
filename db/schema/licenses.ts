import { boolean, check, index, pgTable, text } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
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

/** What a validation found: the key active, or revoked (unknown keys are not recorded: no order to tell of). */
export const LICENSE_VALIDATION_RESULTS = ['active', 'revoked'] as const;
export type LicenseValidationResult = (typeof LICENSE_VALIDATION_RESULTS)[number];

/**
 * Each validation of a store's license key, with its time (the store's clock) and result: the
 * customer's use of what they bought, shown in a dispute's evidence pack.
 */
export const licenseValidations = pgTable(
  'license_validations',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    licenseKeyId: text('license_key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    orderId: text('order_id'),
    result: text('result').$type<LicenseValidationResult>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [index('license_validations_order_idx').on(t.orderId, t.createdAt), check('license_validations_result_check', oneOf(t.result, LICENSE_VALIDATION_RESULTS))],
);
