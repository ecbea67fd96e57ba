/**
 * A customer's cancellation, declared on the cancel page without logging in, and its undoing
 * from the confirmation e-mail's link. Every declaration is recorded, matched or not (the
 * operator's proof of what was declared and when); the caller answers alike either way, so the
 * page never tells which addresses have subscriptions.
 *
 * | Match | Change, in one transaction | Events |
 * |---|---|---|
 * | `trialing`, `active` | the end scheduled at `current_period_end`, the declaration kept, a waiting plan change dropped | `subscription.updated` |
 * | `past_due` | its paid period is over: `canceled` now, the retries stop | `subscription.canceled`, `subscription.updated` |
 * | an end already scheduled | none | none |
 *
 * Each match gets the `cancellation_received` e-mail; billing ends a scheduled subscription when
 * its period ends instead of renewing it (server/billing/charges.ts).
 */
import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { cancellations, invoices, stores, subscriptions, type CancellationTiming, type CancellationType, type DocumentLanguage } from '@/db/schema';
import { recordAudit, byActor, type CustomerActor } from '../audit/service';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import type { Gateways } from '../gateway/types';
import { randomBase62 } from '../ids';
import { checkLink, signedLink, signingSecret, type LinkCheck } from '../kit/links';
import { enqueueSubscriptionEmail } from '../mail/outbox';
import { log } from '../observability/log';
import { emitSubscriptionEvent, type SubscriptionRow } from './representation';

/** Statuses a declaration can end: a subscription that still renews. */
export const CANCELLABLE_STATUSES = ['trialing', 'active', 'past_due'] as const satisfies readonly SubscriptionRow['status'][];

export interface CancellationDeps {
  db: Database;
  /** Wall clock; a test-mode subscription's store clock is derived from it. */
  clock: Clock;
  gateways: Gateways;
  config: Pick<Config, 'publicBaseUrl' | 'authSecret'>;
}

/** What the customer typed on the cancel page, checked for form already. */
export interface CancellationDeclaration {
  email: string;
  /** A subscription id or an invoice number of the subscription; null when none was typed. */
  number: string | null;
  name: string;
  reason: string | null;
  cancelAt: CancellationTiming;
  language: DocumentLanguage;
}

export interface RecordedCancellation {
  id: string;
  /** Wall clock. */
  declaredAt: Date;
  subscriptionIds: string[];
}

/** The subscriptions a declaration names: that address (any case) and, when a number was typed, the one it names. */
function matchCondition(declaration: Pick<CancellationDeclaration, 'email' | 'number'>): SQL {
  const byAddress = sql`lower(${subscriptions.customerEmail}) = ${declaration.email.trim().toLowerCase()}`;
  if (declaration.number === null) return byAddress;
  const invoiceOf = sql`exists (select 1 from ${invoices} where ${invoices.subscriptionId} = ${subscriptions.id} and ${invoices.number} = ${declaration.number})`;
  return and(byAddress, or(eq(subscriptions.id, declaration.number), invoiceOf))!;
}

/**
 * The signed link of the e-mail that undoes a scheduled end, valid until the end (`cancel_at`).
 */
export function keepSubscriptionLink(config: CancellationDeps['config'], subscriptionId: string, cancelAt: Date): string {
  return signedLink(config.publicBaseUrl, signingSecret(config), 'keep_subscription', subscriptionId, epochSeconds(cancelAt));
}

export function checkKeepSubscriptionLink(config: CancellationDeps['config'], subscriptionId: string, expires: string | undefined, signature: string | undefined, nowSeconds: number): LinkCheck {
  return checkLink(signingSecret(config), 'keep_subscription', subscriptionId, expires, signature, nowSeconds);
}

/**
 * Records the declaration and ends what it matched (the table above), in one transaction with the
 * matched subscriptions locked in id order. A `past_due` one's recurring contract is cancelled at
 * the gateway after the commit (best effort: it is canceled either way and never charged again).
 */
export async function declareCancellation(deps: CancellationDeps, declaration: CancellationDeclaration, actor: CustomerActor): Promise<RecordedCancellation> {
  const wallNow = deps.clock.now();
  const id = `cxl_${randomBase62(24)}`;
  const ended: SubscriptionRow[] = [];
  const subscriptionIds = await deps.db.transaction(async (tx) => {
    const matched = await tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(and(inArray(subscriptions.status, [...CANCELLABLE_STATUSES]), matchCondition(declaration)))
      .orderBy(asc(subscriptions.id))
      .for('update', { of: subscriptions });
    const type: CancellationType = declaration.cancelAt === 'asap' ? 'extraordinary' : 'ordinary';
    for (const { subscription: before, offset } of matched) {
      const now = storeClock(deps.clock, { livemode: before.livemode, testClockOffsetSeconds: offset }).now();
      const times = { now, wallNow };
      const scope = { storeId: before.storeId, livemode: before.livemode };
      const declared = { cancellationId: id, cancellationDeclaredAt: now, cancellationType: type, cancellationReason: declaration.reason } as const;
      let endsAt: Date;
      if (before.status === 'past_due') {
        const [canceled] = await tx
          .update(subscriptions)
          .set({ status: 'canceled', canceledAt: now, endedAt: now, ...declared })
          .where(eq(subscriptions.id, before.id))
          .returning();
        await emitSubscriptionEvent(tx, canceled!, 'subscription.canceled', times);
        await emitSubscriptionEvent(tx, canceled!, 'subscription.updated', times, before);
        ended.push(canceled!);
        endsAt = now;
      } else if (before.cancelAtPeriodEnd) {
        endsAt = before.cancelAt ?? before.currentPeriodEnd;
      } else {
        const [scheduled] = await tx
          .update(subscriptions)
          // A plan change waiting for the renewal goes: there is no renewal any more.
          .set({ cancelAtPeriodEnd: true, cancelAt: before.currentPeriodEnd, pendingChange: null, ...declared })
          .where(eq(subscriptions.id, before.id))
          .returning();
        await emitSubscriptionEvent(tx, scheduled!, 'subscription.updated', times, before);
        endsAt = before.currentPeriodEnd;
      }
      const keepUrl = endsAt.getTime() > now.getTime() ? keepSubscriptionLink(deps.config, before.id, endsAt) : null;
      const data = { planName: before.planName, declaredAt: epochSeconds(now), type, reason: declaration.reason, endsAt: epochSeconds(endsAt), keepUrl };
      await enqueueSubscriptionEmail(tx, { ...before, language: declaration.language }, { template: 'cancellation_received', data }, times);
      await recordAudit(tx, { action: 'subscription.cancellation_declare', ...scope, ...byActor(actor), details: { subscription: before.id, cancellation: id, type, previous_status: before.status } });
    }
    const ids = matched.map(({ subscription }) => subscription.id);
    await tx.insert(cancellations).values({
      id,
      declaredAt: wallNow,
      email: declaration.email,
      number: declaration.number,
      name: declaration.name,
      reason: declaration.reason,
      cancelAt: declaration.cancelAt,
      language: declaration.language,
      subscriptionIds: ids,
    });
    return ids;
  });
  for (const subscription of ended) {
    try {
      await deps.gateways[subscription.livemode ? 'live' : 'test'].cancelRecurring(subscription.recurringId);
    } catch (error) {
      log.error(`cancellation: cancelling contract of ${subscription.id} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { id, declaredAt: wallNow, subscriptionIds };
}

/** What the keep link found: the end undone, nothing scheduled any more, or the subscription over. */
export type KeepOutcome = { state: 'kept' | 'not_scheduled' | 'ended'; subscription: SubscriptionRow };

/**
 * The e-mail's `Keep my subscription`: undoes a scheduled end in one step (`cancel_at_period_end`
 * false, `cancel_at` and the declaration cleared, `subscription.updated`). Again, or after the
 * store removed the end, it changes nothing; a subscription already over stays over.
 */
export async function keepSubscription(deps: Pick<CancellationDeps, 'db' | 'clock'>, subscriptionId: string, actor: CustomerActor): Promise<KeepOutcome | undefined> {
  return deps.db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(eq(subscriptions.id, subscriptionId))
      .for('update', { of: subscriptions });
    if (!locked) return undefined;
    const before = locked.subscription;
    if (!(CANCELLABLE_STATUSES as readonly string[]).includes(before.status)) return { state: 'ended', subscription: before };
    if (!before.cancelAtPeriodEnd) return { state: 'not_scheduled', subscription: before };
    const now = storeClock(deps.clock, { livemode: before.livemode, testClockOffsetSeconds: locked.offset }).now();
    const [kept] = await tx
      .update(subscriptions)
      .set({ cancelAtPeriodEnd: false, cancelAt: null, cancellationId: null, cancellationDeclaredAt: null, cancellationType: null, cancellationReason: null })
      .where(eq(subscriptions.id, before.id))
      .returning();
    await emitSubscriptionEvent(tx, kept!, 'subscription.updated', { now, wallNow: deps.clock.now() }, before);
    await recordAudit(tx, {
      action: 'subscription.cancellation_undo',
      storeId: before.storeId,
      livemode: before.livemode,
      ...byActor(actor),
      details: { subscription: before.id, cancellation: before.cancellationId },
    });
    return { state: 'kept', subscription: kept! };
  });
}

/** A declaration as the operator lists it. */
export interface CancellationRecord {
  id: string;
  declared_at: number;
  email: string;
  number: string | null;
  name: string;
  reason: string | null;
  cancel_at: CancellationTiming;
  language: DocumentLanguage;
  subscriptions: string[];
}

/** Every declaration, newest first, those of one address (any case) when `email` is given. */
export async function listCancellations(db: Database, filter: { email?: string; limit?: number } = {}): Promise<CancellationRecord[]> {
  const rows = await db
    .select()
    .from(cancellations)
    .where(filter.email === undefined ? undefined : sql`lower(${cancellations.email}) = ${filter.email.trim().toLowerCase()}`)
    // Spelled as the index is (DESC NULLS LAST), so the list reads the index in order.
    .orderBy(sql`${cancellations.declaredAt} desc nulls last`, sql`${cancellations.id} desc nulls last`)
    .limit(filter.limit ?? 1000);
  return rows.map((row) => ({
    id: row.id,
    declared_at: epochSeconds(row.declaredAt),
    email: row.email,
    number: row.number,
    name: row.name,
    reason: row.reason,
    cancel_at: row.cancelAt,
    language: row.language,
    subscriptions: row.subscriptionIds,
  }));
}
