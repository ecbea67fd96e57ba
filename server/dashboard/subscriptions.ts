/**
 * The dashboard's subscription pages: the list with the API's filters plus a customer id and a
 * created range, and one subscription with its payment attempts.
 */
import { and, desc, eq } from 'drizzle-orm';
import { subscriptionCharges, subscriptions, type SubscriptionChargeStatus } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { Services } from '../context';
import { resourceMissing } from '../errors';
import { createdWithin, listPage, type CreatedRange, type PageQuery } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import { subscriptionObject, type SubscriptionObject } from '../subscriptions/representation';
import type { SubscriptionListFilters } from '../subscriptions/schemas';
import { subscriptionListConditions } from '../subscriptions/service';

/** The API's subscription filters, plus the customer's id and a created range. */
export interface SubscriptionSearch extends SubscriptionListFilters, CreatedRange {
  customer_id?: string | undefined;
}

/** Each condition has its index: status, lower(customer_email), customer_id, created_at. */
export function subscriptionSearchConditions(search: SubscriptionSearch) {
  return {
    where: [
      ...subscriptionListConditions(search).where,
      search.customer_id === undefined ? undefined : eq(subscriptions.customerId, search.customer_id),
      ...createdWithin(subscriptions.createdAt, search),
    ],
  };
}

export interface SubscriptionPage {
  data: SubscriptionObject[];
  hasMore: boolean;
}

/** One page, newest first; a cursor of another store or mode is resource_missing. */
export async function listSubscriptionPage(db: Services['db'], scope: Scope, search: SubscriptionSearch & PageQuery): Promise<SubscriptionPage> {
  const { rows, hasMore } = await listPage(db, subscriptions, { scope, page: search, kind: 'subscription', ...subscriptionSearchConditions(search) });
  return { data: rows.map(subscriptionObject), hasMore };
}

/** One charge of the subscription: the first on the hosted page, then one per cycle and retry. */
export interface PaymentAttempt {
  id: string;
  cycle: number;
  /** 0 for the scheduled charge, then the retries. */
  attempt: number;
  amount: number;
  status: SubscriptionChargeStatus;
  failure_code: string | null;
  card: { brand: string; last4: string } | null;
  scheduled_at: number;
  created: number;
  settled_at: number | null;
  /** The order of a charge that took the money: where its invoice and refunds are. */
  order_id: string | null;
}

export interface SubscriptionDetail {
  subscription: SubscriptionObject;
  plan_name: string;
  payments_made: number;
  cancel_reason: string | null;
  /** Latest first. */
  attempts: PaymentAttempt[];
}

/** A subscription of the scope with what the API object leaves out and every payment attempt (a few dozen at most per year). */
export async function subscriptionDetail(db: Services['db'], scope: Scope, id: string): Promise<SubscriptionDetail> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
    .limit(1);
  if (!row) throw resourceMissing('subscription', id);
  const charges = await db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, row.id)).orderBy(desc(subscriptionCharges.cycle), desc(subscriptionCharges.attempt));
  return {
    subscription: subscriptionObject(row),
    plan_name: row.planName,
    payments_made: row.paymentsMade,
    cancel_reason: row.cancelReason,
    attempts: charges.map((charge) => ({
      id: charge.id,
      cycle: charge.cycle,
      attempt: charge.attempt,
      amount: charge.amount,
      status: charge.status,
      failure_code: charge.failureCode,
      card: charge.cardBrand && charge.cardLast4 ? { brand: charge.cardBrand, last4: charge.cardLast4 } : null,
      scheduled_at: epochSeconds(charge.scheduledAt),
      created: epochSeconds(charge.createdAt),
      settled_at: charge.settledAt === null ? null : epochSeconds(charge.settledAt),
      order_id: charge.orderId,
    })),
  };
}
