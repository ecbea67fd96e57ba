import { and, eq, isNull, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { preparedPerShape } from '@/db/client';
import { customers, orders, portalSessions, subscriptions } from '@/db/schema';
import { auditInsertCte } from '../audit/service';
import { claimKey, fromClaimed, rowIfClaimed } from '../kit/idempotency';
import { ownedBy, rowById, SCOPE_PLACEHOLDERS } from '../kit/scope';
import { createdEventCtes } from '../webhooks/events';

export const [TARGET_CUSTOMER_BY_ID, TARGET_CUSTOMER_BY_EMAIL, TARGET_ORDER, TARGET_SUBSCRIPTION] = [0, 1, 2, 3];

/**
 * The target's read for each selector (customer by id, by e-mail, order, subscription) in this
 * store and environment, prepared once: one runs on every create. Each answers the target's id,
 * its customer's id and whether that customer was deleted.
 */
export const targetRead = preparedPerShape((executor, shape) => {
  const target = sql.placeholder('target');
  if (shape === TARGET_CUSTOMER_BY_EMAIL) {
    return executor
      .select({ id: customers.id, customerId: customers.id, customerDeletedAt: customers.deletedAt })
      .from(customers)
      .where(and(isNull(customers.deletedAt), ownedBy(customers, SCOPE_PLACEHOLDERS), eq(customers.email, target)))
      .limit(1)
      .prepare(`portal_target_customer_${shape}`);
  }
  if (shape === TARGET_CUSTOMER_BY_ID) {
    const customer = rowById(executor, customers, target, 'target');
    return executor
      .select({ id: customer.id, customerId: customer.id, customerDeletedAt: customer.deletedAt })
      .from(customer)
      .where(and(isNull(customer.deletedAt), ownedBy(customer, SCOPE_PLACEHOLDERS)))
      .prepare(`portal_target_customer_${shape}`);
  }
  if (shape === TARGET_ORDER) {
    const order = rowById(executor, orders, target, 'target');
    return executor
      .select({ id: order.id, customerId: order.customerId, customerDeletedAt: customers.deletedAt })
      .from(order)
      .leftJoin(customers, eq(customers.id, order.customerId))
      .where(ownedBy(order, SCOPE_PLACEHOLDERS))
      .prepare('portal_target_order');
  }
  const subscription = rowById(executor, subscriptions, target, 'target');
  // By its key too (a lateral subquery), then the scope: subscriptions.customer_id has no foreign
  // key, so only a customer of this store and mode counts.
  const customer = executor.select().from(customers).where(eq(customers.id, subscription.customerId)).limit(1).as('customer');
  return executor
    .select({ id: subscription.id, customerId: customer.id, customerDeletedAt: customer.deletedAt })
    .from(subscription)
    .leftJoinLateral(customer, ownedBy(customer, SCOPE_PLACEHOLDERS))
    .where(ownedBy(subscription, SCOPE_PLACEHOLDERS))
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
  const newAudit = auditInsertCte(executor, 'portal_session.create', fromClaimed(claimed));
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
    .with(...(claimed ? [claimed, newEvent, newDeliveries, newAudit] : [newEvent, newDeliveries, newAudit]))
    .insert(portalSessions)
    .select(rowIfClaimed(claimed, portalSessions, session))
    .returning()
    .prepare(`portal_session_insert${keyed ? '_keyed' : ''}`);
});
