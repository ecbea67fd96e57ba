/**
 * The dashboard's Home figures for one store and environment, read in four small queries (the
 * store's test clock, orders by day, subscriptions, webhook attempts) that each walk an index
 * made for them, so a store with 100,000 orders answers in milliseconds.
 */
import { and, eq, gt, gte, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { orders, stores, subscriptions, webhookDeliveries, webhookDeliveryAttempts, type OrderStatus } from '@/db/schema';
import type { Actor } from '../audit/service';
import { storeClock, type Clock } from '../clock';
import type { Services } from '../context';
import { ApiError } from '../errors';
import { ownedBy, type Scope } from '../kit/scope';

/** Orders that were paid, whatever has been refunded since. */
const PAID_STATUSES: OrderStatus[] = ['paid', 'partially_refunded', 'refunded'];

export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

export interface DailyFigures {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  /** Cents paid that day, net of what has been refunded of those orders since. */
  gross_volume: number;
  /** Orders paid that day. */
  orders: number;
}

export interface HomeMetrics {
  /** The first and last day of `daily`, on the store's clock. */
  from: string;
  to: string;
  /** Cents over the days of `daily` (their sum): paid orders' totals less what was refunded of them. */
  gross_volume: number;
  /** Orders paid over the days of `daily`. */
  orders: number;
  active_subscriptions: number;
  /** Cents per month from the active subscriptions (past-due ones are not in it). */
  mrr: number;
  past_due: number;
  /** Failed delivery attempts of this store's endpoints in this environment, the last 24 hours of wall time. */
  webhook_failures_24h: number;
  /** One entry per UTC day, oldest first, today (on the store's clock) last. */
  daily: DailyFigures[];
}

export interface HomeMetricsDeps {
  db: Database;
  /** Wall time: the store's test clock is read from the store. */
  clock: Clock;
}

const utcDay = (date: Date) => date.toISOString().slice(0, 10);

/** The clock of a store's environment: its test clock in test mode, read from the store. */
export async function scopeClock(deps: HomeMetricsDeps, scope: Scope): Promise<Clock> {
  const [store] = await deps.db.select({ testClockOffsetSeconds: stores.testClockOffsetSeconds }).from(stores).where(eq(stores.id, scope.storeId));
  return storeClock(deps.clock, { livemode: scope.livemode, testClockOffsetSeconds: store?.testClockOffsetSeconds ?? 0 });
}

/**
 * What a person's dashboard action hands the API's services, as a key procedure's context does:
 * the store's clock in the form's mode, the wall clock, and the person as the actor the services
 * audit their changes with.
 */
export interface ActingContext extends Services {
  wallClock: Clock;
  actor: Actor;
}

export async function actingContext(services: Services, scope: Scope, actor: Actor): Promise<ActingContext> {
  return Object.assign({}, services, { clock: await scopeClock(services, scope), wallClock: services.clock, actor });
}

/**
 * A subscription's amount per month in cents, rounded half up to the cent for each subscription
 * before the sum: a day is 1/30 of a month, a week 12/52, a year 12 months, and the amount is
 * charged every `interval_count` intervals. Integer arithmetic: round(n / d) = (2n + d) div 2d.
 */
const monthlyNumerator = sql`(case ${subscriptions.interval} when 'day' then 30 when 'week' then 52 else 1 end)`;
const monthlyDenominator = sql`(${subscriptions.intervalCount} * case ${subscriptions.interval} when 'week' then 12 when 'year' then 12 else 1 end)`;
const monthlyAmount = sql`(2 * ${subscriptions.amount}::bigint * ${monthlyNumerator} + ${monthlyDenominator}) / (2 * ${monthlyDenominator})`;

/**
 * Home: money and orders of the last `days` days (today included, UTC days on the store's clock,
 * so a test clock moves the window), subscriptions as they stand, and webhook failures. An order
 * counts on the day it was paid; a refund lowers that day's volume, not the refund's.
 */
export async function homeMetrics(deps: HomeMetricsDeps, scope: Scope, input: { days: number }): Promise<HomeMetrics> {
  const { days } = input;
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) {
    throw new ApiError('parameter_invalid', `\`days\` must be an integer from 1 to ${MAX_DAYS}.`, { param: 'days' });
  }
  const now = (await scopeClock(deps, scope)).now();
  const tomorrow = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const start = new Date(tomorrow - days * DAY_MS);
  const wallDayAgo = new Date(deps.clock.now().getTime() - DAY_MS);

  // Binned on the instant (half the cost of formatting each row's date): UTC days from an epoch's midnight.
  const day = sql<Date>`date_bin('1 day', ${orders.paidAt}, timestamptz '2000-01-01 00:00:00+00')`.mapWith(orders.paidAt);
  const [byDay, [subscriptionFigures], [webhookFigures]] = await Promise.all([
    deps.db
      .select({
        date: day,
        grossVolume: sql<number>`sum(${orders.amountTotal} - ${orders.amountRefunded})::bigint`.mapWith(Number),
        orders: sql<number>`count(*)::int`.mapWith(Number),
      })
      .from(orders)
      .where(and(ownedBy(orders, scope), gte(orders.paidAt, start), lt(orders.paidAt, new Date(tomorrow)), inArray(orders.status, PAID_STATUSES)))
      .groupBy(day),
    deps.db
      .select({
        active: sql<number>`count(*) filter (where ${subscriptions.status} = 'active')::int`.mapWith(Number),
        pastDue: sql<number>`count(*) filter (where ${subscriptions.status} = 'past_due')::int`.mapWith(Number),
        mrr: sql<number>`coalesce(sum(${monthlyAmount}) filter (where ${subscriptions.status} = 'active'), 0)::bigint`.mapWith(Number),
      })
      .from(subscriptions)
      .where(and(ownedBy(subscriptions, scope), inArray(subscriptions.status, ['active', 'past_due']))),
    deps.db
      .select({ failures: sql<number>`count(*)::int`.mapWith(Number) })
      .from(webhookDeliveryAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookDeliveryAttempts.deliveryId))
      .where(and(ownedBy(webhookDeliveries, scope), isNotNull(webhookDeliveryAttempts.error), gt(webhookDeliveryAttempts.attemptedAt, wallDayAgo))),
  ]);

  const found = new Map(byDay.map((row) => [utcDay(row.date), row]));
  const daily = Array.from({ length: days }, (_, index): DailyFigures => {
    const date = utcDay(new Date(start.getTime() + index * DAY_MS));
    const row = found.get(date);
    return { date, gross_volume: row?.grossVolume ?? 0, orders: row?.orders ?? 0 };
  });
  return {
    from: daily[0]!.date,
    to: daily.at(-1)!.date,
    gross_volume: daily.reduce((total, entry) => total + entry.gross_volume, 0),
    orders: daily.reduce((total, entry) => total + entry.orders, 0),
    active_subscriptions: subscriptionFigures?.active ?? 0,
    mrr: subscriptionFigures?.mrr ?? 0,
    past_due: subscriptionFigures?.pastDue ?? 0,
    webhook_failures_24h: webhookFigures?.failures ?? 0,
    daily,
  };
}
