/**
 * The receipt page's read model: where a paid session without success_url lands.
 * The link is signed by server/kit/links.ts; a session id alone is not enough, since ids
 * reach the merchant's success_url. It works for RECEIPT_LINK_DAYS after the payment, on the
 * store's clock; the e-mailed receipt and the portal stay.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { checkoutSessions, licenseKeys, orderLines, orders, stores } from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../../clock';
import type { Config } from '../../config';
import { isCheckoutSessionId } from '../../ids';
import { createHandoff } from '../../kit/hosted-page/handoff';
import { RECEIPT_LINK_DAYS, receiptLinkExpired, receiptSignatureValid } from '../../kit/links';
import { downloadLinks, type DownloadLink } from '../../downloads/service';
import { storeLinkColumns, type StoreLinks } from '../../stores/service';
import { taxLabelOf, type TaxLabel } from '../../kit/hosted-page/tax-label';

export interface HostedReceipt {
  sessionId: string;
  livemode: boolean;
  storeName: string;
  storeLinks: StoreLinks;
  orderId: string;
  customerEmail: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  paidAt: number | null;
  lines: { description: string; quantity: number; unitAmount: number }[];
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  amountRefunded: number;
  tax: TaxLabel;
  /** Unrevoked keys only: a refund in full takes them back. */
  licenseKeys: string[];
  /** Signed links to the files of the lines whose product has one (none once refunded in full). */
  downloads: DownloadLink[];
  successUrl: string | null;
}

export type HostedReceiptResult = { state: 'invalid' } | { state: 'unpaid'; storeName: string; storeLinks: StoreLinks } | { state: 'paid'; receipt: HostedReceipt };

/** The 404 page of a receipt link that does not verify or is past its days. */
export const RECEIPT_LINK_NOTICE = {
  site: 'Receipt',
  title: 'This receipt link is no longer valid',
  paragraphs: [
    `A receipt link works for ${RECEIPT_LINK_DAYS} days after the payment, and only as it was sent.`,
    'Your purchase is unaffected: the receipt we e-mailed you and your payment history link still show it.',
  ],
};

/** What proxy.ts loaded for a GET of the receipt (its CSP names the store's logo), which the page then renders. */
export const hostedReceiptHandoff = createHandoff<HostedReceiptResult>('checkout-receipt');

export async function loadHostedReceipt(
  deps: { db: Database; clock: Clock; config: Pick<Config, 'authSecret' | 'publicBaseUrl' | 'downloadLimit'> },
  params: { id: string; signature: string | undefined },
): Promise<HostedReceiptResult> {
  if (!isCheckoutSessionId(params.id) || !receiptSignatureValid(deps.config, params.id, params.signature)) return { state: 'invalid' };
  const [row] = await deps.db
    .select({ session: checkoutSessions, order: orders, storeName: stores.name, storeLinks: storeLinkColumns, testClockOffsetSeconds: stores.testClockOffsetSeconds })
    .from(checkoutSessions)
    .innerJoin(orders, eq(orders.id, checkoutSessions.orderId))
    .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
    .where(eq(checkoutSessions.id, params.id))
    .limit(1);
  if (!row) return { state: 'invalid' };
  const { session, order } = row;
  if (session.paymentStatus !== 'paid') return { state: 'unpaid', storeName: row.storeName, storeLinks: row.storeLinks };
  const now = storeClock(deps.clock, { livemode: order.livemode, testClockOffsetSeconds: row.testClockOffsetSeconds }).now();
  if (receiptLinkExpired(order.paidAt, now)) return { state: 'invalid' };

  const [lines, keys, downloads] = await Promise.all([
    deps.db
      .select({
        description: orderLines.description,
        quantity: orderLines.quantity,
        unitAmount: orderLines.unitAmount,
        amountTax: orderLines.amountTax,
        taxRate: orderLines.taxRate,
        taxInclusive: orderLines.taxInclusive,
      })
      .from(orderLines)
      .where(eq(orderLines.orderId, order.id))
      .orderBy(asc(orderLines.position)),
    deps.db
      .select({ key: licenseKeys.key })
      .from(licenseKeys)
      .where(and(eq(licenseKeys.orderId, order.id), isNull(licenseKeys.revokedAt)))
      .orderBy(asc(licenseKeys.createdAt), asc(licenseKeys.key)),
    downloadLinks(deps, { livemode: order.livemode, testClockOffsetSeconds: row.testClockOffsetSeconds }, [order]),
  ]);
  return {
    state: 'paid',
    receipt: {
      sessionId: session.id,
      livemode: session.livemode,
      storeName: row.storeName,
      storeLinks: row.storeLinks,
      orderId: order.id,
      customerEmail: order.customerEmail ?? session.customerEmail,
      cardBrand: order.cardBrand,
      cardLast4: order.cardLast4,
      paidAt: order.paidAt ? epochSeconds(order.paidAt) : null,
      lines: lines.map(({ description, quantity, unitAmount }) => ({ description, quantity, unitAmount })),
      amountSubtotal: order.amountSubtotal,
      amountTax: order.amountTax,
      amountTotal: order.amountTotal,
      amountRefunded: order.amountRefunded,
      tax: taxLabelOf(lines, session.taxMode === 'buyer_country' ? { taxCountry: order.taxCountry, treatment: order.taxTreatment } : undefined),
      licenseKeys: keys.map((entry) => entry.key),
      downloads: downloads.get(order.id) ?? [],
      successUrl: session.successUrl,
    },
  };
}
