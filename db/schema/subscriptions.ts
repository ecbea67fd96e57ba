import { boolean, index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';
import { products } from './products';
import { stores } from './stores';
import type { PriceInterval } from './products';

export type SubscriptionStatus =
  | 'active'
  | 'incomplete'
  | 'past_due'
  | 'canceled'
  | 'expired'
  | 'pending'
  | 'suspended';

/** Statuses that keep a product from being deleted (spec 4.1 delete guards). */
export const PRODUCT_BLOCKING_SUBSCRIPTION_STATUSES: SubscriptionStatus[] = [
  'pending',
  'active',
  'past_due',
  'suspended',
];

/** Subscriptions (spec 2.6). Billing fills them in; the catalog only reads them for its guard. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    status: text('status').$type<SubscriptionStatus>().notNull(),
    amount: integer('amount').notNull(),
    interval: text('interval').$type<PriceInterval>().notNull(),
    intervalCount: integer('interval_count').notNull(),
    totalPayments: integer('total_payments').notNull(),
    recurringId: text('recurring_id').notNull(),
    customerId: text('customer_id'),
    customerEmail: text('customer_email').notNull(),
    customerName: text('customer_name'),
    productId: text('product_id').references(() => products.id, { onDelete: 'set null' }),
    priceId: text('price_id'),
    failureCount: integer('failure_count').notNull().default(0),
    currentPeriodStart: timestamptz('current_period_start').notNull(),
    currentPeriodEnd: timestamptz('current_period_end').notNull(),
    nextBillingAt: timestamptz('next_billing_at').notNull(),
    canceledAt: timestamptz('canceled_at'),
    endedAt: timestamptz('ended_at'),
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [
    index('subscriptions_product_idx').on(t.productId),
    index('subscriptions_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
  ],
);
