import { and, eq, isNull, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { preparedPerShape } from '@/db/client';
import { customers, orders, portalSessions, subscriptions } from '@/db/schema';
import { claimKey, fromClaimed, rowIfClaimed } from '../kit/idempotency';
import { createdEventCtes } from '../webhooks/events';

export const [TARGET_CUSTOMER_BY_ID, TARGET_CUSTOMER_BY_EMAIL, TARGET_ORDER, TARGET_SUBSCRIPTION] = [0, 1, 2, 3];

/**
 * The target's read for each selector (customer by id, by e-mail, order, subscription), prepared
 * once: one runs on every create. Each answers the target's id, its customer's id, whether that
 * customer was deleted, and whether the target is in this store and environment. A read by id
 * finds the row by its primary key alone and tells the scope as a column: with the scope in its
 * condition, a plan made while the table was small kept scanning a store's whole index later.
 */
export const targetRead = preparedPerShape((executor, shape) => {
  const inScope = <T extends typeof customers | typeof orders | typeof subscriptions>(table: T) =>
    and(eq(table.storeId, sql.placeholder('storeId')), eq(table.livemode, sql.placeholder('livemode')))!;
  const scopeOf = <T extends typeof customers | typeof orders | typeof subscriptions>(table: T) => sql<boolean>`${inScope(table)}`;
  const target = sql.placeholder('target');
  if (shape === TARGET_CUSTOMER_BY_ID || shape === TARGET_CUSTOMER_BY_EMAIL) {
    const byId = shape === TARGET_CUSTOMER_BY_ID;
    return executor
      .select({ id: customers.id, customerId: customers.id, customerDeletedAt: customers.deletedAt, inScope: scopeOf(customers) })
      .from(customers)
      .where(and(isNull(customers.deletedAt), byId ? eq(customers.id, target) : and(inScope(customers), eq(customers.email, target))))
      .limit(1)
      .prepare(`portal_target_customer_${shape}`);
  }
  if (shape === TARGET_ORDER) {
    return executor
      .select({ id: orders.id, customerId: orders.customerId, customerDeletedAt: customers.deletedAt, inScope: scopeOf(orders) })
      .from(orders)
      .leftJoin(customers, eq(customers.id, orders.customerId))
      .where(eq(orders.id, target))
      .limit(1)
      .prepare('portal_target_order');
  }
  return executor
    .select({ id: subscriptions.id, customerId: customers.id, customerDeletedAt: customers.deletedAt, inScope: scopeOf(subscriptions) })
    .from(subscriptions)
    // subscriptions.customer_id has no foreign key: only a customer of this store and mode counts.
    .leftJoin(customers, and(eq(customers.id, subscriptions.customerId), inScope(customers)))
    .where(eq(subscriptions.id, target))
    .limit(1)
    .prepare('portal_target_subscription');
});

const placeholder = sql.placeholder;

/**
 * The session and its `portal.session.created` event (with its deliveries) as one statement:
 * atomic without a transaction, one round trip. With an `Idempotency-Key` (shape 1) it claims
 * the key first and writes only when it did (claimKey, rowIfClaimed). Every value is a
 * placeholder, so the statement is prepared once per executor and shape.
 */
export const portalInsert = preparedPerShape((executor, keyed) => {
  const claimed = keyed ? claimKey(executor) : undefined;
  const [newEvent, newDeliveries] = createdEventCtes(executor, 'portal.session.created', fromClaimed(claimed));
  const session: PgInsertValue<typeof portalSessions> = {
    id: placeholder('id'),
    storeId: placeholder('storeId'),
    livemode: placeholder('livemode'),
    scope: placeholder('scope'),
    customerId: placeholder('customerId'),
    orderId: placeholder('orderId'),
    subscriptionId: placeholder('subscriptionId'),
    tokenHash: placeholder('tokenHash'),
    tokenCiphertext: placeholder('tokenCiphertext'),
    metadata: placeholder('metadata'),
    createdAt: placeholder('createdAt'),
    expiresAt: placeholder('expiresAt'),
  };
  return executor
    .with(...(claimed ? [claimed, newEvent, newDeliveries] : [newEvent, newDeliveries]))
    .insert(portalSessions)
    .select(rowIfClaimed(claimed, portalSessions, session))
    .returning()
    .prepare(`portal_session_insert${keyed ? '_keyed' : ''}`);
});
