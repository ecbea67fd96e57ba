/**
 * The EU consumer's withdrawal from a contract, declared on /withdraw with the order number and
 * the order's e-mail address. Whoever asks is answered alike whether or not the order exists or
 * the address matches (the page must not tell which order numbers exist); only a match is recorded.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '@/db/client';
import { orderLines, orders, products, stores, withdrawals, type WithdrawalStatus } from '@/db/schema';
import { storeClock, type Clock } from '../../clock';
import { digestsEqual, sha256Hex } from '../../ids';
import { ownedBy, type Scope } from '../../kit/scope';
import { getOrder } from '../service';
import { refundedInFull } from '../refunds/totals';
import { recordEvent } from '../../webhooks/events';
import { enqueueWithdrawalReceived } from '../../mail/outbox';

/** The consumer's period to be refunded after a withdrawal. */
export const REFUND_PERIOD_DAYS = 14;
const DAY_MS = 86_400_000;

export interface WithdrawalDeps {
  db: Database;
  /** Wall time; a test-mode order's store clock is derived from it. */
  clock: Clock;
}

/** What the customer typed on /withdraw, checked for form already. */
export interface WithdrawalDeclaration {
  orderId: string;
  email: string;
  name: string;
  reason: string | null;
}

/** Whether the order sells a digital product: its checkout offers the waiver of the right of withdrawal. */
export async function orderHasDigitalProduct(db: Executor, orderId: string): Promise<boolean> {
  const [line] = await db
    .select({ id: orderLines.id })
    .from(orderLines)
    .innerJoin(products, eq(products.id, orderLines.productId))
    .where(and(eq(orderLines.orderId, orderId), eq(products.type, 'digital')))
    .limit(1);
  return line !== undefined;
}

/** Equal addresses, case aside, compared as digests in constant time. */
function sameAddress(stored: string, typed: string): boolean {
  return digestsEqual(sha256Hex(stored.toLowerCase()), sha256Hex(typed.trim().toLowerCase()));
}

/**
 * Records the declaration when it names a paid order of that e-mail address; anything else is
 * dropped without a trace, and the caller answers the same either way. A repeated declaration
 * keeps the first one (and its refund deadline).
 */
export async function declareWithdrawal(deps: WithdrawalDeps, declaration: WithdrawalDeclaration): Promise<void> {
  const [order] = await deps.db
    .select({ storeId: orders.storeId, livemode: orders.livemode, status: orders.status, customerEmail: orders.customerEmail, offset: stores.testClockOffsetSeconds })
    .from(orders)
    .innerJoin(stores, eq(stores.id, orders.storeId))
    .where(eq(orders.id, declaration.orderId))
    .limit(1);
  // An unpaid order is no contract yet: nothing to withdraw from.
  if (!order || order.status === 'pending' || order.customerEmail === null || !sameAddress(order.customerEmail, declaration.email)) return;
  const scope = { storeId: order.storeId, livemode: order.livemode };
  const now = storeClock(deps.clock, { livemode: order.livemode, testClockOffsetSeconds: order.offset }).now();
  await deps.db.transaction(async (tx) => {
    // The order's lock orders two declarations at once (one records, the other finds it) and this event among the order's others.
    const [locked] = await tx
      .select({ amountTotal: orders.amountTotal })
      .from(orders)
      .where(and(eq(orders.id, declaration.orderId), ownedBy(orders, scope)))
      .for('update');
    const [recorded] = await tx
      .insert(withdrawals)
      .values({
        orderId: declaration.orderId,
        ...scope,
        // Already refunded in full: recorded as such, with nothing left to refund.
        status: (await refundedInFull(tx, declaration.orderId, locked!.amountTotal)) ? 'refunded' : 'requested',
        customerName: declaration.name,
        customerEmail: declaration.email,
        reason: declaration.reason,
        requestedAt: now,
        refundDueBy: new Date(now.getTime() + REFUND_PERIOD_DAYS * DAY_MS),
      })
      .onConflictDoNothing({ target: withdrawals.orderId })
      .returning();
    if (!recorded) return;
    const times = { now, wallNow: deps.clock.now() };
    await recordEvent(tx, { ...scope, type: 'order.withdrawal_requested', object: await getOrder(tx, scope, declaration.orderId), ...times });
    await enqueueWithdrawalReceived(tx, { ...scope, orderId: declaration.orderId, requestedAt: recorded.requestedAt, refundDueBy: recorded.refundDueBy, reason: recorded.reason }, times);
  });
}

/**
 * Once succeeded refunds cover the whole order, in the transaction of the refund that completed
 * them (the order locked): its withdrawal becomes `refunded`.
 */
export async function settleWithdrawalAfterRefund(tx: Transaction, scope: Scope, orderId: string): Promise<void> {
  await tx
    .update(withdrawals)
    .set({ status: 'refunded' })
    .where(and(eq(withdrawals.orderId, orderId), ownedBy(withdrawals, scope), eq(withdrawals.status, 'requested')));
}

export interface WithdrawalRequest {
  orderId: string;
  status: WithdrawalStatus;
  customerName: string;
  customerEmail: string;
  reason: string | null;
  requestedAt: Date;
  refundDueBy: Date;
  amountTotal: number;
  amountRefunded: number;
  /** The customer had waived the right of withdrawal at checkout. */
  waived: boolean;
}

/**
 * The dashboard's list: a page of the scope's withdrawal requests, newest first, after the
 * request of order `startingAfter` (unknown cursor: from the start).
 */
export async function listWithdrawalRequests(db: Database, scope: Scope, page: { limit: number; startingAfter?: string }): Promise<{ rows: WithdrawalRequest[]; hasMore: boolean }> {
  const cursor = page.startingAfter
    ? sql`(${withdrawals.requestedAt}, ${withdrawals.orderId}) < (select c.requested_at, c.order_id from ${withdrawals} c where c.order_id = ${page.startingAfter} and c.store_id = ${scope.storeId} and c.livemode = ${scope.livemode})`
    : undefined;
  const rows = await db
    .select({
      orderId: withdrawals.orderId,
      status: withdrawals.status,
      customerName: withdrawals.customerName,
      customerEmail: withdrawals.customerEmail,
      reason: withdrawals.reason,
      requestedAt: withdrawals.requestedAt,
      refundDueBy: withdrawals.refundDueBy,
      amountTotal: orders.amountTotal,
      amountRefunded: orders.amountRefunded,
      waived: sql<boolean>`${orders.withdrawalWaiverAcceptedAt} is not null`,
    })
    .from(withdrawals)
    .innerJoin(orders, eq(orders.id, withdrawals.orderId))
    .where(and(ownedBy(withdrawals, scope), cursor))
    // Spelled as the index is (DESC NULLS LAST), so a page reads the index in order.
    .orderBy(sql`${withdrawals.requestedAt} desc nulls last`, sql`${withdrawals.orderId} desc nulls last`)
    .limit(page.limit + 1);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
