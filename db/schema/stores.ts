import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { DOCUMENT_LANGUAGES, oneOf, TAX_MODES, timestamptz, type DocumentLanguage, type TaxMode } from './columns';

/** When a store's payouts are made: Mondays or the 1st, 00:00 UTC on its clock, or only when asked. */
export const PAYOUT_SCHEDULES = ['weekly', 'monthly', 'manual'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

/** A merchant account. Its flags are switched by the operator (admin router / CLI). */
export const stores = pgTable(
  'stores',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    suspended: boolean('suspended').notNull().default(false),
    liveApi: boolean('live_api').notNull().default(true),
    amountMode: boolean('amount_mode').notNull().default(false),
    taxCalculation: boolean('tax_calculation').notNull().default(false),
    subscriptions: boolean('subscriptions').notNull().default(false),
    /** Whose VAT rate applies: the product's (`product_rate`) or the buyer's member state's (`buyer_country`). */
    taxMode: text('tax_mode').$type<TaxMode>().notNull().default('product_rate'),
    /**
     * Counted across the operator, never reused: the store's part of its invoice and credit note
     * numbers (server/invoices/numbering.ts), so those are unique across every store.
     */
    number: integer('number').generatedAlwaysAsIdentity().notNull().unique(),
    /** Shown on the store's hosted pages when set (absolute URLs, set by the operator). */
    logoUrl: text('logo_url'),
    termsUrl: text('terms_url'),
    privacyUrl: text('privacy_url'),
    /** The store's test clock: test-mode time is wall time plus this offset. */
    testClockOffsetSeconds: integer('test_clock_offset_seconds').notNull().default(0),
    /** The operator's fee on the store's payments: percent in hundredths (500 = 5%) and fixed cents; null takes PLATFORM_FEE_PERCENT / PLATFORM_FEE_FIXED. */
    feeBasisPoints: integer('fee_basis_points'),
    feeFixed: integer('fee_fixed'),
    /** Each environment's payout schedule. */
    payoutScheduleLive: text('payout_schedule_live').$type<PayoutSchedule>().notNull().default('weekly'),
    payoutScheduleTest: text('payout_schedule_test').$type<PayoutSchedule>().notNull().default('weekly'),
    /** The last schedule date a payout pass took up in each environment: each date is taken up once. */
    payoutsScheduledThroughLive: timestamptz('payouts_scheduled_through_live'),
    payoutsScheduledThroughTest: timestamptz('payouts_scheduled_through_test'),
    /** What the store's members read from us: its e-mails to them and its payout statements. */
    language: text('language').$type<DocumentLanguage>().notNull().default('en'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('stores_fee_basis_points_range', sql`${t.feeBasisPoints} between 0 and 10000`),
    check('stores_fee_fixed_range', sql`${t.feeFixed} >= 0`),
    check('stores_payout_schedule_live_check', oneOf(t.payoutScheduleLive, PAYOUT_SCHEDULES)),
    check('stores_payout_schedule_test_check', oneOf(t.payoutScheduleTest, PAYOUT_SCHEDULES)),
    check('stores_language_check', oneOf(t.language, DOCUMENT_LANGUAGES)),
    check('stores_tax_mode_check', oneOf(t.taxMode, TAX_MODES)),
  ],
);

/** API keys, stored only as SHA-256 hashes of the full key, never raw. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'secret' | 'publishable'>().notNull(),
    livemode: boolean('livemode').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    /** Prefix and last four characters, for audit lines and the dashboard; never the key. */
    keyHint: text('key_hint').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    revokedAt: timestamptz('revoked_at'),
    /** A rolled key keeps working until then; the lookup refuses it afterwards, as a revoked one. */
    expiresAt: timestamptz('expires_at'),
  },
  (t) => [index('api_keys_store_idx').on(t.storeId)],
);
