/**
 * The Subscription object of the API, shared by the REST responses, the billing
 * engine and the webhook payloads (`data.object` is exactly what the REST API returns).
 */
import type { Transaction } from '@/db/client';
import type { PendingChange, subscriptions } from '@/db/schema';
import { discountView } from '../kit/discount-schemas';
import { epochSeconds } from '../clock';
import { paidBuyerTaxView } from '../vat/views';
import { recordEvent, type EventType, type RecordEventInput } from '../webhooks/events';

export type SubscriptionRow = typeof subscriptions.$inferSelect;

export function subscriptionObject(row: SubscriptionRow) {
  return {
    id: row.id,
    object: 'subscription' as const,
    status: row.status,
    livemode: row.livemode,
    currency: 'eur' as const,
    amount: row.amount,
    interval: row.interval,
    interval_count: row.intervalCount,
    total_payments: row.totalPayments,
    recurring_id: row.recurringId,
    card: row.cardLast4 === null ? null : { brand: row.cardBrand ?? 'unknown', last4: row.cardLast4 },
    customer_id: row.customerId,
    customer_email: row.customerEmail,
    customer_name: row.customerName,
    product_id: row.productId,
    price_id: row.priceId,
    failure_count: row.failureCount,
    current_period_start: epochSeconds(row.currentPeriodStart),
    current_period_end: epochSeconds(row.currentPeriodEnd),
    next_billing_at: epochSeconds(row.nextBillingAt),
    trial_start: row.trialStart ? epochSeconds(row.trialStart) : null,
    trial_end: row.trialEnd ? epochSeconds(row.trialEnd) : null,
    cancel_at_period_end: row.cancelAtPeriodEnd,
    cancel_at: row.cancelAt ? epochSeconds(row.cancelAt) : null,
    cancellation:
      row.cancellationDeclaredAt === null || row.cancellationType === null
        ? null
        : { declared_at: epochSeconds(row.cancellationDeclaredAt), type: row.cancellationType, reason: row.cancellationReason },
    discount: row.discount === null ? null : { ...discountView(row.discount), end: row.discountEnd ? epochSeconds(row.discountEnd) : null },
    pending_change: row.pendingChange === null ? null : pendingChangeView(row.pendingChange),
    credit_balance: row.creditBalance,
    canceled_at: row.canceledAt ? epochSeconds(row.canceledAt) : null,
    cancel_reason: row.cancelReason,
    ended_at: row.endedAt ? epochSeconds(row.endedAt) : null,
    metadata: row.metadata,
    ...paidBuyerTaxView(row),
    created: epochSeconds(row.createdAt),
  };
}

export type SubscriptionObject = ReturnType<typeof subscriptionObject>;

function pendingChangeView(change: PendingChange) {
  return {
    price_id: change.price_id,
    product_id: change.product_id,
    plan_name: change.plan_name,
    amount: change.amount,
    interval: change.interval,
    interval_count: change.interval_count,
    effective_at: change.effective_at,
  };
}

/**
 * A subscription event, carrying the subscription as it is after the change (metadata
 * included); `subscription.updated` also carries what changed, from `before`.
 */
export function subscriptionEvent(row: SubscriptionRow, type: EventType, times: { now: Date; wallNow: Date }, before?: SubscriptionRow): RecordEventInput {
  return {
    storeId: row.storeId,
    livemode: row.livemode,
    type,
    object: subscriptionObject(row),
    previous: type === 'subscription.updated' && before ? subscriptionObject(before) : undefined,
    now: times.now,
    wallNow: times.wallNow,
  };
}

/** Writes subscriptionEvent to the outbox in the caller's transaction. */
export function emitSubscriptionEvent(tx: Transaction, ...event: Parameters<typeof subscriptionEvent>) {
  return recordEvent(tx, subscriptionEvent(...event));
}
