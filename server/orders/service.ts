import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { licenseKeys, orderLines, orders, refunds } from '@/db/schema';
import { epochSeconds } from '../clock';
import { resourceMissing } from '../errors';
import { refundView } from '../refunds/view';
import type { Order, OrderLine } from './schemas';
import { ownedBy, type Scope } from '../kit/scope';

type OrderRow = typeof orders.$inferSelect;
type OrderLineRow = typeof orderLines.$inferSelect;
type RefundRow = typeof refunds.$inferSelect;

export function orderLineView(row: OrderLineRow): OrderLine {
  return {
    object: 'order_line',
    product_id: row.productId,
    price_id: row.priceId,
    description: row.description,
    quantity: row.quantity,
    unit_amount: row.unitAmount,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    tax_rate: row.taxRate,
    tax_inclusive: row.taxInclusive,
  };
}

/** The API shape of an order and what hangs off it. */
export function orderView(row: OrderRow, related: { lines: OrderLineRow[]; refunds: RefundRow[]; licenseKeys: string[] }): Order {
  return {
    id: row.id,
    object: 'order',
    livemode: row.livemode,
    status: row.status,
    currency: 'eur',
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    amount_refunded: row.amountRefunded,
    customer_id: row.customerId,
    customer_email: row.customerEmail,
    lines: related.lines.map(orderLineView),
    refunds: related.refunds.map(refundView),
    license_keys: related.licenseKeys,
    created: epochSeconds(row.createdAt),
    paid_at: row.paidAt === null ? null : epochSeconds(row.paidAt),
  };
}

/**
 * GET /orders/{id}: unknown, foreign and other-environment ids answer alike. The order is found
 * first (scoped); its lines, refunds and keys are then read together, each still scoped.
 */
export async function getOrder(db: Executor, subject: Scope, id: string): Promise<Order> {
  const [row] = await db.select().from(orders).where(and(eq(orders.id, id), ownedBy(orders, subject))).limit(1);
  if (!row) throw resourceMissing('order', id);
  const [lines, refundRows, keys] = await Promise.all([
    db.select().from(orderLines).where(eq(orderLines.orderId, row.id)).orderBy(asc(orderLines.position)),
    db
      .select()
      .from(refunds)
      .where(and(eq(refunds.orderId, row.id), ownedBy(refunds, subject)))
      .orderBy(asc(refunds.createdAt), asc(refunds.id)),
    db
      .select({ key: licenseKeys.key })
      .from(licenseKeys)
      .leftJoin(orderLines, eq(orderLines.id, licenseKeys.orderLineId))
      .where(and(eq(licenseKeys.orderId, row.id), ownedBy(licenseKeys, subject)))
      // Line order, then issue order within a line; the key itself breaks ties so reads are stable.
      .orderBy(sql`${orderLines.position} asc nulls last`, asc(licenseKeys.createdAt), asc(licenseKeys.key)),
  ]);
  return orderView(row, { lines, refunds: refundRows, licenseKeys: keys.map((k) => k.key) });
}
