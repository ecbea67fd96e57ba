import { and, eq, isNull, or } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '@/db/client';
import { disputes, orders, refunds, type OrderStatus } from '@/db/schema';
import type { Clock } from '../../clock';
import { ApiError, resourceMissing } from '../../errors';
import { GatewayRejectedError, GatewayTimeoutError, type PaymentGateway, type RefundRequest, type RefundResult } from '../../gateway/types';
import { createIdempotently, type IdempotentRequest } from '../../kit/idempotency';
import { newId } from '../../ids';
import type { Refund } from './object';
import type { CreateRefundInput, ListRefundsQuery, RefundList } from './schemas';
import { createdWithin, listEnvelope, listPage } from '../../kit/list';
import { ownedBy, type Scope } from '../../kit/scope';
import { actorAudit, recordAudit, type Actor } from '../../audit/service';
import { enqueueRefundEmail } from '../../mail/outbox';
import { getOrder } from '../service';
import { recordEvent, type EventTimes } from '../../webhooks/events';
import { refundView, type RefundRow } from './view';
import { issueCreditNote } from '../../invoices/issue';
import { recordRefundEntries } from '../../balance/ledger';
import { settleWithdrawalAfterRefund } from '../withdrawals/service';
import { revokeOrderLicenseKeys } from '../../licenses/service';
import { refundedInFull } from './totals';

export interface RefundDeps {
  db: Database;
  /** The store's clock: a refund's `created`. */
  clock: Clock;
  /** Real time: when the events' first deliveries fall due. */
  wallClock: Clock;
  /** The gateway of the subject's environment: test refunds never reach the live acquirer. */
  gateway: PaymentGateway;
}

/** A refund's request: who asks is audited with the reservation in its transaction (a replay records nothing). */
type RefundRequestDeps = RefundDeps & { actor: Actor };

type OrderRow = typeof orders.$inferSelect;

function lockOrder(tx: Transaction, subject: Scope, orderId: string) {
  return tx
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), ownedBy(orders, subject)))
    .for('update');
}

const eventTimes = (deps: RefundDeps): EventTimes => ({ now: deps.clock.now(), wallNow: deps.wallClock.now() });

const statusAfterRefunds = (refunded: number, total: number): OrderStatus => (refunded === 0 ? 'paid' : refunded >= total ? 'refunded' : 'partially_refunded');

/**
 * Step 1 of a refund, under the order's row lock: checks the request against what remains and
 * reserves the amount with a `pending` refund row. Two concurrent refunds of one order take the
 * lock in turn and the second sees the first's reservation, so together they never exceed the
 * total (orders_refund_within_total is the last line of defence).
 *
 * Error codes: an order that is not paid yet is 400 `parameter_invalid` on `order_id` (the request
 * names an order that cannot be refunded); a fully refunded order is 409 `order_already_processed`
 * (the code for an order whose processing is over: nothing remains to refund); an amount above
 * the remainder is 400 `parameter_invalid` on `amount`, with the remainder in the message; an
 * order whose dispute is open or lost is 409 `order_disputed`.
 */
async function reserveRefund(executor: Executor, deps: RefundRequestDeps, subject: Scope, input: CreateRefundInput, refundId: string) {
  // A savepoint inside the idempotency key's transaction, or a transaction of its own without a key.
  return executor.transaction(async (tx) => {
    const [order] = await lockOrder(tx, subject, input.order_id);
    if (!order) throw resourceMissing('order', input.order_id, 'order_id');
    if (order.status === 'pending') {
      throw new ApiError('parameter_invalid', 'This order is not paid: only paid orders can be refunded.', { param: 'order_id' });
    }
    if (order.disputeId !== null) {
      // The card network has taken the money back (or may still): a refund would return it twice.
      const [dispute] = await tx.select({ status: disputes.status }).from(disputes).where(eq(disputes.id, order.disputeId));
      if (dispute!.status !== 'won') {
        throw new ApiError('order_disputed', `This order is disputed (${order.disputeId}, ${dispute!.status}): it cannot be refunded while the dispute is open or after it was lost.`);
      }
    }
    const remaining = order.amountTotal - order.amountRefunded;
    if (remaining <= 0) {
      throw new ApiError('order_already_processed', 'This order has already been refunded in full: nothing remains to refund.');
    }
    const amount = input.amount ?? remaining;
    if (amount > remaining) {
      throw new ApiError('parameter_invalid', `\`amount\` exceeds what remains to refund on this order: at most ${remaining} cents.`, {
        param: 'amount',
      });
    }
    const reserved = await reserveOnOrder(tx, order, amount, refundId, eventTimes(deps));
    await recordAudit(tx, actorAudit(subject, deps.actor, 'refund.create', { refund: refundId, order: order.id, amount }));
    return reserved;
  });
}

/** A refund reserved on its order, and the gateway payment it returns money from. */
export interface ReservedRefund {
  refund: RefundRow;
  paymentId: string;
}

/**
 * Reserves `amount` of `order` (locked by the caller, checked against what remains) with a
 * `pending` refund row, counted on the order at once, and announces `refund.created`.
 */
export async function reserveOnOrder(
  tx: Transaction,
  order: Pick<OrderRow, 'id' | 'storeId' | 'livemode' | 'status' | 'gatewayPaymentId' | 'amountRefunded' | 'amountTotal'>,
  amount: number,
  refundId: string,
  times: EventTimes,
): Promise<ReservedRefund> {
  if (order.gatewayPaymentId === null) throw new Error(`Order ${order.id} is ${order.status} but has no gateway payment id`);
  const [refund] = await tx.insert(refunds).values({ id: refundId, storeId: order.storeId, livemode: order.livemode, orderId: order.id, amount, status: 'pending', createdAt: times.now }).returning();
  const refunded = order.amountRefunded + amount;
  await tx
    .update(orders)
    .set({ amountRefunded: refunded, status: statusAfterRefunds(refunded, order.amountTotal) })
    .where(eq(orders.id, order.id));
  await recordEvent(tx, { storeId: order.storeId, livemode: order.livemode, type: 'refund.created', object: refundView(refund!), ...times });
  return { refund: refund!, paymentId: order.gatewayPaymentId };
}

/**
 * The gateway key of a refund (`<purpose>:<object id>:<attempt>`, like every gateway key): the
 * request and the reconciler (./reconcile.ts) send the same, so the gateway refunds at most once.
 */
export const refundGatewayKey = (refundId: string) => `refund:${refundId}:1`;

/** What a refund came to at the gateway; `refundId` null when the gateway refused it before any money moved. */
export type RefundOutcome = RefundResult | { status: 'failed'; refundId: null };

/**
 * A refund asked of the gateway again (its first answer was lost, or was `pending`), made at most
 * once: looked up by its key first, because an acquirer forgets keys after a while (Stripe after
 * 24 h) and a forgotten key would refund twice; sent again only if the gateway never got it. With
 * `refundId` (a `pending` answer carried it) it is only looked up. Throws while the outcome cannot
 * be told (GatewayTimeoutError, or a known refund the gateway does not show).
 */
export async function refundOnce(gateway: PaymentGateway, request: RefundRequest, refundId?: string): Promise<RefundOutcome> {
  try {
    const lookup = { idempotencyKey: request.idempotencyKey, paymentId: request.paymentId };
    const found = await gateway.retrieveRefund(refundId ? { ...lookup, refundId } : lookup);
    if (found) return found;
    if (refundId) throw new GatewayTimeoutError(`The gateway does not show refund ${refundId}.`);
  } catch (error) {
    // A refused look-up (e.g. no credentials) falls through: the refund itself says whether it can be made.
    if (!(error instanceof GatewayRejectedError) || refundId) throw error;
  }
  try {
    return await gateway.refund(request);
  } catch (error) {
    if (error instanceof GatewayRejectedError) return { status: 'failed', refundId: null };
    throw error;
  }
}

/**
 * Step 3: the gateway's answer recorded, once: only a pending refund changes, and only to an
 * answer about the same gateway refund, so a request and the reconciler that race record it once
 * (`settled` tells whether this call did). A failed refund moved no money, so its reservation is
 * released; a succeeded one is e-mailed to the customer, and one that completes the order's
 * refund revokes its license keys.
 */
export async function settleRefund(db: Database, subject: Scope, refundId: string, result: RefundOutcome, times: EventTimes): Promise<{ refund: RefundRow; settled: boolean }> {
  return db.transaction(async (tx) => {
    const [settled] = await tx
      .update(refunds)
      .set({ status: result.status, gatewayRefundId: result.refundId })
      .where(
        and(
          eq(refunds.id, refundId),
          eq(refunds.status, 'pending'),
          // A refund answered `pending` already has its gateway id: only news of that refund settles it.
          result.refundId === null ? isNull(refunds.gatewayRefundId) : or(isNull(refunds.gatewayRefundId), eq(refunds.gatewayRefundId, result.refundId)),
        ),
      )
      .returning();
    if (!settled) {
      const [current] = await tx.select().from(refunds).where(eq(refunds.id, refundId));
      return { refund: current!, settled: false };
    }
    let refund: RefundRow | undefined = settled;
    let paidOrder: typeof orders.$inferSelect | undefined;
    if (result.status === 'failed') {
      const [order] = await lockOrder(tx, subject, settled.orderId);
      const refunded = order!.amountRefunded - settled.amount;
      await tx
        .update(orders)
        .set({ amountRefunded: refunded, status: statusAfterRefunds(refunded, order!.amountTotal) })
        .where(eq(orders.id, settled.orderId));
    }
    if (result.status === 'succeeded') {
      // The order counted the amount as refunded from the reservation on; now the money has
      // moved. Its lock orders this refund's credit note and events among the order's others
      // (two refunds settling at once split the invoice one after the other).
      [paidOrder] = await lockOrder(tx, subject, settled.orderId);
      const note = await issueCreditNote(tx, { refund: settled }, times);
      if (note) [refund] = await tx.update(refunds).set({ creditNoteId: note.id }).where(eq(refunds.id, settled.id)).returning();
      // The store's balance gives back what its credit note documents.
      if (note) await recordRefundEntries(tx, settled, note, times.now);
    }
    if (result.status !== 'pending') {
      const scope = { storeId: subject.storeId, livemode: subject.livemode };
      const previous = refundView({ ...settled, status: 'pending' });
      await recordEvent(tx, { ...scope, type: 'refund.updated', object: refundView(refund!), previous, ...times });
      if (result.status === 'succeeded') {
        if (await refundedInFull(tx, settled.orderId, paidOrder!.amountTotal)) {
          // The purchase is reversed: a withdrawal is settled, the license keys stop validating.
          await settleWithdrawalAfterRefund(tx, scope, settled.orderId);
          await revokeOrderLicenseKeys(tx, scope, settled.orderId, times.now);
        }
        await recordEvent(tx, { ...scope, type: 'order.refunded', object: await getOrder(tx, scope, settled.orderId), ...times });
        if (paidOrder!.customerEmail) {
          await enqueueRefundEmail(
            tx,
            { ...paidOrder!, customerEmail: paidOrder!.customerEmail },
            { refundId: settled.id, amount: settled.amount, orderTotal: paidOrder!.amountTotal, refundedTotal: paidOrder!.amountRefunded },
            times,
            refund!.creditNoteId ?? undefined,
          );
        }
      }
    }
    return { refund: refund!, settled: true };
  });
}

const CREATE_OPERATION = 'refund.create';

async function readRefund(db: Database, subject: Scope, id: string): Promise<RefundRow> {
  const [row] = await db
    .select()
    .from(refunds)
    .where(and(eq(refunds.id, id), ownedBy(refunds, subject)));
  if (!row) throw resourceMissing('refund', id);
  return row;
}

/**
 * POST /refunds: full when `amount` is omitted, partial up to what remains.
 *
 * Three steps, so that no transaction stays open across the gateway call (a slow acquirer would
 * otherwise hold the order's lock and a connection, and PGlite's single connection entirely):
 * reserve under the order lock, call the gateway, record its answer. The refund row exists before
 * the call with status `pending`, so a crash or a timeout in between leaves the amount reserved,
 * never over-refundable, and the call can be repeated with the same idempotency key (./reconcile.ts
 * does, for a refund whose answer never came): the gateway replays its refund instead of paying
 * the customer twice.
 *
 * With an `Idempotency-Key` the reservation commits together with the key (a replay
 * answers the original refund as it is now, with 200; another body is 409). A request that fails
 * its checks commits nothing, so the key stays free for a corrected retry.
 */
export async function createRefund(deps: RefundRequestDeps, subject: Scope, input: CreateRefundInput, idempotency?: IdempotentRequest): Promise<Refund> {
  let reserved: Awaited<ReturnType<typeof reserveRefund>> | undefined;
  const refundId = newId('re', subject.livemode);
  const { result: refundRow, replayed } = await createIdempotently({
    db: deps.db,
    scope: { storeId: subject.storeId, livemode: subject.livemode },
    operation: CREATE_OPERATION,
    request: idempotency,
    now: deps.clock.now(),
    resourceId: refundId,
    create: async (executor) => {
      reserved = await reserveRefund(executor, deps, subject, input, refundId);
      return reserved.refund;
    },
    replay: (id) => readRefund(deps.db, subject, id),
  });
  if (replayed || reserved === undefined) return refundView(refundRow);

  const refund = await sendRefund(deps, subject, reserved);
  if (!refund) {
    throw new ApiError(
      'payment_outcome_unknown',
      `The payment gateway did not confirm refund ${reserved.refund.id}. It stays pending, with its amount reserved, until the gateway's answer is known: the service asks again in the background.`,
    );
  }
  return refundView(refund);
}

/**
 * Step 2 and 3 of a reserved refund: the gateway call under the refund's own key, then its answer
 * recorded. Undefined while the outcome is unknown (a timeout): the refund stays pending with its
 * amount reserved, and the reconciler (./reconcile.ts) asks again under the same key.
 */
export async function sendRefund(deps: RefundDeps, subject: Scope, reserved: ReservedRefund): Promise<RefundRow | undefined> {
  let result: RefundOutcome;
  try {
    result = await deps.gateway.refund({ idempotencyKey: refundGatewayKey(reserved.refund.id), paymentId: reserved.paymentId, amount: reserved.refund.amount });
  } catch (error) {
    if (error instanceof GatewayTimeoutError) return undefined;
    // Refused before any money moved (e.g. no acquirer credentials): a known outcome, recorded as failed.
    if (!(error instanceof GatewayRejectedError)) throw error;
    result = { status: 'failed', refundId: null };
  }
  return (await settleRefund(deps.db, subject, reserved.refund.id, result, eventTimes(deps))).refund;
}

/** GET /refunds/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getRefund(db: Database, scope: Scope, id: string): Promise<Refund> {
  return refundView(await readRefund(db, scope, id));
}

/** GET /refunds: newest first, filtered. */
export async function listRefunds(db: Database, scope: Scope, query: ListRefundsQuery): Promise<RefundList> {
  const { rows, hasMore } = await listPage(db, refunds, {
    scope,
    page: query,
    kind: 'refund',
    where: [
      query.order_id === undefined ? undefined : eq(refunds.orderId, query.order_id),
      query.status === undefined ? undefined : eq(refunds.status, query.status),
      ...createdWithin(refunds.createdAt, query),
    ],
  });
  return listEnvelope('/api/v1/refunds', scope, rows.map(refundView), hasMore);
}
