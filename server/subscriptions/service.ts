/**
 * Subscriptions through the API: read, list, update metadata, cancel.
 * Every update and cancel is audited and emits its event in the same transaction as the change;
 * a cancel also writes the customer's e-mail.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { subscriptions } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds } from '../clock';
import { normalizeMetadata } from '../kit/metadata';
import { ApiError, resourceMissing } from '../errors';
import { GatewayRejectedError, type PaymentGateway } from '../gateway/types';
import { enqueueSubscriptionEmail } from '../mail/outbox';
import type { SubscriptionDeps } from './checkouts';
import { emitSubscriptionEvent, subscriptionObject, type SubscriptionObject, type SubscriptionRow } from './representation';
import type { ListSubscriptionsQuery, SubscriptionList, SubscriptionListFilters } from './schemas';
import { listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import type { EventTimes } from '../webhooks/events';
import type { LostDisputeEffects } from '../disputes/service';

async function findSubscription(db: Database, scope: Scope, id: string): Promise<SubscriptionRow> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
    .limit(1);
  if (!row) throw resourceMissing('subscription', id);
  return row;
}

/** GET /subscriptions/{id}. */
export async function getSubscription(deps: Pick<SubscriptionDeps, 'db'>, scope: Scope, id: string): Promise<SubscriptionObject> {
  return subscriptionObject(await findSubscription(deps.db, scope, id));
}

/** The subscription list's filters (the page fields aside). */
export function subscriptionListConditions(filters: SubscriptionListFilters) {
  return {
    where: [
      filters.status === undefined ? undefined : eq(subscriptions.status, filters.status),
      filters.customer_email === undefined ? undefined : sql`lower(${subscriptions.customerEmail}) = ${filters.customer_email.toLowerCase()}`,
    ],
  };
}

/** GET /subscriptions: newest first, then by id, filtered. */
export async function listSubscriptions(deps: Pick<SubscriptionDeps, 'db'>, scope: Scope, query: ListSubscriptionsQuery): Promise<SubscriptionList> {
  const { rows, hasMore } = await listPage(deps.db, subscriptions, { scope, page: query, kind: 'subscription', ...subscriptionListConditions(query) });
  return { object: 'list', data: rows.map(subscriptionObject), has_more: hasMore };
}

/** POST /subscriptions/{id}: `metadata` replaces the stored object whole; emits `subscription.updated`. */
export async function updateSubscription(
  deps: SubscriptionDeps & { actor: Actor },
  scope: Scope,
  id: string,
  metadata: Record<string, string | number | boolean> | null | undefined,
): Promise<SubscriptionObject> {
  const row = await deps.db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
      .for('update');
    if (!before) throw resourceMissing('subscription', id);
    const [updated] = await tx
      .update(subscriptions)
      .set({ metadata: normalizeMetadata(metadata) })
      .where(eq(subscriptions.id, id))
      .returning();
    await emitSubscriptionEvent(tx, updated!, 'subscription.updated', { now: deps.clock.now(), wallNow: deps.wallClock.now() }, before);
    await recordAudit(tx, actorAudit(scope, deps.actor, 'subscription.update', { subscription: id, fields: ['metadata'] }));
    return updated!;
  });
  return subscriptionObject(row);
}

/**
 * Statuses a cancel has nothing to stop in: `canceled` (cancelling again is a no-op), `expired` (the
 * schedule ran out) and `incomplete` (the first charge was declined, so no contract exists).
 * They answer the subscription unchanged, without a gateway call or an event.
 */
const ENDED = new Set<SubscriptionRow['status']>(['canceled', 'expired', 'incomplete']);

function pendingError(): ApiError {
  return new ApiError('subscription_pending', 'The first payment of this subscription is still being confirmed. Retry the cancel in a moment.');
}

/**
 * DELETE /subscriptions/{id}: the gateway's recurring contract is cancelled first,
 * outside any transaction (a slow acquirer must not hold a row lock), so that no charge can
 * follow; then, under the row lock, the subscription becomes `canceled`, keeps `reason` for the
 * audit trail and emits `subscription.canceled`. A concurrent cancel that got there first wins:
 * the second reads `canceled` under the lock and answers it unchanged.
 */
export async function cancelSubscription(deps: SubscriptionDeps & { gateway: PaymentGateway; actor: Actor }, scope: Scope, id: string, reason: string | undefined): Promise<SubscriptionObject> {
  const current = await findSubscription(deps.db, scope, id);
  if (ENDED.has(current.status)) return subscriptionObject(current);
  if (current.status === 'pending') throw pendingError();
  try {
    await deps.gateway.cancelRecurring(current.recurringId);
  } catch (error) {
    const message = error instanceof GatewayRejectedError ? error.message : 'The payment gateway did not answer in time.';
    throw new ApiError('internal_error', `The recurring contract could not be cancelled at the payment gateway (${message}). The subscription is unchanged; retry the cancel.`);
  }
  const row = await deps.db.transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
      .for('update');
    if (!locked) throw resourceMissing('subscription', id);
    if (ENDED.has(locked.status)) return locked;
    const now = deps.clock.now();
    const [canceled] = await tx
      .update(subscriptions)
      .set({ status: 'canceled', canceledAt: now, endedAt: now, cancelReason: reason ?? null })
      .where(eq(subscriptions.id, id))
      .returning();
    const times = { now, wallNow: deps.wallClock.now() };
    await emitSubscriptionEvent(tx, canceled!, 'subscription.canceled', times);
    await enqueueSubscriptionEmail(tx, canceled!, { template: 'subscription_canceled', data: { planName: canceled!.planName, canceledAt: epochSeconds(now), reason: 'requested' } }, times);
    await recordAudit(tx, actorAudit(scope, deps.actor, 'subscription.cancel', { subscription: id, previous_status: locked.status, reason: reason ?? null }));
    return canceled!;
  });
  return subscriptionObject(row);
}

/**
 * A lost dispute of one of the subscription's payments ends it, in the dispute's transaction:
 * `canceled` with `cancel_reason: dispute_lost`, its event and the customer's e-mail. No charge
 * follows a canceled subscription, so the gateway's recurring contract is left unused. One already
 * ended (or still `pending`, which has no paid order to dispute) is left as it is.
 */
export async function cancelSubscriptionForLostDispute(tx: Transaction, scope: Scope, id: string, times: EventTimes): Promise<void> {
  const [locked] = await tx
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
    .for('update');
  if (!locked || ENDED.has(locked.status)) return;
  const [canceled] = await tx.update(subscriptions).set({ status: 'canceled', canceledAt: times.now, endedAt: times.now, cancelReason: 'dispute_lost' }).where(eq(subscriptions.id, id)).returning();
  await emitSubscriptionEvent(tx, canceled!, 'subscription.canceled', times);
  await enqueueSubscriptionEmail(tx, canceled!, { template: 'subscription_canceled', data: { planName: canceled!.planName, canceledAt: epochSeconds(times.now), reason: 'dispute_lost' } }, times);
}

/** What a lost dispute ends here: its order's subscription. */
export const LOST_DISPUTE_EFFECTS: LostDisputeEffects = { endSubscription: cancelSubscriptionForLostDispute };
