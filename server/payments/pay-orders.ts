/**
 * The one seam where money that moved becomes a paid order: a checkout session's payment, a
 * subscription's first charge and every renewal all settle through `payOrders`, in the
 * transaction that records the payment (the payment's row locked). It writes the order paid, its
 * license keys, its invoice, its ledger entries, the receipt and `order.paid`, so whatever is paid
 * is documented, accounted, mailed and announced alike, and refunded alike later
 * (server/orders/refunds/).
 */
import type { RateTable } from '../kit/vat-rates';
import { eq, inArray, sql } from 'drizzle-orm';
import { batchRelation, fromBatch } from '@/db/batch';
import type { Transaction } from '@/db/client';
import { licenseKeys, orderLines, orders, stores, subscriptionCharges } from '@/db/schema';
import { recordPaymentEntries } from '../balance/ledger';
import type { FeeRates, LedgerConfig } from '../config';
import { newId } from '../ids';
import { issueOrderInvoices, type IssueDeps } from '../invoices/issue';
import { enqueueEmails, type EmailToWrite } from '../mail/outbox';
import { ordersAsShown } from '../orders/service';
import { recordEvents, type EventTimes, type RecordEventInput } from '../webhooks/events';
import { generateLicenseKey } from './license-keys';

type OrderRow = typeof orders.$inferSelect;
type OrderLineRow = typeof orderLines.$inferSelect;

/** A payment to record on its order. */
export interface OrderPayment {
  /** The order as paid: status `paid`, `paidAt`, the customer, the card and `invoiceId` (newInvoiceId) set; its fee rates are the store's, set here. */
  order: Omit<OrderRow, 'feeBasisPoints' | 'feeFixed'>;
  /**
   * `pending`: a checkout session's order, written with the session and now marked paid;
   * `new`: a subscription charge's, written here with its lines.
   */
  written: 'pending' | 'new';
  lines: readonly OrderLineRow[];
  invoice: { customerName: string | null; subscriptionChargeId: string | null; suppliedFrom: Date; suppliedUntil: Date };
  /** The receipt, naming and attaching `order.invoiceId`; null without an address to send it to. */
  receipt: EmailToWrite | null;
  /** The payment's own events that come after `invoice.issued` and before `order.paid`. */
  events: readonly RecordEventInput[];
  times: EventTimes;
}

/** What paying an order needs besides the invoice's seller: the operator's fee and the payout hold. */
export interface PayOrdersDeps extends IssueDeps {
  config: IssueDeps['config'] & { ledger: LedgerConfig; taxRates: RateTable };
}

/** Each store's fee rates as they stand now (the env's defaults where a store has none), read in one statement. */
async function feeRatesOf(tx: Transaction, defaults: FeeRates, storeIds: readonly string[]): Promise<Map<string, FeeRates>> {
  const rows = await tx
    .select({ id: stores.id, basisPoints: stores.feeBasisPoints, fixed: stores.feeFixed })
    .from(stores)
    .where(inArray(stores.id, [...new Set(storeIds)]));
  return new Map(rows.map((row) => [row.id, { basisPoints: row.basisPoints ?? defaults.basisPoints, fixed: row.fixed ?? defaults.fixed }]));
}

/**
 * Records payments on their orders (and points each subscription charge at its order), set-based (a handful of statements whatever the number of
 * orders, so a billing batch stays cheap). The invoices are numbered after every other row lock
 * of the payments is taken, so a store's sequence is held only until commit; `order.paid` comes
 * last and carries the order as the API reads it, invoice and license keys included.
 */
export async function payOrders(tx: Transaction, deps: PayOrdersDeps, requested: readonly OrderPayment[]): Promise<void> {
  if (requested.length === 0) return;
  // The order keeps the rates it was paid under: its fee can be recomputed whatever the store's rates become.
  const rates = await feeRatesOf(
    tx,
    deps.config.ledger.defaultFees,
    requested.map((payment) => payment.order.storeId),
  );
  const payments = requested.map((payment) => {
    const { basisPoints, fixed } = rates.get(payment.order.storeId)!;
    return { ...payment, order: { ...payment.order, feeBasisPoints: basisPoints, feeFixed: fixed } };
  });
  const created = payments.filter((payment) => payment.written === 'new');
  if (created.length > 0) {
    await tx.insert(orders).values(created.map((payment) => payment.order));
    await tx.insert(orderLines).values(created.flatMap((payment) => payment.lines));
  }
  const charged = payments.flatMap((payment) => (payment.invoice.subscriptionChargeId ? [{ id: payment.invoice.subscriptionChargeId, orderId: payment.order.id }] : []));
  if (charged.length > 0) {
    await tx
      .update(subscriptionCharges)
      .set(fromBatch(subscriptionCharges, 'paid', ['orderId']))
      .from(batchRelation(subscriptionCharges, 'paid', ['id', 'orderId'], charged))
      .where(eq(subscriptionCharges.id, sql`paid.id`));
  }
  for (const { order } of payments.filter((payment) => payment.written === 'pending')) {
    const { status, paidAt, customerId, customerEmail, cardBrand, cardLast4, gatewayPaymentId, invoiceId, feeBasisPoints, feeFixed } = order;
    await tx.update(orders).set({ status, paidAt, customerId, customerEmail, cardBrand, cardLast4, gatewayPaymentId, invoiceId, feeBasisPoints, feeFixed }).where(eq(orders.id, order.id));
  }

  // One key per paid order line of a licensed product, not per unit.
  const keys = payments.flatMap(({ order, lines, times }) =>
    lines
      .filter((line) => line.hasLicense)
      .map((line) => ({
        id: newId('lic', order.livemode),
        storeId: order.storeId,
        livemode: order.livemode,
        productId: line.productId,
        orderId: order.id,
        orderLineId: line.id,
        key: generateLicenseKey(),
        createdAt: times.now,
      })),
  );
  if (keys.length > 0) await tx.insert(licenseKeys).values(keys);

  await enqueueEmails(
    tx,
    payments.flatMap((payment) => (payment.receipt ? [payment.receipt] : [])),
  );
  const invoices = await issueOrderInvoices(
    tx,
    deps,
    payments.map(({ order, lines, invoice, times }) => ({ order, lines, ...invoice, times })),
  );
  await recordPaymentEntries(
    tx,
    payments.map(({ order, times }, index) => ({ order, invoice: invoices[index]!, rates: { basisPoints: order.feeBasisPoints, fixed: order.feeFixed }, now: times.now })),
    deps.config.ledger.payoutHoldDays,
  );
  await recordEvents(
    tx,
    payments.flatMap((payment) => payment.events),
  );
  const shown = await ordersAsShown(
    tx,
    payments.map((payment) => payment.order),
  );
  await recordEvents(
    tx,
    payments.map(({ order, times }, index) => ({ storeId: order.storeId, livemode: order.livemode, type: 'order.paid' as const, object: shown[index]!, ...times })),
  );
}
