/** The API shape of a checkout session, for the service, its events and payments. */
import type { checkoutSessions } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { Config } from '../config';
import { signedLink, signingSecret } from '../kit/links';
import type { CheckoutSession } from './schemas';
import { buyerTaxView } from '../vat/views';

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

/**
 * The API shape of a session: `url` only while open, `client_secret` only for creation
 * and its replay (which pass it in: it is derived, never stored).
 */
export function checkoutSessionView(row: CheckoutSessionRow, deps: { config: Pick<Config, 'publicBaseUrl' | 'authSecret'> }, options: { clientSecret?: string } = {}): CheckoutSession {
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
