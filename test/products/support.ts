import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { licenseKeys, products, subscriptions, type SubscriptionStatus } from '@/db/schema';
import { newId, randomBase62 } from '@/server/ids';
import { expectApiError, rawRequest } from '../http/helpers';
import { uniqueSku } from '../support/factories';
import type { TestApi } from '../support/server';

export const PRODUCTS = '/api/v1/products';

/** A fixed, whole-second instant, so `created`/`updated` can be asserted exactly. */
export const T0 = new Date('2026-03-01T12:00:00.000Z');
export const epoch = (date: Date) => Math.floor(date.getTime() / 1000);

/** POST /products with a valid body (overridable) and a fresh sku; fails the test unless 201. */
export async function createProduct(api: TestApi, key: string, body: Record<string, unknown> = {}) {
  const response = await api.request('POST', PRODUCTS, { key, body: { name: 'Ebook', amount: 1999, sku: uniqueSku(), ...body } });
  expect(response.status).toBe(201);
  return response.body;
}

/** The error envelope of spec 7, with the field it blames (or none). */
export function expectError(response: { status: number; body: any; headers: Headers }, status: number, code: string, param?: string) {
  expectApiError(response, status, code);
  expect(response.body.error.param).toBe(param);
}

/**
 * Spec 5: an id of another store, of the other environment, and an unknown id all answer 404
 * `resource_missing`, byte for byte (the request id is a header, not in the body).
 */
export function expectIdenticalMissing(responses: { status: number; body: any; headers: Headers; text: string }[], param: string) {
  for (const response of responses) expectError(response, 404, 'resource_missing', param);
  for (const response of responses.slice(1)) expect(response.text).toBe(responses[0]!.text);
}

/** A request whose raw text is kept, for byte-identical comparisons. */
export function rawApiRequest(api: TestApi, method: string, path: string, key: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return rawRequest(api.baseUrl, method, path, { headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
}

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
