/**
 * The two transactions around every recurring gateway call (server/billing/engine.ts):
 * `claimDueCharges` writes the charge row `processing` before the call, `settleCharges` records
 * the outcome and moves the subscription after it.
 *
 * The subscriptions table is the job queue. Due rows are claimed with `FOR UPDATE SKIP LOCKED`
 * over the partial index subscriptions_due_idx instead of a queue library (pg-boss needs the `pg`
 * driver and does not run on PGlite; graphile-worker needs Node 22): it behaves the same on PGlite
 * and PostgreSQL, and there is no second table whose jobs could drift from the domain state (a
 * job enqueued but its subscription canceled, or the reverse). Exactly-once does not rest on the
 * lock: the charge row's unique (subscription, cycle, attempt) and its idempotency key
 * `subscription:<id>:<cycle>:<attempt>`, sent to the gateway, make a second charge of one cycle
 * impossible however workers race, crash or see the clock jump.
 */
import { and, asc, eq, inArray, lte, notExists, sql, type SQL } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { OPEN_PAYMENT_METHOD_UPDATE_STATUSES, paymentMethodUpdates, planChanges, stores, subscriptionCharges, subscriptions, type PlanChangeStatus, type SubscriptionChargeStatus } from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { ChargeResult } from '../gateway/types';
import { newId, randomBase62 } from '../ids';
import { reserveOnOrder, type ReservedRefund } from '../orders/refunds/service';
import { recordEvents, type EventTimes, type EventType, type RecordEventInput } from '../webhooks/events';
import { enqueueEmails, subscriptionEmail, type EmailToWrite } from '../mail/outbox';
import { emitSubscriptionEvent, subscriptionEvent, type SubscriptionRow } from '../subscriptions/representation';
import { chargeIdempotencyKey } from '../subscriptions/schedule';
import { billingAnchor, boundary } from '../subscriptions/schedule';
import { awaitsCharge, BILLED_STATUSES, chargeDeclined, chargeSucceeded, owedCharge, scheduleCompleted, scheduledEnd, TRANSITION_COLUMNS, type Transition } from './transitions';
import { ownedBy, type Scope } from '../kit/scope';
import { paymentMethodLink, type LinkConfig } from '../kit/links';
import type { PayOrdersDeps } from '../payments/pay-orders';
import { chargeOrderPayment, paidAmountsOf, type PaidCharge } from '../subscriptions/charge-order';
import { owedChargeAmounts } from '../subscriptions/discount';
import { payOrders, type OrderPayment } from '../payments/pay-orders';
import { batchRelation, fromBatch } from '@/db/batch';

export type ChargeRow = typeof subscriptionCharges.$inferSelect;

/** Charges whose outcome is not recorded yet; a subscription with one is not claimed again. */
export const OPEN_CHARGE_STATUSES: readonly SubscriptionChargeStatus[] = ['processing', 'unknown'];

/** Plan changes whose charge's outcome is not recorded yet; a subscription with one is not claimed either. */
export const OPEN_PLAN_CHANGE_STATUSES: readonly PlanChangeStatus[] = ['processing', 'unknown'];

export interface BillingDeps extends PayOrdersDeps {
  db: Database;
  /** Wall clock; a test-mode store's clock adds its offset (server/clock.ts). */
  clock: Clock;
  /** The payment_failed e-mail carries a signed link to give another card. */
  config: PayOrdersDeps['config'] & LinkConfig;
}

/** Which due subscriptions a pass bills: every store on its own clock, or one store and environment at `now` (advance_clock). */
export type BillingScope = { kind: 'all' } | ({ kind: 'store'; now: Date } & Scope);

/** A claimed charge with what the gateway call needs. */
export interface ClaimedCharge {
  charge: ChargeRow;
  recurringId: string;
  description: string;
  /** The card on file, which a charge of 0 is approved on without the gateway. */
  card: { brand: string; last4: string };
}

function dueCondition(scope: BillingScope, wallNow: Date): SQL {
  if (scope.kind === 'store') {
    return and(ownedBy(subscriptions, scope), lte(subscriptions.nextBillingAt, scope.now))!;
  }
  const wall = wallNow.toISOString();
  // Live mode runs on wall time, test mode on each store's test clock. The first bound (the
  // furthest any clock reads) is what the due index can range over; the second is exact per row.
  return sql`${subscriptions.nextBillingAt} <= ${wall}::timestamptz + make_interval(secs => (select coalesce(max(${stores.testClockOffsetSeconds}), 0) from ${stores}))
    and ${subscriptions.nextBillingAt} <= case when ${subscriptions.livemode} then ${wall}::timestamptz
    else ${wall}::timestamptz + make_interval(secs => ${stores.testClockOffsetSeconds}) end`;
}

function storeNow(clock: Clock, livemode: boolean, offset: number): Date {
  return storeClock(clock, { livemode, testClockOffsetSeconds: offset }).now();
}

/**
 * Moves one locked subscription by `transition` (with `alongside`, other columns changed in the same
 * step, e.g. a new card), and writes its events; `subscription.updated` names all that changed.
 */
export async function applyTransition(
  tx: Transaction,
  subscription: SubscriptionRow,
  transition: Transition,
  now: Date,
  wallNow: Date,
  alongside: Partial<SubscriptionRow> = {},
): Promise<SubscriptionRow> {
  const [updated] = await tx
    .update(subscriptions)
    .set({ billingAnchor: billingAnchor(subscription), ...transition.changes, ...alongside })
    .where(eq(subscriptions.id, subscription.id))
    .returning();
  for (const type of transition.events) await emitSubscriptionEvent(tx, updated!, type, { now, wallNow }, subscription);
  return updated!;
}

/** Which of these subscriptions have a card update on its way (the page's charge or card check), or a plan change's charge. */
async function subscriptionsWithOpenCardUpdate(tx: Transaction, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx
    .select({ subscriptionId: paymentMethodUpdates.subscriptionId })
    .from(paymentMethodUpdates)
    .where(and(inArray(paymentMethodUpdates.subscriptionId, ids), inArray(paymentMethodUpdates.status, [...OPEN_PAYMENT_METHOD_UPDATE_STATUSES])))
    .union(
      tx
        .select({ subscriptionId: planChanges.subscriptionId })
        .from(planChanges)
        .where(and(inArray(planChanges.subscriptionId, ids), inArray(planChanges.status, [...OPEN_PLAN_CHANGE_STATUSES]))),
    );
  return new Set(rows.map((row) => row.subscriptionId));
}

/**
 * One short transaction: locks up to `limit` due subscriptions that no other worker holds and
 * that have no charge in flight (a renewal, or a new card charged on the update page), and writes
 * the charge each owes as `processing`. A subscription whose payments are all made expires here
 * without a charge, one whose end was scheduled ends. Committed before any gateway call.
 */
export async function claimDueCharges(deps: BillingDeps, scope: BillingScope, limit: number): Promise<{ claimed: ClaimedCharge[]; expired: number; ended: SubscriptionRow[] }> {
  return deps.db.transaction(async (tx) => {
    const wallNow = deps.clock.now();
    const openCharge = tx
      .select({ one: sql`1` })
      .from(subscriptionCharges)
      .where(and(eq(subscriptionCharges.subscriptionId, subscriptions.id), inArray(subscriptionCharges.status, [...OPEN_CHARGE_STATUSES])));
    const openCardUpdate = tx
      .select({ one: sql`1` })
      .from(paymentMethodUpdates)
      .where(and(eq(paymentMethodUpdates.subscriptionId, subscriptions.id), inArray(paymentMethodUpdates.status, [...OPEN_PAYMENT_METHOD_UPDATE_STATUSES])));
    const query = tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(and(inArray(subscriptions.status, [...BILLED_STATUSES]), dueCondition(scope, wallNow), notExists(openCharge), notExists(openCardUpdate)))
      .orderBy(asc(subscriptions.nextBillingAt), asc(subscriptions.id))
      .limit(limit);
    // Workers skip what another holds; advance_clock waits for it instead, so it never answers
    // while a due subscription of its store is being claimed elsewhere (worker.ts).
    const locked = await (scope.kind === 'all' ? query.for('update', { of: subscriptions, skipLocked: true }) : query.for('update', { of: subscriptions }));
    // Asked again now that the rows are locked: the query's snapshot may predate a card update
    // opened (under this lock) just before, and a subscription is charged by one or the other.
    const updating = await subscriptionsWithOpenCardUpdate(
      tx,
      locked.map(({ subscription }) => subscription.id),
    );
    const due = locked.filter(({ subscription }) => !updating.has(subscription.id));

    let expired = 0;
    const ended: SubscriptionRow[] = [];
    const rows: ChargeRow[] = [];
    const byId = new Map<string, SubscriptionRow>();
    for (const { subscription, offset } of due) {
      const now = storeNow(deps.clock, subscription.livemode, offset);
      if (subscription.cancelAtPeriodEnd) {
        const endAt = subscription.cancelAt ?? subscription.nextBillingAt;
        const canceled = await applyTransition(tx, subscription, scheduledEnd(endAt), now, wallNow);
        const data = { planName: canceled.planName, canceledAt: epochSeconds(endAt), reason: 'declared' as const };
        await enqueueEmails(tx, [subscriptionEmail(canceled, { template: 'subscription_canceled', data }, { now, wallNow })]);
        ended.push(canceled);
        expired += 1;
        continue;
      }
      if (subscription.paymentsMade >= subscription.totalPayments) {
        await applyTransition(tx, subscription, scheduleCompleted(now), now, wallNow);
        expired += 1;
        continue;
      }
      const owed = owedCharge(subscription);
      byId.set(subscription.id, subscription);
      rows.push({
        id: `subch_${randomBase62(24)}`,
        subscriptionId: subscription.id,
        storeId: subscription.storeId,
        livemode: subscription.livemode,
        cycle: owed.cycle,
        attempt: owed.attempt,
        idempotencyKey: chargeIdempotencyKey(subscription.id, owed.cycle, owed.attempt),
        ...owedChargeAmounts(subscription, deps.config.taxRates, now),
        redemptionHeld: false,
        status: 'processing',
        failureCode: null,
        cardBrand: null,
        cardLast4: null,
        gatewayPaymentId: null,
        buyerIp: null,
        buyerUserAgent: null,
        scheduledAt: owed.scheduledAt,
        // Wall time: the reconciler's grace period is measured on it.
        createdAt: wallNow,
        settledAt: null,
        checkedAt: null,
        leasedUntil: null,
        orderId: null,
      });
    }
    // A worker whose snapshot predates another's commit may still pick the same subscription:
    // the unique key turns its insert into nothing, and it leaves that charge to the winner.
    const inserted = rows.length > 0 ? await tx.insert(subscriptionCharges).values(rows).onConflictDoNothing().returning() : [];
    const claimed = inserted.map((charge) => {
      const subscription = byId.get(charge.subscriptionId)!;
      return { charge, recurringId: subscription.recurringId, description: chargeDescription(subscription, charge.cycle), card: cardOnFile(subscription) };
    });
    return { claimed, expired, ended };
  });
}

export function chargeDescription(subscription: Pick<SubscriptionRow, 'id' | 'planName' | 'totalPayments'>, cycle: number): string {
  return `${subscription.planName || 'Subscription'} ${subscription.id}, payment ${cycle} of ${subscription.totalPayments}`;
}

/** What the gateway answered, or null when it refused the call before any money moved (GatewayRejectedError). */
export type ChargeOutcome = ChargeResult | null;

export function cardOnFile(subscription: Pick<SubscriptionRow, 'cardBrand' | 'cardLast4'>): { brand: string; last4: string } {
  return { brand: subscription.cardBrand ?? 'unknown', last4: subscription.cardLast4 ?? '' };
}

/**
 * A charge of 0 (the credit balance or a full discount covers it) moves no money: approved on the
 * card on file without asking the gateway, and documented like any other (no gateway payment id).
 */
export function approvedWithoutGateway(card: { brand: string; last4: string }): ChargeResult {
  return { status: 'succeeded', paymentId: '', ...card };
}

function failureCodeOf(result: ChargeOutcome): string | null {
  if (result === null) return 'processing_error';
  if (result.status === 'declined') return result.code;
  // A recurring charge cannot be authenticated by the absent customer: a challenge is a decline.
  if (result.status === 'requires_action') return 'authentication_required';
  return null;
}

export interface Settlement {
  /** False when someone else had already recorded this charge. */
  settled: boolean;
  subscription: SubscriptionRow;
  /** The events this settlement wrote (none when the subscription no longer waited for the charge). */
  events: EventType[];
  /**
   * Money taken for a subscription that no longer waited for it (canceled while the charge was at
   * the gateway): its order, paid and refunded in full in the settling transaction, with the
   * refund to send and the store's clock to record the answer by.
   */
  payBack?: PayBack;
}

/** A full refund of money taken for nothing owed, to send after commit, and the store's clock to record its answer by. */
export interface PayBack {
  reserved: ReservedRefund;
  clock: Clock;
}

/** A charge back from the gateway, to record. */
export interface ChargeToSettle {
  charge: Pick<ChargeRow, 'id' | 'subscriptionId'>;
  outcome: ChargeOutcome;
}

/** A renewal is charged without the buyer present: no address or browser of theirs to record. */
const RENEWAL_BUYER = { ip: null, userAgent: null };

/** What settling writes on the charge. */
const SETTLED_COLUMNS = ['status', 'failureCode', 'cardBrand', 'cardLast4', 'gatewayPaymentId', 'settledAt'] as const;

/**
 * Records charges' outcomes and applies their transitions (transitions.ts) with their events and
 * the customers' documents (a charge that took the money owed: its order, paid with its invoice and receipt by server/payments/pay-orders.ts; a
 * decline: an e-mail with the retry dates, and the cancellation after the last retry), in one
 * transaction with the subscription rows locked, exactly once: under the lock only a charge that
 * is still open changes, so the worker, a retry and the reconciler may race freely. A charge the
 * subscription no longer waits for (it was canceled meanwhile) moves nothing; if it took money,
 * its order is paid and a refund of it all reserved in the same commit, so the customer is paid
 * back with a credit note, and a crash before the refund is sent leaves it pending for the
 * refunds reconciler (engine.ts sends it).
 *
 * A batch is a handful of statements whatever its size (one per kind of row written), which is
 * what lets one worker bill hundreds of subscriptions a second. At most one charge per
 * subscription: a subscription has one open charge at a time.
 */
export async function settleCharges(deps: BillingDeps, batch: readonly ChargeToSettle[]): Promise<Settlement[]> {
  if (batch.length === 0) return [];
  const subscriptionIds = batch.map(({ charge }) => charge.subscriptionId);
  if (new Set(subscriptionIds).size !== batch.length) throw new Error('settleCharges: two charges of one subscription in a batch');
  return deps.db.transaction(async (tx) => {
    const wallNow = deps.clock.now();
    // In id order, so two settling batches never wait on each other in a cycle.
    const locked = await tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(inArray(subscriptions.id, subscriptionIds))
      .orderBy(asc(subscriptions.id))
      .for('update', { of: subscriptions });
    const lockedById = new Map(locked.map((row) => [row.subscription.id, row]));
    const settling = batch.map(({ charge, outcome }) => {
      const row = lockedById.get(charge.subscriptionId);
      if (!row) throw new Error(`subscription of charge ${charge.id} vanished`);
      return { charge, outcome, before: row.subscription, now: storeNow(deps.clock, row.subscription.livemode, row.offset), offset: row.offset };
    });

    const settledRows = await tx
      .update(subscriptionCharges)
      .set(fromBatch(subscriptionCharges, 'settled', SETTLED_COLUMNS))
      .from(
        batchRelation(
          subscriptionCharges,
          'settled',
          ['id', ...SETTLED_COLUMNS],
          settling.map(({ charge, outcome, now }) => ({
            id: charge.id,
            status: outcome?.status === 'succeeded' ? 'succeeded' : 'declined',
            failureCode: failureCodeOf(outcome),
            cardBrand: outcome?.brand ?? null,
            cardLast4: outcome?.last4 ?? null,
            gatewayPaymentId: outcome?.paymentId || null,
            settledAt: now,
          })),
        ),
      )
      .where(and(eq(subscriptionCharges.id, sql`settled.id`), inArray(subscriptionCharges.status, [...OPEN_CHARGE_STATUSES])))
      .returning({
        id: subscriptionCharges.id,
        cycle: subscriptionCharges.cycle,
        attempt: subscriptionCharges.attempt,
        scheduledAt: subscriptionCharges.scheduledAt,
        amount: subscriptionCharges.amount,
        amountTax: subscriptionCharges.amountTax,
        taxRate: subscriptionCharges.taxRate,
        amountDiscount: subscriptionCharges.amountDiscount,
        amountCredit: subscriptionCharges.amountCredit,
      });
    const settledById = new Map(settledRows.map((row) => [row.id, row]));

    const settlements: Settlement[] = [];
    const unowed: { settlement: Settlement; payment: OrderPayment; offset: number }[] = [];
    const moved: SubscriptionRow[] = [];
    const events: RecordEventInput[] = [];
    const emails: EmailToWrite[] = [];
    const paid: OrderPayment[] = [];
    for (const { charge, outcome, before, now, offset } of settling) {
      const settled = settledById.get(charge.id);
      if (!settled) {
        settlements.push({ settled: false, subscription: before, events: [] });
        continue;
      }
      const times = { now, wallNow };
      if (!awaitsCharge(before, settled)) {
        const settlement: Settlement = { settled: true, subscription: before, events: [] };
        settlements.push(settlement);
        // A charge of 0 took nothing: there is nothing to pay back.
        if (outcome?.status === 'succeeded' && settled.amount > 0) {
          const card = { brand: outcome.brand, last4: outcome.last4 };
          const payment = unowedChargePayment(before, { ...paidAmountsOf(settled), id: charge.id, cycle: settled.cycle, card, gatewayPaymentId: outcome.paymentId, buyer: RENEWAL_BUYER }, times);
          paid.push(payment);
          unowed.push({ settlement, payment, offset });
        }
        continue;
      }
      /** The subscription as `transition` leaves it, with its events. */
      const move = (transition: Transition): SubscriptionRow => {
        const subscription = { ...before, billingAnchor: billingAnchor(before), ...transition.changes };
        moved.push(subscription);
        events.push(...transition.events.map((type) => subscriptionEvent(subscription, type, times, before)));
        settlements.push({ settled: true, subscription, events: transition.events });
        return subscription;
      };
      if (outcome?.status === 'succeeded') {
        const subscription = move(chargeSucceeded(before, settled, now));
        const card = { brand: outcome.brand, last4: outcome.last4 };
        paid.push(
          chargeOrderPayment(
            subscription,
            {
              ...paidAmountsOf(settled),
              id: charge.id,
              cycle: settled.cycle,
              card,
              gatewayPaymentId: outcome.paymentId || null,
              buyer: RENEWAL_BUYER,
            },
            times,
          ),
        );
        continue;
      }
      const declined = chargeDeclined(settled, now);
      const subscription = move(declined);
      const canceled = subscription.status === 'canceled';
      const data = {
        planName: subscription.planName,
        amount: settled.amount,
        failedAt: epochSeconds(now),
        retryDates: declined.retryDates.map(epochSeconds),
        canceled,
        // A card that works now saves the retries to come; after the last there is nothing to save.
        ...(canceled ? {} : { updatePaymentMethodUrl: paymentMethodLink(deps.config, subscription.id, now, subscription.language).url }),
      };
      emails.push(subscriptionEmail(subscription, { template: 'payment_failed', data }, times));
      if (canceled) {
        emails.push(subscriptionEmail(subscription, { template: 'subscription_canceled', data: { planName: subscription.planName, canceledAt: epochSeconds(now), reason: 'payment_failed' } }, times));
      }
    }
    if (moved.length > 0) {
      await tx
        .update(subscriptions)
        .set(fromBatch(subscriptions, 'moved', TRANSITION_COLUMNS))
        .from(batchRelation(subscriptions, 'moved', ['id', ...TRANSITION_COLUMNS], moved))
        .where(eq(subscriptions.id, sql`moved.id`));
    }
    await recordEvents(tx, events);
    await enqueueEmails(tx, emails);
    // The orders last: their invoices' numbering holds each store's sequence until commit.
    await payOrders(tx, deps, paid);
    for (const { settlement, payment, offset } of unowed) settlement.payBack = await reservePayBack(tx, deps.clock, payment, offset);
    return settlements;
  });
}

/**
 * The order of money taken for a charge its subscription no longer waits for (canceled while the
 * charge was at the gateway), documented as the period the charge would have paid for. Paid with
 * the others (payOrders), then refunded in full by reservePayBack.
 */
export function unowedChargePayment(before: SubscriptionRow, charge: PaidCharge, times: EventTimes): OrderPayment {
  const chargedFor = { ...before, currentPeriodStart: boundary(before, charge.cycle - 1), currentPeriodEnd: boundary(before, charge.cycle) };
  return chargeOrderPayment(chargedFor, charge, times);
}

/**
 * A refund of all of an unowed charge's order, reserved in the transaction that paid it (after
 * payOrders); the caller sends it after commit (engine.ts sendPayBack), and a crash before that
 * leaves it pending for the refunds reconciler.
 */
export async function reservePayBack(tx: Transaction, clock: Clock, payment: OrderPayment, offset: number): Promise<PayBack> {
  const { order, times } = payment;
  const reserved = await reserveOnOrder(tx, order, order.amountTotal, newId('re', order.livemode), times);
  return { reserved, clock: storeClock(clock, { livemode: order.livemode, testClockOffsetSeconds: offset }) };
}

/** A gateway call whose outcome is unknown (timeout, crash of the call): the reconciler asks later. */
export async function markChargeUnknown(db: Database, chargeId: string): Promise<void> {
  await db
    .update(subscriptionCharges)
    .set({ status: 'unknown' })
    .where(and(eq(subscriptionCharges.id, chargeId), eq(subscriptionCharges.status, 'processing')));
}
