import { and, eq, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { preparedOnce, preparedPerShape } from '@/db/client';
import { products, subscriptionCheckouts } from '@/db/schema';
import { auditInsertCte } from '../audit/service';
import { claimKey, fromClaimed, rowIfClaimed } from '../kit/idempotency';
import { ownedBy, rowById, SCOPE_PLACEHOLDERS } from '../kit/scope';

/** A subscription checkout by id in its store and mode, prepared once: merchants poll it. */
export const checkoutRead = preparedOnce((executor) => {
  const checkout = rowById(executor, subscriptionCheckouts, sql.placeholder('id'), 'target');
  return executor.select().from(checkout).where(ownedBy(checkout, SCOPE_PLACEHOLDERS)).prepare('subscription_checkout_read');
});

/** The price's product, prepared once: it runs on every create in price mode. */
export const planRead = preparedOnce((executor) =>
  executor
    .select()
    .from(products)
    .where(and(eq(products.priceId, sql.placeholder('priceId')), eq(products.storeId, sql.placeholder('storeId')), eq(products.livemode, sql.placeholder('livemode'))))
    .limit(1)
    .prepare('subscription_checkout_plan'),
);

const placeholder = sql.placeholder;

/**
 * The checkout and its audit line as one statement (data-modifying CTEs): atomic without a
 * transaction, one round trip. With an `Idempotency-Key` (shape 1) it claims the key first and
 * writes only when it did (claimKey, rowIfClaimed). Every value is a placeholder, so the
 * statement is prepared once per executor and shape.
 */
export const checkoutInsert = preparedPerShape((executor, keyed) => {
  const claimed = keyed ? claimKey(executor) : undefined;
  const checkout: PgInsertValue<typeof subscriptionCheckouts> = {
    id: placeholder('id'),
    storeId: placeholder('storeId'),
    livemode: placeholder('livemode'),
    status: 'open',
    amount: placeholder('amount'),
    interval: placeholder('interval'),
    intervalCount: placeholder('intervalCount'),
    totalPayments: placeholder('totalPayments'),
    planName: placeholder('planName'),
    priceId: placeholder('priceId'),
    productId: placeholder('productId'),
    customerEmail: placeholder('customerEmail'),
    customerName: placeholder('customerName'),
    successUrl: placeholder('successUrl'),
    metadata: placeholder('metadata'),
    createdAt: placeholder('createdAt'),
    expiresAt: placeholder('expiresAt'),
    taxMode: placeholder('taxMode'),
    taxCategory: placeholder('taxCategory'),
    taxInclusive: placeholder('taxInclusive'),
    trialDays: placeholder('trialDays'),
    discount: placeholder('discount'),
    allowPromotionCodes: placeholder('allowPromotionCodes'),
  };
  const newAudit = auditInsertCte(executor, 'subscription_checkout.create', fromClaimed(claimed));
  return executor
    .with(...(claimed ? [claimed, newAudit] : [newAudit]))
    .insert(subscriptionCheckouts)
    .select(rowIfClaimed(claimed, subscriptionCheckouts, checkout))
    .returning()
    .prepare(`subscription_checkout_insert${keyed ? '_keyed' : ''}`);
});
