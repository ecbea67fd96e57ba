/**
 * The notice that a free trial ends: three days before its end (at once for a trial of three days
 * or less), `subscription.trial_will_end` and the e-mail `trial_ending` with the first charge, the
 * card and the links to give another card or cancel. Not for a trial whose end is scheduled (no
 * charge follows). Exactly once: `trial_will_end_sent_at` is set by the one conditional update
 * that lets the notice through, in the transaction that writes it.
 */
import { and, asc, eq, gt, isNull, lte, sql, type SQL } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { stores, subscriptions } from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { paymentMethodLink, type LinkConfig } from '../kit/links';
import { ownedBy, type Scope } from '../kit/scope';
import { enqueueSubscriptionEmail } from '../mail/outbox';
import type { EventTimes } from '../webhooks/events';
import { furthestClockSql, subscriptionClockSql } from './clock-sql';
import { owedChargeAmounts } from './discount';
import { emitSubscriptionEvent, type SubscriptionRow } from './representation';

/** How long before the trial's end the notice goes out. */
export const TRIAL_NOTICE_SECONDS = 3 * 24 * 60 * 60;
/** Subscriptions looked at per query. */
const BATCH = 200;

export interface TrialNoticeDeps {
  db: Database;
  /** Wall clock; a test-mode store's clock adds its offset. */
  clock: Clock;
  config: LinkConfig & Pick<Config, 'taxRates'>;
}

/** Which subscriptions a pass looks at: every store on its own clock, or one store and environment at `now` (advance_clock). */
export type TrialNoticeScope = { kind: 'all' } | ({ kind: 'store'; now: Date } & Scope);

/** When a trial's notice is due: three days before its end, or at its start when it is shorter. */
export function trialNoticeAt(subscription: Pick<SubscriptionRow, 'trialStart' | 'trialEnd'>): Date {
  return new Date(Math.max(subscription.trialEnd!.getTime() - TRIAL_NOTICE_SECONDS * 1000, subscription.trialStart!.getTime()));
}

/**
 * Writes the notice of one trialing subscription (locked or just written by the caller's
 * transaction) unless it was written already; true when this call wrote it.
 */
export async function noticeTrialEnd(tx: Transaction, subscription: SubscriptionRow, times: EventTimes, config: TrialNoticeDeps['config']): Promise<boolean> {
  const [noticed] = await tx
    .update(subscriptions)
    .set({ trialWillEndSentAt: times.now })
    .where(and(eq(subscriptions.id, subscription.id), eq(subscriptions.status, 'trialing'), eq(subscriptions.cancelAtPeriodEnd, false), isNull(subscriptions.trialWillEndSentAt)))
    .returning();
  if (!noticed) return false;
  await emitSubscriptionEvent(tx, noticed, 'subscription.trial_will_end', times);
  const data = {
    planName: noticed.planName,
    trialEnd: epochSeconds(noticed.trialEnd!),
    amount: owedChargeAmounts(noticed, config.taxRates, noticed.trialEnd!).amount,
    card: noticed.cardBrand === null || noticed.cardLast4 === null ? null : { brand: noticed.cardBrand, last4: noticed.cardLast4 },
    updatePaymentMethodUrl: paymentMethodLink(config, noticed.id, times.now, noticed.language).url,
  };
  await enqueueSubscriptionEmail(tx, noticed, { template: 'trial_ending', data }, times, { dedupeKey: `trial_ending:${noticed.id}` });
  return true;
}

/** The trial's notice is due on the subscription's clock: its end is at most three days away. */
function noticeDue(scope: TrialNoticeScope, wallNow: Date): SQL {
  const lead = sql`make_interval(secs => ${TRIAL_NOTICE_SECONDS})`;
  if (scope.kind === 'store') return and(ownedBy(subscriptions, scope), lte(subscriptions.trialEnd, new Date(scope.now.getTime() + TRIAL_NOTICE_SECONDS * 1000)))!;
  const wall = wallNow.toISOString();
  // The first bound (the furthest any clock reads) is what the trial-end index can range over; the second is exact per row.
  return sql`${subscriptions.trialEnd} <= ${furthestClockSql(wall, TRIAL_NOTICE_SECONDS)}
    and ${subscriptions.trialEnd} <= ${subscriptionClockSql(wall)} + ${lead}`;
}

/** Writes the notices that are due and not written yet; returns how many it wrote. */
export async function noticeEndingTrials(deps: TrialNoticeDeps, scope: TrialNoticeScope): Promise<number> {
  const wallNow = deps.clock.now();
  let written = 0;
  let after: string | undefined;
  for (;;) {
    const due = await deps.db
      .select({ subscription: subscriptions, offset: stores.testClockOffsetSeconds })
      .from(subscriptions)
      .innerJoin(stores, eq(stores.id, subscriptions.storeId))
      .where(
        and(
          eq(subscriptions.status, 'trialing'),
          isNull(subscriptions.trialWillEndSentAt),
          eq(subscriptions.cancelAtPeriodEnd, false),
          noticeDue(scope, wallNow),
          after === undefined ? undefined : gt(subscriptions.id, after),
        ),
      )
      .orderBy(asc(subscriptions.id))
      .limit(BATCH);
    for (const { subscription, offset } of due) {
      const now = scope.kind === 'store' ? scope.now : storeClock(deps.clock, { livemode: subscription.livemode, testClockOffsetSeconds: offset }).now();
      if (await deps.db.transaction((tx) => noticeTrialEnd(tx, subscription, { now, wallNow }, deps.config))) written += 1;
    }
    if (due.length < BATCH) return written;
    after = due.at(-1)!.subscription.id;
  }
}
