import { sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { batchColumns, fromBatch, jsonRecordset } from '@/db/batch';
import { preparedPerShape, type Executor } from '@/db/client';
import { checkoutSessions, orderLines, orders } from '@/db/schema';
import { claimKey, insertSelected, rowIfClaimed } from '../kit/idempotency';

const placeholder = sql.placeholder;

/** The columns of the order's lines that the session's statement writes from its `lines` parameter. */
export const LINE_FIELDS = [
  'id',
  'position',
  'productId',
  'priceId',
  'description',
  'quantity',
  'unitAmount',
  'amountDiscount',
  'amountSubtotal',
  'amountTax',
  'amountTotal',
  'taxRate',
  'taxInclusive',
  'taxCategory',
  'hasLicense',
] as const;

/**
 * The order, its lines and the session as one statement (data-modifying CTEs): atomic without a
 * transaction of its own, and one round trip. The lines arrive as one JSON parameter, so one
 * statement serves any number of them. With an `Idempotency-Key` (`keyed` 1) the statement claims
 * the key first and writes the rows only when it did (claimKey, rowIfClaimed). Every value is a
 * placeholder, so the statement is prepared once per executor; createCheckoutSession fills it.
 */
function prepareSessionInsert(executor: Executor, keyed: number) {
  const claimed = keyed === 1 ? claimKey(executor) : undefined;
  const order: PgInsertValue<typeof orders> = {
    id: placeholder('orderId'),
    storeId: placeholder('storeId'),
    livemode: placeholder('livemode'),
    status: 'pending',
    customerEmail: placeholder('customerEmail'),
    amountDiscount: placeholder('amountDiscount'),
    discount: placeholder('discount'),
    amountSubtotal: placeholder('amountSubtotal'),
    amountTax: placeholder('amountTax'),
    amountTotal: placeholder('amountTotal'),
    createdAt: placeholder('createdAt'),
  };
  const session: PgInsertValue<typeof checkoutSessions> = {
    id: placeholder('sessionId'),
    storeId: placeholder('storeId'),
    livemode: placeholder('livemode'),
    status: 'open',
    paymentStatus: 'unpaid',
    clientSecretHash: placeholder('clientSecretHash'),
    orderId: placeholder('orderId'),
    mode: placeholder('mode'),
    quantity: placeholder('quantity'),
    priceId: placeholder('priceId'),
    productId: placeholder('productId'),
    description: placeholder('description'),
    amountSubtotal: placeholder('amountSubtotal'),
    amountTax: placeholder('amountTax'),
    amountTotal: placeholder('amountTotal'),
    customerEmail: placeholder('customerEmail'),
    successUrl: placeholder('successUrl'),
    cancelUrl: placeholder('cancelUrl'),
    metadata: placeholder('metadata'),
    createdAt: placeholder('createdAt'),
    expiresAt: placeholder('expiresAt'),
    taxMode: placeholder('taxMode'),
    discount: placeholder('discount'),
    allowPromotionCodes: placeholder('allowPromotionCodes'),
  };
  const newOrder = executor.$with('new_order').as(
    executor
      .insert(orders)
      .select(rowIfClaimed(claimed, orders, order))
      .returning({ id: orders.id }),
  );
  const lineRows = jsonRecordset(placeholder('lines'), 'line', batchColumns(orderLines, LINE_FIELDS));
  const newLines = insertSelected(
    executor,
    'new_lines',
    orderLines,
    { ...fromBatch(orderLines, 'line', LINE_FIELDS), orderId: placeholder('orderId') },
    claimed === undefined ? sql`from ${lineRows}` : sql`from ${claimed}, ${lineRows}`,
  );
  return executor
    .with(...(claimed === undefined ? [newOrder, newLines] : [claimed, newOrder, newLines]))
    .insert(checkoutSessions)
    .select(rowIfClaimed(claimed, checkoutSessions, session))
    .returning()
    .prepare(claimed === undefined ? 'checkout_session_insert' : 'checkout_session_insert_keyed');
}

export const sessionInsert = preparedPerShape(prepareSessionInsert);
