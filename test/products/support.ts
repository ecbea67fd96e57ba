import { eq } from 'drizzle-orm';
import { licenseKeys, products, subscriptions, type SubscriptionStatus } from '@/db/schema';
import { newId, randomBase62 } from '@/server/ids';
import type { TestApi } from '../support/server';

export const PRODUCTS = '/api/v1/products';

export { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';

/** A subscription row of `productId`, written straight to the table (billing owns the API for them). */
export async function insertSubscription(api: TestApi, store: { id: string }, productId: string, status: SubscriptionStatus, livemode = false) {
  const now = api.clock.now();
  const id = newId('sub', livemode);
  await api.services.db.insert(subscriptions).values({
    id,
    storeId: store.id,
    livemode,
    status,
    amount: 1999,
    interval: 'month',
    intervalCount: 1,
    totalPayments: 12,
    recurringId: `rec_${randomBase62(12)}`,
    customerEmail: 'customer@example.com',
    productId,
    currentPeriodStart: now,
    currentPeriodEnd: now,
    nextBillingAt: now,
    metadata: {},
    createdAt: now,
  });
  return id;
}

/** An issued license key of `productId`, written straight to the table (checkout issues them). */
export async function insertLicenseKey(api: TestApi, store: { id: string }, productId: string, options: { revokedAt?: Date; livemode?: boolean } = {}) {
  const id = newId('lic', options.livemode ?? false);
  const group = () => randomBase62(5).toUpperCase();
  await api.services.db.insert(licenseKeys).values({
    id,
    storeId: store.id,
    livemode: options.livemode ?? false,
    productId,
    key: `LK-${group()}-${group()}-${group()}-${group()}`,
    createdAt: api.clock.now(),
    revokedAt: options.revokedAt ?? null,
  });
  return id;
}

export async function readLicenseKey(api: TestApi, id: string) {
  const [row] = await api.services.db.select().from(licenseKeys).where(eq(licenseKeys.id, id));
  return row!;
}

export async function readSubscription(api: TestApi, id: string) {
  const [row] = await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, id));
  return row!;
}

/** Attaches a delivery file the way the operator does, straight in the row. */
export async function attachFile(api: TestApi, productId: string, fileUrl: string) {
  await api.services.db.update(products).set({ fileUrl }).where(eq(products.id, productId));
}
