/**
 * Renewal reminders: 7 days before an active subscription of a monthly or longer plan is charged
 * again (and is not ending then), its customer is told when and how much (discounted as charged), with the links to give
 * another card and to cancel. Each subscription's clock decides (its store's
 * test clock in test mode), so a test clock moved forward sends them as time would. One reminder
 * per renewal: its dedupe key names the subscription and the payment it announces, so passes
 * that overlap, repeat or run in several processes write it once.
 */
import { and, asc, eq, gt, lt, lte, notExists, sql, type SQL } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { emails, stores, subscriptions } from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { paymentMethodLink, type LinkConfig } from '../kit/links';
import { ownedBy, type Scope } from '../kit/scope';
import { enqueueSubscriptionEmail } from '../mail/outbox';
import { furthestClockSql, subscriptionClockSql } from './clock-sql';
import { owedChargeAmounts } from './discount';

const LEAD_DAYS = 7;
const LEAD_MS = LEAD_DAYS * 24 * 60 * 60 * 1000;
/** Subscriptions looked at per query. */
const BATCH = 200;

/** Which subscriptions a pass looks at: every store on its own clock, or one store and environment at `now` (advance_clock). */
export type ReminderScope = { kind: 'all' } | ({ kind: 'store'; now: Date } & Scope);

export interface ReminderDeps {
  db: Database;
  /** Wall clock; a test-mode store's clock adds its offset. */
  clock: Clock;
  /** Each reminder carries a signed link to give another card before the charge, and the amount as it will be charged (the day's VAT rates). */
  config: LinkConfig & Pick<Config, 'taxRates'>;
}

/** A period of at least 28 days (the shortest month): monthly, yearly, every 4+ weeks or 28+ days. */
const MONTHLY_OR_LONGER = sql`(${subscriptions.interval} in ('month', 'year')
  or (${subscriptions.interval} = 'week' and ${subscriptions.intervalCount} >= 4)
  or (${subscriptions.interval} = 'day' and ${subscriptions.intervalCount} >= 28))`;

const dedupeKey = sql`'renewal_reminder:' || ${subscriptions.id} || ':' || (${subscriptions.paymentsMade} + 1)`;

/** The renewal falls within the next 7 days of the subscription's clock (not yet due). */
function withinLead(scope: ReminderScope, wallNow: Date): SQL {
  if (scope.kind === 'store') {
    return and(ownedBy(subscriptions, scope), gt(subscriptions.nextBillingAt, scope.now), lte(subscriptions.nextBillingAt, new Date(scope.now.getTime() + LEAD_MS)))!;
  }
  const wall = wallNow.toISOString();
  const clock = subscriptionClockSql(wall);
  // The first two bounds (no clock reads earlier than wall time, none later than the furthest
  // test clock) are what the due index can range over; the last two are exact per row.
  return sql`${subscriptions.nextBillingAt} > ${wall}::timestamptz
    and ${subscriptions.nextBillingAt} <= ${furthestClockSql(wall, LEAD_MS / 1000)}
    and ${subscriptions.nextBillingAt} > ${clock} and ${subscriptions.nextBillingAt} <= ${clock} + make_interval(days => ${LEAD_DAYS})`;
}

/** Writes the reminders that are due and not written yet; returns how many it wrote. */
export async function queueRenewalReminders(deps: ReminderDeps, scope: ReminderScope): Promise<number> {
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
          eq(subscriptions.status, 'active'),
          // A scheduled end: nothing to renew.
          eq(subscriptions.cancelAtPeriodEnd, false),
          lt(subscriptions.paymentsMade, subscriptions.totalPayments),
          MONTHLY_OR_LONGER,
          withinLead(scope, wallNow),
          notExists(deps.db.select({ one: sql`1` }).from(emails).where(eq(emails.dedupeKey, dedupeKey))),
          after === undefined ? undefined : gt(subscriptions.id, after),
        ),
      )
      .orderBy(asc(subscriptions.id))
      .limit(BATCH);
    for (const { subscription, offset } of due) {
      const now = scope.kind === 'store' ? scope.now : storeClock(deps.clock, { livemode: subscription.livemode, testClockOffsetSeconds: offset }).now();
      const payment = subscription.paymentsMade + 1;
      const wrote = await enqueueSubscriptionEmail(
        deps.db,
        subscription,
        {
          template: 'renewal_reminder',
          data: {
            planName: subscription.planName,
            // What the renewal will take: its discount and the credit balance off, VAT as on the day.
            amount: owedChargeAmounts(subscription, deps.config.taxRates, subscription.nextBillingAt).amount,
            renewsAt: epochSeconds(subscription.nextBillingAt),
            payment,
            totalPayments: subscription.totalPayments,
            updatePaymentMethodUrl: paymentMethodLink(deps.config, subscription.id, now, subscription.language).url,
          },
        },
        { now, wallNow },
        { dedupeKey: `renewal_reminder:${subscription.id}:${payment}` },
      );
      if (wrote) written += 1;
    }
    if (due.length < BATCH) return written;
    after = due.at(-1)!.subscription.id;
  }
}
