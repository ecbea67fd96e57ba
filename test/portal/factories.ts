import type { Database } from '@/db/client';
import { customers, licenseKeys, orderLines, orders, refunds, subscriptionCharges, subscriptions, type SubscriptionChargeStatus, type SubscriptionStatus } from '@/db/schema';
import { newId, randomBase62 } from '@/server/ids';
import { generateLicenseKey } from '@/server/payments/license-keys';

/**
 * The data a portal shows, written straight to the tables: customers, paid orders with refunds
 * and license keys, and subscriptions with their payment attempts (billing is built elsewhere, so
 * its rows are set up here as billing leaves them). Works on any database handle, so the browser
 * test can seed the service's database before `npm start` opens it.
 */

export interface Seed {
  db: Database;
  /** The time the rows are written at. */
  now: Date;
}

type StoreRef = { id: string };

export async function seedCustomer(seed: Seed, store: StoreRef, options: { email?: string; name?: string | null; livemode?: boolean } = {}) {
  const [row] = await seed.db
    .insert(customers)
    .values({
      id: newId('cus', options.livemode ?? false),
      storeId: store.id,
      livemode: options.livemode ?? false,
      email: (options.email ?? `buyer-${randomBase62(8)}@example.com`).toLowerCase(),
      name: options.name ?? null,
      createdAt: seed.now,
    })
    .returning();
  return row!;
}

export interface SeedLine {
  description: string;
  quantity?: number;
  unitAmount: number;
  /** Tax added on top of quantity × unit amount (exclusive). */
  amountTax?: number;
  licenseKeys?: number;
}

export interface SeedOrder {
  customer?: { id: string; email: string } | null;
  livemode?: boolean;
  status?: 'paid' | 'pending';
  lines?: SeedLine[];
  /** Succeeded refunds, in cents. */
  refunds?: number[];
  card?: { brand: string; last4: string };
  /** Seconds before `now` that it was paid. */
  ageSeconds?: number;
}

/** A paid order (unless `status: 'pending'`) with its lines, refunds and license keys. */
export async function seedOrder(seed: Seed, store: StoreRef, input: SeedOrder = {}) {
  const livemode = input.livemode ?? false;
  const status = input.status ?? 'paid';
  const at = new Date(seed.now.getTime() - (input.ageSeconds ?? 0) * 1000);
  const id = newId('ord', livemode);
  const lines = (input.lines ?? [{ description: 'Ebook', unitAmount: 1999 }]).map((line, position) => {
    const quantity = line.quantity ?? 1;
    const amountSubtotal = line.unitAmount * quantity;
    const amountTax = line.amountTax ?? 0;
    return {
      id: `${id}_l${position}`,
      orderId: id,
      position,
      description: line.description,
      quantity,
      unitAmount: line.unitAmount,
      amountSubtotal,
      amountTax,
      amountTotal: amountSubtotal + amountTax,
      taxRate: amountTax > 0 ? 19 : null,
      taxInclusive: false,
      hasLicense: (line.licenseKeys ?? 0) > 0,
      keys: Array.from({ length: status === 'paid' ? (line.licenseKeys ?? 0) : 0 }, () => generateLicenseKey()),
    };
  });
  const sum = (pick: (line: (typeof lines)[number]) => number) => lines.reduce((total, line) => total + pick(line), 0);
  const amountTotal = sum((line) => line.amountTotal);
  const refunded = (input.refunds ?? []).reduce((total, amount) => total + amount, 0);
  const card = input.card ?? { brand: 'visa', last4: '4242' };
  await seed.db.transaction(async (tx) => {
    await tx.insert(orders).values({
      id,
      storeId: store.id,
      livemode,
      status: status === 'pending' ? 'pending' : refunded === 0 ? 'paid' : refunded >= amountTotal ? 'refunded' : 'partially_refunded',
      customerId: input.customer?.id ?? null,
      customerEmail: input.customer?.email ?? null,
      amountSubtotal: sum((line) => line.amountSubtotal),
      amountTax: sum((line) => line.amountTax),
      amountTotal,
      amountRefunded: refunded,
      cardBrand: status === 'paid' ? card.brand : null,
      cardLast4: status === 'paid' ? card.last4 : null,
      gatewayPaymentId: status === 'paid' ? `pi_seed_${randomBase62(16)}` : null,
      createdAt: at,
      paidAt: status === 'paid' ? at : null,
    });
    await tx.insert(orderLines).values(lines.map(({ keys: _keys, ...line }) => line));
    for (const line of lines) {
      for (const key of line.keys) {
        await tx.insert(licenseKeys).values({ id: newId('lic', livemode), storeId: store.id, livemode, orderId: id, orderLineId: line.id, key, createdAt: at });
      }
    }
    for (const amount of input.refunds ?? []) {
      await tx.insert(refunds).values({ id: newId('re', livemode), storeId: store.id, livemode, orderId: id, amount, status: 'succeeded', createdAt: seed.now });
    }
  });
  return { id, amountTotal, licenseKeys: lines.flatMap((line) => line.keys) };
}

export interface SeedPayment {
  amount?: number;
  status: SubscriptionChargeStatus;
  card?: { brand: string; last4: string };
  /** Seconds before `now`. */
  ageSeconds: number;
}

export interface SeedSubscription {
  customer?: { id: string; email: string } | null;
  livemode?: boolean;
  planName?: string;
  amount?: number;
  status?: SubscriptionStatus;
  interval?: 'day' | 'week' | 'month' | 'year';
  intervalCount?: number;
  /** Seconds after `now` of the next charge. */
  nextBillingInSeconds?: number;
  /** The card the next charge uses (Visa 4242 unless given). */
  card?: { brand: string; last4: string } | null;
  /** An end scheduled at the period's end (the next charge's time), as a declared cancellation leaves it. */
  endScheduled?: boolean;
  payments?: SeedPayment[];
}

/** A subscription as billing leaves it, with one charge row per payment attempt. */
export async function seedSubscription(seed: Seed, store: StoreRef, input: SeedSubscription = {}) {
  const livemode = input.livemode ?? false;
  const id = newId('sub', livemode);
  const amount = input.amount ?? 990;
  const nextBillingAt = new Date(seed.now.getTime() + (input.nextBillingInSeconds ?? 30 * 86400) * 1000);
  const start = new Date(seed.now.getTime() - 30 * 86400 * 1000);
  // Subscribed before its first payment attempt.
  const created = new Date(Math.min(start.getTime(), ...(input.payments ?? []).map((payment) => seed.now.getTime() - payment.ageSeconds * 1000)));
  await seed.db.transaction(async (tx) => {
    await tx.insert(subscriptions).values({
      id,
      storeId: store.id,
      livemode,
      status: input.status ?? 'active',
      amount,
      interval: input.interval ?? 'month',
      intervalCount: input.intervalCount ?? 1,
      totalPayments: 12,
      paymentsMade: (input.payments ?? []).filter((payment) => payment.status === 'succeeded').length,
      planName: input.planName ?? 'Pro plan',
      recurringId: `rec_seed_${randomBase62(16)}`,
      customerId: input.customer?.id ?? null,
      customerEmail: input.customer?.email ?? `buyer-${randomBase62(8)}@example.com`,
      currentPeriodStart: start,
      currentPeriodEnd: nextBillingAt,
      nextBillingAt,
      cardBrand: input.card === null ? null : (input.card?.brand ?? 'visa'),
      cardLast4: input.card === null ? null : (input.card?.last4 ?? '4242'),
      cancelAtPeriodEnd: input.endScheduled ?? false,
      cancelAt: input.endScheduled ? nextBillingAt : null,
      metadata: {},
      createdAt: created,
    });
    for (const [index, payment] of (input.payments ?? []).entries()) {
      const at = new Date(seed.now.getTime() - payment.ageSeconds * 1000);
      const card = payment.card ?? { brand: 'visa', last4: '4242' };
      await tx.insert(subscriptionCharges).values({
        id: `subch_${randomBase62(24)}`,
        subscriptionId: id,
        storeId: store.id,
        livemode,
        cycle: index + 1,
        attempt: 0,
        idempotencyKey: `subscription:${id}:${index + 1}:0`,
        amount: payment.amount ?? amount,
        status: payment.status,
        failureCode: payment.status === 'declined' ? 'card_declined' : null,
        cardBrand: card.brand,
        cardLast4: card.last4,
        gatewayPaymentId: `pi_seed_${randomBase62(16)}`,
        scheduledAt: at,
        createdAt: at,
        settledAt: payment.status === 'succeeded' || payment.status === 'declined' ? at : null,
      });
    }
  });
  return { id, amount };
}
