/**
 * Subscription checkouts: the signed, single-use hosted link that starts a
 * subscription. Created here; consumed by the hosted page's first payment attempt (first-charge.ts).
 */
import { buyerTaxView } from '../vat/views';
import { and, eq, isNotNull, or, sql } from 'drizzle-orm';
import { subscriptions, type DiscountTerms } from '@/db/schema';
import { resolveDiscountRequest, type DiscountTarget } from '../coupons/discounts';
import { discountView } from '../kit/discount-schemas';
import type { Database, Executor } from '@/db/client';
import { subscriptionCheckouts, type TaxCategory } from '@/db/schema';
import type { Subject } from '../auth/service';
import { epochSeconds, type Clock } from '../clock';
import type { Config } from '../config';
import { auditParams, type KeyActor } from '../audit/service';
import { createIdempotently, type IdempotentRequest, type KeyClaim } from '../kit/idempotency';
import { signedLink, signingSecret } from '../kit/links';
import { normalizeMetadata } from '../kit/metadata';
import { ApiError, resourceMissing } from '../errors';
import { clampExpiry, markExpired, withExpiryApplied, type Lifetime } from '../kit/expiry';
import { newId, normalizePriceId } from '../ids';
import type { CreateSubscriptionInput, SubscriptionCheckout } from './schemas';
import { ownedBy, type Scope } from '../kit/scope';
import { checkoutInsert, checkoutRead, planRead } from './statements';

export type SubscriptionCheckoutRow = typeof subscriptionCheckouts.$inferSelect;

export interface SubscriptionDeps {
  db: Database;
  /** The store's clock (storeClock): test mode reads the store's test clock. */
  clock: Clock;
  /** Wall-clock time, for webhook delivery scheduling. */
  wallClock: Clock;
  config: Pick<Config, 'publicBaseUrl' | 'authSecret'>;
}

export const CREATE_OPERATION = 'subscription_checkout.create';

/** expires_at: clamped to [now + 30 minutes, now + 24 hours], default 24 hours. */
const CHECKOUT_LIFETIME: Lifetime = { min: 30 * 60, max: 24 * 60 * 60, default: 24 * 60 * 60 };

/** How a subscription checkout becomes `expired`: past its deadline, read or due. */
export const expireSubscriptionCheckouts = markExpired(subscriptionCheckouts);

/** The API shape: `url` signed afresh on every read while open, null after. */
export function subscriptionCheckoutView(row: SubscriptionCheckoutRow, config: SubscriptionDeps['config']): SubscriptionCheckout {
  const expiresAt = epochSeconds(row.expiresAt);
  return {
    id: row.id,
    object: 'subscription.checkout',
    status: row.status,
    livemode: row.livemode,
    url: row.status === 'open' ? signedLink(config.publicBaseUrl, signingSecret(config), 'subscription_checkout', row.id, expiresAt) : null,
    subscription: row.subscriptionId,
    amount: row.amount,
    currency: 'eur',
    interval: row.interval,
    interval_count: row.intervalCount,
    total_payments: row.totalPayments,
    plan_name: row.planName,
    price_id: row.priceId,
    product_id: row.productId,
    customer_email: row.customerEmail,
    customer_name: row.customerName,
    success_url: row.successUrl,
    metadata: row.metadata,
    ...buyerTaxView(row),
    trial_days: row.trialDays,
    discount: row.discount === null ? null : discountView(row.discount),
    allow_promotion_codes: row.allowPromotionCodes,
    created: epochSeconds(row.createdAt),
    expires_at: expiresAt,
  };
}

/** GET /subscriptions/checkout/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getSubscriptionCheckout(deps: SubscriptionDeps, scope: Scope, id: string): Promise<SubscriptionCheckout> {
  const [row] = await checkoutRead(deps.db).execute({ id, storeId: scope.storeId, livemode: scope.livemode });
  if (!row) throw resourceMissing('subscription checkout', id);
  return subscriptionCheckoutView(await withExpiryApplied(deps.db, subscriptionCheckouts, row, deps.clock.now(), expireSubscriptionCheckouts), deps.config);
}

export interface Plan {
  amount: number;
  interval: SubscriptionCheckoutRow['interval'];
  intervalCount: number;
  planName: string;
  priceId: string | null;
  productId: string | null;
  /** For a store taxing by the buyer's country: a plan's amount includes VAT at the standard rate; a price's follows its product. */
  taxCategory: TaxCategory;
  taxInclusive: boolean;
}

/** A plan as a request names it: a recurring price, or amount and interval (plan mode). */
export type PlanRequest = Pick<CreateSubscriptionInput, 'price_id' | 'amount' | 'interval' | 'interval_count' | 'plan_name'>;

/**
 * Price mode reads amount, interval and plan name from the catalog (the product's
 * name); a one-time price is `price_mode_unsupported`, an inactive one `price_inactive`.
 */
export async function resolvePlan(executor: Executor, scope: Scope, input: PlanRequest): Promise<Plan> {
  if (input.price_id === undefined) {
    return {
      amount: input.amount!,
      interval: input.interval!,
      intervalCount: input.interval_count ?? 1,
      planName: input.plan_name!,
      priceId: null,
      productId: null,
      taxCategory: 'standard',
      taxInclusive: true,
    };
  }
  const priceId = normalizePriceId(input.price_id);
  const [product] = await planRead(executor).execute({ priceId, storeId: scope.storeId, livemode: scope.livemode });
  if (!product) throw resourceMissing('price', priceId, 'price_id');
  if (product.priceMode !== 'recurring' || product.priceInterval === null) {
    throw new ApiError('price_mode_unsupported', 'This price is one-time: sell it with a checkout session, or pick a recurring price for a subscription.', { param: 'price_id' });
  }
  if (!product.priceActive) throw new ApiError('price_inactive', 'This price is not active: activate it or sell another one.', { param: 'price_id' });
  if (product.amount < 50) {
    throw new ApiError('parameter_invalid', 'Subscriptions charge at least 50 cents per cycle: this price is lower.', { param: 'price_id' });
  }
  return {
    amount: product.amount,
    interval: product.priceInterval,
    intervalCount: product.priceIntervalCount ?? 1,
    planName: product.name,
    priceId: product.priceId,
    productId: product.id,
    taxCategory: product.taxCategory,
    taxInclusive: product.taxInclusive,
  };
}

/** What a discount of this plan must reach: the product of a price, nothing product-bound in plan mode. */
export function discountTargetOf(plan: { productId: string | null }): DiscountTarget {
  return plan.productId === null ? { kind: 'plan' } : { kind: 'lines', productIds: [plan.productId] };
}

/**
 * Whether the store and environment have a subscription of this e-mail (any case, any status) that
 * had a trial of this plan, or is starting one (its card check on its way): the same product
 * (price mode) or plan name (plan mode).
 */
export async function trialAlreadyUsed(executor: Executor, scope: Scope, plan: { productId: string | null; planName: string; customerEmail: string }): Promise<boolean> {
  const [row] = await executor
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        ownedBy(subscriptions, scope),
        or(
          isNotNull(subscriptions.trialStart),
          and(
            eq(subscriptions.status, 'pending'),
            sql`exists (select 1 from ${subscriptionCheckouts} where ${subscriptionCheckouts.id} = ${subscriptions.checkoutId} and ${subscriptionCheckouts.trialDays} is not null)`,
          ),
        ),
        sql`lower(${subscriptions.customerEmail}) = lower(${plan.customerEmail})`,
        plan.productId === null ? and(sql`${subscriptions.productId} is null`, eq(subscriptions.planName, plan.planName)) : eq(subscriptions.productId, plan.productId),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** The lock that makes two trial starts of one e-mail and plan take turns, so the second sees the first. */
export function trialLockName(scope: Scope, plan: { productId: string | null; planName: string; customerEmail: string }): string {
  return `trial:${scope.storeId}:${scope.livemode}:${plan.customerEmail.toLowerCase()}:${plan.productId ?? `plan:${plan.planName}`}`;
}

export const trialUsedError = () => new ApiError('trial_already_used', 'This customer has already had a free trial of this plan: create the checkout without `trial_days`.', { param: 'trial_days' });

/**
 * POST /subscriptions: the catalog read (price mode), then the checkout and its audit line
 * written by one statement that, with a key, claims it too. A key already live replays whatever
 * the catalog says now, so a price deactivated since still replays its checkout.
 */
export async function createSubscriptionCheckout(
  deps: SubscriptionDeps & { actor: KeyActor },
  subject: Subject,
  input: CreateSubscriptionInput,
  idempotency: IdempotentRequest | undefined,
): Promise<SubscriptionCheckout> {
  if (subject.livemode && input.success_url !== undefined && !/^https:/i.test(input.success_url)) {
    throw new ApiError('invalid_success_url', '`success_url` must use https in live mode.', { param: 'success_url' });
  }
  const now = deps.clock.now();
  const id = newId('subchk', subject.livemode);
  /** Reads the plan; answers the checkout's writer, which claims the key when `claim` is given. */
  const prepareCheckout = async (executor: Executor) => {
    const plan = await resolvePlan(executor, subject, input);
    if (input.trial_days !== undefined && (await trialAlreadyUsed(executor, subject, { ...plan, customerEmail: input.customer_email }))) throw trialUsedError();
    const discount: DiscountTerms | null = input.discounts?.[0] ? await resolveDiscountRequest(executor, subject, input.discounts[0], discountTargetOf(plan), now) : null;
    return async (claim?: KeyClaim): Promise<SubscriptionCheckoutRow | undefined> => {
      const [row] = await checkoutInsert(executor, claim === undefined ? 0 : 1).execute({
        id,
        storeId: subject.storeId,
        livemode: subject.livemode,
        totalPayments: input.total_payments,
        customerEmail: input.customer_email,
        customerName: input.customer_name ?? null,
        successUrl: input.success_url ?? null,
        metadata: normalizeMetadata(input.metadata),
        createdAt: now,
        expiresAt: new Date(clampExpiry(epochSeconds(now), input.expires_at, CHECKOUT_LIFETIME) * 1000),
        taxMode: subject.taxMode,
        trialDays: input.trial_days ?? null,
        discount,
        allowPromotionCodes: input.allow_promotion_codes ?? false,
        ...auditParams(deps.actor, { subscription_checkout: id, price_id: plan.priceId, amount: plan.amount }),
        ...plan,
        ...claim,
      });
      return row;
    };
  };
  const { result } = await createIdempotently({
    db: deps.db,
    scope: { storeId: subject.storeId, livemode: subject.livemode },
    operation: CREATE_OPERATION,
    request: idempotency,
    orderedFields: ['metadata'],
    now,
    resourceId: id,
    claiming: {
      table: subscriptionCheckouts,
      prepare: prepareCheckout,
      replayRow: (row) => withExpiryApplied(deps.db, subscriptionCheckouts, row, now, expireSubscriptionCheckouts),
    },
  });
  return subscriptionCheckoutView(result, deps.config);
}
