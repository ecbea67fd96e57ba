/** The API shape of a checkout session, for the service, its events and payments. */
import { inArray } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { orders, type checkoutSessions } from '@/db/schema';
import { discountView } from '../kit/discount-schemas';
import { epochSeconds } from '../clock';
import type { Config } from '../config';
import { signedLink, signingSecret } from '../kit/links';
import type { CheckoutSession } from './schemas';
import { buyerTaxView } from '../vat/views';

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

/** A session with its discount's amount, which lives on its order (read only for a session that has a discount). */
export type SessionAsShown = CheckoutSessionRow & { amountDiscount: number };

/** The sessions with their orders' `amount_discount`: one query, and none when no session has a discount. */
export async function withAmountDiscounts(executor: Executor, rows: readonly CheckoutSessionRow[]): Promise<SessionAsShown[]> {
  const discounted = rows.filter((row) => row.discount !== null).map((row) => row.orderId);
  const amounts =
    discounted.length === 0
      ? new Map<string, number>()
      : new Map((await executor.select({ id: orders.id, amountDiscount: orders.amountDiscount }).from(orders).where(inArray(orders.id, discounted))).map((order) => [order.id, order.amountDiscount]));
  // The row has no such field: named first, as a leading spread is slow.
  return rows.map((row) => ({ amountDiscount: amounts.get(row.orderId) ?? 0, ...row }));
}

/** One session with its discount's amount (withAmountDiscounts). */
export async function withAmountDiscount(executor: Executor, row: CheckoutSessionRow): Promise<SessionAsShown> {
  const [shown] = await withAmountDiscounts(executor, [row]);
  return shown!;
}

/**
 * The API shape of a session: `url` only while open, `client_secret` only for creation
 * and its replay (which pass it in: it is derived, never stored).
 */
export function checkoutSessionView(row: SessionAsShown, deps: { config: Pick<Config, 'publicBaseUrl' | 'authSecret'> }, options: { clientSecret?: string } = {}): CheckoutSession {
  const secret = signingSecret(deps.config);
  const expiresAt = epochSeconds(row.expiresAt);
  return {
    id: row.id,
    object: 'checkout.session',
    url: row.status === 'open' ? signedLink(deps.config.publicBaseUrl, secret, 'checkout', row.id, expiresAt) : null,
    client_secret: options.clientSecret ?? null,
    status: row.status,
    payment_status: row.paymentStatus,
    livemode: row.livemode,
    currency: 'eur',
    allow_promotion_codes: row.allowPromotionCodes,
    discount: row.discount === null ? null : discountView(row.discount),
    amount_discount: row.amountDiscount,
    amount_subtotal: row.amountSubtotal,
    amount_tax: row.amountTax,
    amount_total: row.amountTotal,
    quantity: row.quantity,
    price_id: row.priceId,
    product_id: row.productId,
    description: row.description,
    order_id: row.orderId,
    customer_email: row.customerEmail,
    success_url: row.successUrl,
    cancel_url: row.cancelUrl,
    metadata: row.metadata,
    ...buyerTaxView(row),
    created: epochSeconds(row.createdAt),
    expires_at: expiresAt,
  };
}
