import { eq } from 'drizzle-orm';
import { licenseKeys, orderLines, orders } from '@/db/schema';
import { newId, randomBase62 } from '@/server/ids';
import { generateLicenseKey } from '@/server/payments/license-keys';
import { seedCustomer } from '../portal/factories';
import type { TestApi } from '../support/server';

/**
 * Orders as a payment leaves them, written straight to the tables so that every state (pending,
 * paid, refunded, other environment) can be set up in one call. The money is real to the test
 * gateway: a paid test-mode order's payment is charged on the simulator first, so refunds of it
 * go through the same gateway call as in production.
 */

export { epoch, T0 } from '../support/api';

const APPROVED_CARD = { number: '4242424242424242', expMonth: 12, expYear: 2099, cvc: '123' };

export interface LineInput {
  productId?: string | null;
  priceId?: string | null;
  description?: string;
  quantity?: number;
  unitAmount?: number;
  amountTax?: number;
  taxRate?: number | null;
  taxInclusive?: boolean;
  /** Issue this many license keys for the line (the payment path issues one per licensed line). */
  licenseKeys?: number;
}

export interface OrderInput {
  livemode?: boolean;
  status?: 'pending' | 'paid';
  lines?: LineInput[];
  /** A paid order gets a new customer of this e-mail (null: none); the e-mail must be new to the store. */
  customerEmail?: string | null;
  customerName?: string | null;
}

/** A customer of the store, created now on the test clock. */
export function insertCustomer(api: TestApi, store: { id: string }, options: Parameters<typeof seedCustomer>[2] = {}) {
  return seedCustomer({ db: api.services.db, now: api.clock.now() }, store, options);
}

/** An order with its lines (default: one line of 1999 cents), its customer and license keys. */
export async function insertOrder(api: TestApi, store: { id: string }, input: OrderInput = {}) {
  const livemode = input.livemode ?? false;
  const status = input.status ?? 'paid';
  const now = api.clock.now();
  const lineInputs = input.lines ?? [{}];
  const lines = lineInputs.map((line, position) => {
    const quantity = line.quantity ?? 1;
    const unitAmount = line.unitAmount ?? 1999;
    const amountSubtotal = unitAmount * quantity;
    const amountTax = line.amountTax ?? 0;
    return {
      id: `ol_${randomBase62(24)}`,
      position,
      productId: line.productId ?? null,
      priceId: line.priceId ?? null,
      description: line.description ?? `Item ${position + 1}`,
      quantity,
      unitAmount,
      amountSubtotal,
      amountTax,
      amountTotal: amountSubtotal + amountTax,
      taxRate: line.taxRate ?? null,
      taxInclusive: line.taxInclusive ?? false,
      hasLicense: (line.licenseKeys ?? 0) > 0,
    };
  });
  const sum = (pick: (line: (typeof lines)[number]) => number) => lines.reduce((total, line) => total + pick(line), 0);
  const amountTotal = sum((line) => line.amountTotal);
  const orderId = newId('ord', livemode);

  let gatewayPaymentId: string | null = null;
  if (status === 'paid') {
    if (livemode) {
      gatewayPaymentId = `pi_fixture_${randomBase62(16)}`;
    } else {
      const charge = await api.services.gateways.test.charge({
        idempotencyKey: `charge:${orderId}:1`,
        amount: amountTotal,
        description: 'fixture order',
        card: APPROVED_CARD,
        returnUrl: 'http://127.0.0.1/return',
      });
      if (charge.status !== 'succeeded') throw new Error(`fixture charge ${charge.status}`);
      gatewayPaymentId = charge.paymentId;
    }
  }

  const customer = status === 'paid' && input.customerEmail !== null ? await insertCustomer(api, store, { email: input.customerEmail ?? undefined, name: input.customerName ?? null, livemode }) : null;
  const keys: string[] = [];
  await api.services.db.transaction(async (tx) => {
    await tx.insert(orders).values({
      id: orderId,
      storeId: store.id,
      livemode,
      status,
      customerId: customer?.id ?? null,
      customerEmail: customer?.email ?? input.customerEmail ?? null,
      amountSubtotal: sum((line) => line.amountSubtotal),
      amountTax: sum((line) => line.amountTax),
      amountTotal,
      cardBrand: status === 'paid' ? 'visa' : null,
      cardLast4: status === 'paid' ? '4242' : null,
      gatewayPaymentId,
      createdAt: now,
      paidAt: status === 'paid' ? now : null,
    });
    await tx.insert(orderLines).values(lines.map((line) => ({ ...line, orderId })));
    if (status !== 'paid') return;
    for (const [index, line] of lines.entries()) {
      for (let n = 0; n < (lineInputs[index]!.licenseKeys ?? 0); n++) {
        const key = generateLicenseKey();
        keys.push(key);
        await tx.insert(licenseKeys).values({
          id: newId('lic', livemode),
          storeId: store.id,
          livemode,
          productId: line.productId,
          orderId,
          orderLineId: line.id,
          key,
          createdAt: now,
        });
      }
    }
  });
  return { id: orderId, amountTotal, customer, licenseKeys: keys, lines, gatewayPaymentId };
}

export async function readOrder(api: TestApi, id: string) {
  const [row] = await api.services.db.select().from(orders).where(eq(orders.id, id));
  return row!;
}
