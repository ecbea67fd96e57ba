import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { checkoutSessions, orderLines, orders, products, simulatorCharges } from '@/db/schema';
import { OPERATOR } from '@/server/audit/service';
import type { Subject } from '@/server/auth/service';
import { clientSecretFor, clientSecretHash } from '@/server/kit/links';
import { loadConfig, type Config } from '@/server/config';
import { ApiError } from '@/server/errors';
import { createGateways } from '@/server/gateway';
import type { Gateways } from '@/server/gateway/types';
import { newId } from '@/server/ids';
import type { PaymentDeps } from '@/server/payments/service';
import { createProduct } from '@/server/products/service';
import { createTestDatabase } from '../support/database';
import { createStore } from '../support/factories';
import { createTestClock, type TestClock } from '../support/server';

/** A fixed whole-second start, so timestamps can be asserted exactly. */
export const T0 = new Date('2026-06-01T10:00:00.000Z');
export const PUBLIC_BASE_URL = 'https://pay.example.test';

export const CARDS = {
  approved: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  declineRecurring: '4000 0000 0000 0341',
  declineFirstRecurring: '4000 0000 0000 3063',
  /** Luhn-valid, not a test card. */
  unsupported: '5555 5555 5555 4444',
} as const;

export const validCard = (number: string = CARDS.approved) => ({ number, expiry: '12/30', cvc: '123' });

export interface PaymentFixture extends PaymentDeps {
  clock: TestClock;
  gateways: Gateways;
  config: Config;
  database: DatabaseHandle;
}

/**
 * For a test file: a fresh database, a test clock at T0 and the real gateways, wired as
 * createServices() does, without HTTP: the payment service is what the hosted page calls.
 */
export function usePayments(): PaymentFixture {
  const fixture = {} as PaymentFixture;
  let close = async () => {};
  beforeAll(async () => {
    const database = await createTestDatabase();
    const clock = createTestClock(T0);
    const config: Config = { ...loadConfig({}), databaseUrl: database.url, authSecret: 'test-auth-secret', publicBaseUrl: PUBLIC_BASE_URL };
    Object.assign(fixture, { db: database.db, clock, config, database, gateways: createGateways({ db: database.db, clock, config }) });
    close = () => database.close();
  }, 60_000);
  afterAll(() => close(), 60_000);
  return fixture;
}

export interface LineSpec {
  description?: string;
  quantity?: number;
  unitAmount?: number;
  hasLicense?: boolean;
  productId?: string | null;
}

export interface SessionSpec {
  livemode?: boolean;
  customerEmail?: string | null;
  successUrl?: string | null;
  lines?: LineSpec[];
  expiresInSeconds?: number;
}

/**
 * A payable session with its pending order and lines, written as POST /checkout/sessions writes
 * them (one transaction). The payment flow is tested on its own; the sessions API has its tests.
 */
export async function insertSession(fx: Pick<PaymentFixture, 'db' | 'clock'>, store: { id: string }, spec: SessionSpec = {}) {
  const livemode = spec.livemode ?? false;
  const now = fx.clock.now();
  const lines = (spec.lines ?? [{}]).map((line, position) => {
    const quantity = line.quantity ?? 1;
    const unitAmount = line.unitAmount ?? 1999;
    return {
      id: `ol_${newId('ord', livemode).slice(4)}`,
      position,
      productId: line.productId ?? null,
      priceId: null,
      description: line.description ?? `Item ${position + 1}`,
      quantity,
      unitAmount,
      amountSubtotal: unitAmount * quantity,
      amountTax: 0,
      amountTotal: unitAmount * quantity,
      taxRate: null,
      taxInclusive: false,
      hasLicense: line.hasLicense ?? false,
    };
  });
  const total = lines.reduce((sum, line) => sum + line.amountTotal, 0);
  const orderId = newId('ord', livemode);
  const sessionId = newId('cs', livemode);
  const customerEmail = spec.customerEmail === undefined ? 'buyer@example.com' : spec.customerEmail;
  await fx.db.transaction(async (tx) => {
    await tx.insert(orders).values({
      id: orderId,
      storeId: store.id,
      livemode,
      status: 'pending',
      customerEmail,
      amountSubtotal: total,
      amountTax: 0,
      amountTotal: total,
      createdAt: now,
    });
    await tx.insert(orderLines).values(lines.map((line) => ({ ...line, orderId })));
    await tx.insert(checkoutSessions).values({
      id: sessionId,
      storeId: store.id,
      livemode,
      status: 'open',
      paymentStatus: 'unpaid',
      clientSecretHash: clientSecretHash(clientSecretFor('test-auth-secret', sessionId)),
      orderId,
      mode: 'line_items',
      quantity: 1,
      amountSubtotal: total,
      amountTax: 0,
      amountTotal: total,
      customerEmail,
      successUrl: spec.successUrl === undefined ? null : spec.successUrl,
      metadata: {},
      createdAt: now,
      expiresAt: new Date(now.getTime() + (spec.expiresInSeconds ?? 24 * 3600) * 1000),
    });
  });
  return { sessionId, orderId, lineIds: lines.map((line) => line.id), total };
}

/** A product of `store` in test mode, with a license when asked (the operator's attach-license). */
export async function insertProduct(fx: Pick<PaymentFixture, 'db' | 'clock'>, store: { id: string; name: string }, options: { hasLicense?: boolean; livemode?: boolean } = {}) {
  const subject = { storeId: store.id, storeName: store.name, livemode: options.livemode ?? false, testClockOffsetSeconds: 0 } as Subject;
  const product = await createProduct({ db: fx.db, clock: fx.clock, wallClock: fx.clock, maxProductsPerStore: 10_000, actor: OPERATOR }, subject, { name: 'Ebook', amount: 1999 });
  if (options.hasLicense) await fx.db.update(products).set({ hasLicense: true }).where(eq(products.id, product.id));
  return product.id;
}

export async function newStore(fx: Pick<PaymentFixture, 'db'>) {
  return createStore(fx);
}

/** Rows of the simulator's ledger for a session: what the "bank" really charged. */
export async function chargesOf(fx: Pick<PaymentFixture, 'db'>, sessionId: string) {
  const rows = await fx.db.select().from(simulatorCharges);
  return rows.filter((row) => row.idempotencyKey.startsWith(`charge:${sessionId}:`));
}

/** The ApiError a payment call must fail with: code, HTTP status, and the field or Retry-After when given. */
export async function expectPaymentError(promise: Promise<unknown>, code: string, status: number, extra: { param?: string; retryAfter?: number } = {}) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected ApiError ${code}, got ${error === undefined ? 'success' : String(error)}`);
  expect({ code: error.code, status: error.status, param: error.param, retryAfter: error.retryAfter }).toEqual({
    code,
    status,
    param: extra.param,
    retryAfter: extra.retryAfter,
  });
  return error;
}
