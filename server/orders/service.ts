import { paidBuyerTaxView } from '../vat/views';
import { and, asc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { licenseKeys, orderLines, orders, products, refunds, withdrawals } from '@/db/schema';
import { epochSeconds } from '../clock';
import { discountView } from '../kit/discount-schemas';
import { resourceMissing } from '../errors';
import { refundView } from './refunds/view';
import { withdrawalWaiverView } from '../invoices/withdrawal-waiver';
import { withdrawalView, type WithdrawalRow } from './withdrawals/view';
import type { ListOrdersQuery, Order, OrderLine, OrderList, OrderListFilters } from './schemas';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';

type OrderRow = typeof orders.$inferSelect;
/** A line with whether its product has a file (a line whose file was downloaded had one). */
type OrderLineRow = typeof orderLines.$inferSelect & { hasFile: boolean };
type RefundRow = typeof refunds.$inferSelect;

export function orderLineView(row: OrderLineRow): OrderLine {
  return {
    object: 'order_line',
    product_id: row.productId,
    price_id: row.priceId,
    description: row.description,
    quantity: row.quantity,
    unit_amount: row.unitAmount,
    amount_discount: row.amountDiscount,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    tax_rate: row.taxRate,
    tax_inclusive: row.taxInclusive,
    ...(row.hasFile || row.downloadCount > 0 ? { download_count: row.downloadCount } : {}),
  };
}

/** The API shape of an order and what hangs off it. */
export function orderView(row: OrderRow, related: { lines: OrderLineRow[]; refunds: RefundRow[]; licenseKeys: string[]; withdrawal: WithdrawalRow | undefined }): Order {
  return {
    id: row.id,
    object: 'order',
    livemode: row.livemode,
    status: row.status,
    currency: 'eur',
    discount: row.discount === null ? null : discountView(row.discount),
    amount_discount: row.amountDiscount,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    amount_refunded: row.amountRefunded,
    customer_id: row.customerId,
    customer_email: row.customerEmail,
    lines: related.lines.map(orderLineView),
    refunds: related.refunds.map(refundView),
    license_keys: related.licenseKeys,
    invoice_id: row.invoiceId,
    withdrawal_waiver: withdrawalWaiverView(row),
    withdrawal: withdrawalView(related.withdrawal),
    billing_reason: row.billingReason,
    subscription_id: row.subscriptionId,
    dispute_id: row.disputeId,
    ...paidBuyerTaxView(row, row.buyerVatId),
    created: epochSeconds(row.createdAt),
    paid_at: row.paidAt === null ? null : epochSeconds(row.paidAt),
  };
}

/**
 * The API objects of some orders of one scope: their lines, refunds and keys are read with one
 * query per table, each still scoped, whatever the number of orders.
 */
async function orderViews(db: Executor, scope: Scope, rows: OrderRow[]): Promise<Order[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [lines, refundRows, keys, withdrawalRows] = await Promise.all([
    db
      .select({ ...getTableColumns(orderLines), hasFile: sql<boolean>`${products.fileUrl} is not null` })
      .from(orderLines)
      .leftJoin(products, eq(products.id, orderLines.productId))
      .where(inArray(orderLines.orderId, ids))
      .orderBy(asc(orderLines.position)),
    db
      .select()
      .from(refunds)
      .where(and(inArray(refunds.orderId, ids), ownedBy(refunds, scope)))
      .orderBy(asc(refunds.createdAt), asc(refunds.id)),
    db
      .select({ orderId: licenseKeys.orderId, key: licenseKeys.key })
      .from(licenseKeys)
      .leftJoin(orderLines, eq(orderLines.id, licenseKeys.orderLineId))
      .where(and(inArray(licenseKeys.orderId, ids), ownedBy(licenseKeys, scope)))
      // Line order, then issue order within a line; the key itself breaks ties so reads are stable.
      .orderBy(sql`${orderLines.position} asc nulls last`, asc(licenseKeys.createdAt), asc(licenseKeys.key)),
    db
      .select()
      .from(withdrawals)
      .where(and(inArray(withdrawals.orderId, ids), ownedBy(withdrawals, scope))),
  ]);
  const of = <Row extends { orderId: string | null }>(list: Row[], id: string) => list.filter((row) => row.orderId === id);
  return rows.map((row) =>
    orderView(row, {
      lines: of(lines, row.id),
      refunds: of(refundRows, row.id),
      licenseKeys: of(keys, row.id).map((k) => k.key),
      withdrawal: withdrawalRows.find((withdrawal) => withdrawal.orderId === row.id),
    }),
  );
}

/** GET /orders/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getOrder(db: Executor, subject: Scope, id: string): Promise<Order> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, id), ownedBy(orders, subject)))
    .limit(1);
  if (!row) throw resourceMissing('order', id);
  const [order] = await orderViews(db, subject, [row]);
  return order!;
}

/** The API objects of orders of any stores, in the order given: one set of queries per store and environment among them. */
export async function ordersAsShown(db: Executor, rows: readonly OrderRow[]): Promise<Order[]> {
  const byScope = new Map<string, OrderRow[]>();
  for (const row of rows) {
    const key = `${row.storeId}:${row.livemode}`;
    byScope.set(key, [...(byScope.get(key) ?? []), row]);
  }
  const views = new Map<string, Order>();
  for (const group of byScope.values()) {
    for (const view of await orderViews(db, { storeId: group[0]!.storeId, livemode: group[0]!.livemode }, group)) views.set(view.id, view);
  }
  return rows.map((row) => views.get(row.id)!);
}

/** The order list's filters (the page fields aside). */
export function orderListConditions(filters: OrderListFilters) {
  return {
    where: [
      filters.status === undefined ? undefined : eq(orders.status, filters.status),
      filters.customer_id === undefined ? undefined : eq(orders.customerId, filters.customer_id),
      filters.customer_email === undefined ? undefined : sql`lower(${orders.customerEmail}) = ${filters.customer_email}`,
      filters.billing_reason === undefined ? undefined : eq(orders.billingReason, filters.billing_reason),
      filters.subscription_id === undefined ? undefined : eq(orders.subscriptionId, filters.subscription_id),
      ...createdWithin(orders.createdAt, filters),
    ],
  };
}

/** GET /orders: newest first, filtered; each page's related rows in one query per table. */
export async function listOrders(db: Executor, scope: Scope, query: ListOrdersQuery): Promise<OrderList> {
  const { rows, hasMore } = await listPage(db, orders, { scope, page: query, kind: 'order', ...orderListConditions(query) });
  return listEnvelope('/api/v1/orders', scope, await orderViews(db, scope, rows), hasMore);
}
