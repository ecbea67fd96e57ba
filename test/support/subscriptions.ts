import { subscriptionCharges, subscriptions, type DocumentLanguage, type PriceInterval } from '@/db/schema';
import { chargeIdempotencyKey } from '@/server/subscriptions/schedule';
import type { Services } from '@/server/context';
import { newId, randomBase62 } from '@/server/ids';
import type { SubscriptionRow } from '@/server/subscriptions/representation';
import { periodBoundary } from '@/server/subscriptions/schedule';

/** The test-mode cards, digits only. */
export const CARDS = {
  approved: '4242424242424242',
  declinesRecurring: '4000000000000341',
  declinesFirstRecurring: '4000000000003063',
} as const;

export interface SubscriptionOptions {
  card?: string;
  amount?: number;
  interval?: PriceInterval;
  intervalCount?: number;
  totalPayments?: number;
  metadata?: Record<string, string>;
  livemode?: boolean;
  /** The customer's address (default ada@example.com). */
  customerEmail?: string;
  /** The customer's language (default English). */
  language?: DocumentLanguage;
  /** The first charge's time: the start of the first period (default: the services' clock). */
  anchor?: Date;
  /** How many subscriptions share the one recurring contract (bulk fixtures). */
  count?: number;
}

/**
 * Subscriptions as the hosted checkout leaves them after an approved first charge: the charge is
 * made through the simulator with a test card (so the recurring contract is real), then the
 * subscription (`active`, one payment made, billed next at the end of the first period) and its
 * cycle-1 charge are inserted, in batches. `count` > 1 shares one contract among all of them.
 */
export async function createSubscriptions(services: Pick<Services, 'db' | 'clock' | 'gateways'>, storeId: string, options: SubscriptionOptions = {}): Promise<SubscriptionRow[]> {
  const livemode = options.livemode ?? false;
  const amount = options.amount ?? 990;
  const interval = options.interval ?? 'month';
  const intervalCount = options.intervalCount ?? 1;
  const anchor = options.anchor ?? services.clock.now();
  const ids = Array.from({ length: options.count ?? 1 }, () => newId('sub', livemode));
  const first = await services.gateways.test.charge({
    idempotencyKey: chargeIdempotencyKey(ids[0]!, 1, 0),
    amount,
    description: 'first payment',
    card: { number: options.card ?? CARDS.approved, expMonth: 12, expYear: 2040, cvc: '123' },
    returnUrl: 'https://merchant.example/return',
    recurring: true,
  });
  if (first.status !== 'succeeded' || !first.recurringId) throw new Error(`first charge not approved: ${first.status}`);
  const periodEnd = periodBoundary(anchor, interval, intervalCount, 1);
  const rows: SubscriptionRow[] = ids.map((id) => ({
    id,
    storeId,
    livemode,
    status: 'active',
    amount,
    interval,
    intervalCount,
    totalPayments: options.totalPayments ?? 12,
    paymentsMade: 1,
    planName: 'Pro plan',
    checkoutId: null,
    recurringId: first.recurringId!,
    customerId: null,
    customerEmail: options.customerEmail ?? 'ada@example.com',
    customerName: 'Ada',
    language: options.language ?? 'en',
    productId: null,
    priceId: null,
    failureCount: 0,
    billingAnchor: null,
    anchorCycle: 0,
    currentPeriodStart: anchor,
    currentPeriodEnd: periodEnd,
    nextBillingAt: periodEnd,
    canceledAt: null,
    endedAt: null,
    cancelReason: null,
    metadata: options.metadata ?? { order: 'A-17' },
    createdAt: anchor,
    taxMode: 'product_rate',
    taxCategory: 'standard',
    taxInclusive: true,
    customerDetails: null,
    taxCountry: null,
    taxTreatment: null,
    taxEvidence: null,
    evidenceConflict: null,
    cardBrand: first.brand,
    cardLast4: first.last4,
    cancelAtPeriodEnd: false,
    cancelAt: null,
    cancellationId: null,
    cancellationDeclaredAt: null,
    cancellationType: null,
    cancellationReason: null,
    trialStart: null,
    trialEnd: null,
    trialWillEndSentAt: null,
    discount: null,
    discountEnd: null,
    pendingChange: null,
    creditBalance: 0,
  }));
  for (let start = 0; start < rows.length; start += 500) {
    const batch = rows.slice(start, start + 500);
    await services.db.insert(subscriptions).values(batch);
    await services.db.insert(subscriptionCharges).values(
      batch.map((row) => ({
        id: `subch_${randomBase62(24)}`,
        subscriptionId: row.id,
        storeId,
        livemode,
        cycle: 1,
        attempt: 0,
        idempotencyKey: chargeIdempotencyKey(row.id, 1, 0),
        amount,
        status: 'succeeded' as const,
        cardBrand: first.brand,
        cardLast4: first.last4,
        gatewayPaymentId: first.paymentId,
        scheduledAt: anchor,
        createdAt: anchor,
        settledAt: anchor,
      })),
    );
  }
  return rows;
}

export async function createSubscription(services: Pick<Services, 'db' | 'clock' | 'gateways'>, storeId: string, options: Omit<SubscriptionOptions, 'count'> = {}): Promise<SubscriptionRow> {
  const [row] = await createSubscriptions(services, storeId, options);
  return row!;
}
