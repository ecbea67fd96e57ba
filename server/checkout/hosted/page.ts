/**
 * The read model of the hosted checkout page: what a customer holding a
 * signed link may see. The page and its form handler call this; neither touches the database.
 */
import { asc, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { checkoutSessions, orderLines, stores, type CheckoutStatus, type PaymentStatus } from '@/db/schema';
import { epochSeconds, storeClock } from '../../clock';
import type { Config } from '../../config';
import type { Gateways } from '../../gateway/types';
import { isCheckoutSessionId } from '../../ids';
import { createHandoff } from '../../kit/hosted-page/handoff';
import { hashSource, originOf, type HostedPagePolicy } from '../../kit/hosted-page/headers';
import type { HostedLinkParams, HostedPageDeps } from '../../kit/hosted-page/request';
import { checkLink, signedLink, signingSecret } from '../../kit/links';
import { orderHasDigitalProduct } from '../../orders/withdrawals/service';
import { storeLinkColumns, type StoreLinks } from '../../stores/service';
import { taxLabelOf, type TaxLabel } from '../../kit/hosted-page/tax-label';
import { formatEur } from '../../kit/hosted-page/amounts';
import { billingFormFrom, vatIdUnconfirmedOf } from '../../vat/billing';
import { summaryTexts, type HostedBuyer, type PageTexts } from './billing';
import type { SummaryDiscount } from '../../kit/hosted-page/discount';
import { PAYMENT_FORM_SCRIPT } from './payment-form-script';

export interface HostedLine {
  description: string;
  quantity: number;
  /** Cents, as priced when the session was created. */
  unitAmount: number;
  amountTotal: number;
}

export interface HostedCheckoutView {
  id: string;
  livemode: boolean;
  storeName: string;
  storeLinks: StoreLinks;
  /** When the page was read, on the store's clock (epoch seconds): what has expired is judged by it. */
  readAt: number;
  status: CheckoutStatus;
  paymentStatus: PaymentStatus;
  failureCode: string | null;
  orderId: string;
  lines: HostedLine[];
  /** The session's discount as the summary shows it; null without one. */
  discount: SummaryDiscount | null;
  /** The page offers a promotion code field (none while a code is applied). */
  allowPromotionCodes: boolean;
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  /** The VAT rates charged and whether the prices contain the tax (rather than have it added on top). */
  tax: TaxLabel;
  /** A digital product is sold: the page offers the waiver of the right of withdrawal. */
  hasDigitalProduct: boolean;
  /** When set, the page asks for no email. */
  customerEmail: string | null;
  /** Only where the store taxes by the buyer's country: the page asks for the billing details. */
  buyer?: HostedBuyer;
  successUrl: string | null;
  cancelUrl: string | null;
  expiresAt: number;
}

/**
 * What a hosted link resolves to. `invalid` covers a tampered signature, expiry or id and an
 * unknown session alike, so the answer never tells whether an id exists.
 */
export type HostedCheckout =
  | { state: 'invalid' }
  | { state: 'expired'; storeName: string; storeLinks: StoreLinks; cancelUrl: string | null }
  | { state: 'open' | 'failed' | 'complete'; view: HostedCheckoutView };

async function findSession(db: Database, id: string) {
  const [row] = await db
    .select({ session: checkoutSessions, storeName: stores.name, storeLinks: storeLinkColumns, testClockOffsetSeconds: stores.testClockOffsetSeconds })
    .from(checkoutSessions)
    .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
    .where(eq(checkoutSessions.id, id))
    .limit(1);
  return row;
}

/** What proxy.ts loaded for a GET of the page, which the page then renders. */
export const hostedCheckoutHandoff = createHandoff<HostedCheckout>('checkout');

/** Verifies the signed link against the store's clock, then reads the session for the page. */
export async function loadHostedCheckout(deps: HostedPageDeps & { config: Pick<Config, 'operator'> }, params: HostedLinkParams): Promise<HostedCheckout> {
  if (!isCheckoutSessionId(params.id)) return { state: 'invalid' };
  const row = await findSession(deps.db, params.id);
  if (!row) return { state: 'invalid' };
  const { session } = row;
  const now = epochSeconds(storeClock(deps.clock, { livemode: session.livemode, testClockOffsetSeconds: row.testClockOffsetSeconds }).now());
  const link = checkLink(signingSecret(deps.config), 'checkout', session.id, params.expires, params.signature, now);
  if (link === 'invalid') return { state: 'invalid' };

  // A paid session stays viewable (with its receipt) after the link's deadline: the customer
  // holding it has paid and should see so, not "expired".
  if (session.status !== 'complete' && (link === 'expired' || session.status === 'expired' || epochSeconds(session.expiresAt) <= now)) {
    return { state: 'expired', storeName: row.storeName, storeLinks: row.storeLinks, cancelUrl: session.cancelUrl };
  }

  const [lines, hasDigitalProduct] = await Promise.all([
    deps.db
      .select({
        description: orderLines.description,
        quantity: orderLines.quantity,
        unitAmount: orderLines.unitAmount,
        amountTotal: orderLines.amountTotal,
        amountDiscount: orderLines.amountDiscount,
        taxInclusive: orderLines.taxInclusive,
        amountTax: orderLines.amountTax,
        taxRate: orderLines.taxRate,
      })
      .from(orderLines)
      .where(eq(orderLines.orderId, session.orderId))
      .orderBy(asc(orderLines.position)),
    orderHasDigitalProduct(deps.db, session.orderId),
  ]);

  const byBuyer = session.taxMode === 'buyer_country';
  const view: HostedCheckoutView = {
    id: session.id,
    livemode: session.livemode,
    storeName: row.storeName,
    storeLinks: row.storeLinks,
    readAt: now,
    status: session.status,
    paymentStatus: session.paymentStatus,
    failureCode: session.failureCode,
    orderId: session.orderId,
    lines: lines.map(({ description, quantity, unitAmount, amountTotal }) => ({ description, quantity, unitAmount, amountTotal })),
    // A typed code can be removed again; a discount the checkout was created with cannot.
    discount:
      session.discount === null
        ? null
        : { label: session.discount.label, amount: lines.reduce((sum, line) => sum + line.amountDiscount, 0), removable: session.allowPromotionCodes },
    allowPromotionCodes: session.allowPromotionCodes,
    amountSubtotal: session.amountSubtotal,
    amountTax: session.amountTax,
    amountTotal: session.amountTotal,
    tax: taxLabelOf(lines, byBuyer ? { taxCountry: session.taxCountry, treatment: session.taxTreatment } : undefined),
    hasDigitalProduct,
    customerEmail: session.customerEmail,
    ...(byBuyer ? { buyer: { form: billingFormFrom(session.customerDetails), vatIdUnconfirmed: vatIdUnconfirmedOf(deps.config.operator.vatId, session.customerDetails, session.taxTreatment) } } : {}),
    successUrl: session.successUrl,
    cancelUrl: session.cancelUrl,
    expiresAt: epochSeconds(session.expiresAt),
  };
  if (session.status === 'complete') return { state: 'complete', view };
  if (session.paymentStatus === 'failed') return { state: 'failed', view };
  return { state: 'open', view };
}

/** The texts of an open checkout's page that change with the billing details. */
export function checkoutPageTexts(view: HostedCheckoutView): PageTexts {
  const amount = formatEur(view.amountTotal);
  return { title: `Pay ${amount} to ${view.storeName}`, heading: amount, ...summaryTexts(view), pay: `Pay ${amount}` };
}

/**
 * The session's hosted page again, signed as the API's `url` is (until the session's deadline),
 * for a customer who comes back without that link: the 3-D Secure return.
 */
export async function hostedCheckoutUrl(deps: { db: Database; config: Pick<Config, 'authSecret' | 'publicBaseUrl'> }, id: string, extra: Record<string, string> = {}): Promise<string | undefined> {
  if (!isCheckoutSessionId(id)) return undefined;
  const [row] = await deps.db.select({ expiresAt: checkoutSessions.expiresAt }).from(checkoutSessions).where(eq(checkoutSessions.id, id)).limit(1);
  if (!row) return undefined;
  const url = new URL(signedLink(deps.config.publicBaseUrl, signingSecret(deps.config), 'checkout', id, epochSeconds(row.expiresAt)));
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Origins a hosted page's form may end up at: the form posts to the service itself, and the 303
 * continues to the merchant's success_url on approval, or in live mode to the gateway's 3-D
 * Secure challenge; browsers check both against `form-action` as part of the same navigation.
 */
function hostedFormTargets(view: { successUrl: string | null; livemode: boolean }, gateways: Gateways): string[] {
  const challenges = gateways[view.livemode ? 'live' : 'test'].challengeOrigins;
  return [...originOf(view.successUrl), ...challenges];
}

const PAYMENT_FORM_SCRIPT_SOURCE = hashSource(PAYMENT_FORM_SCRIPT);

/**
 * What a hosted checkout or subscription page (or its receipt) may use beyond the strict policy
 * (proxy.ts): the store's logo; and while it takes a payment (`payable`: its view), where its
 * form may lead and its one script (server/checkout/hosted/payment-form.browser.ts).
 */
export function hostedPagePolicy(gateways: Gateways, storeLinks: StoreLinks, payable?: { successUrl: string | null; livemode: boolean }): HostedPagePolicy {
  const images = originOf(storeLinks.logoUrl);
  if (!payable) return { images };
  return { images, formTargets: hostedFormTargets(payable, gateways), scripts: [PAYMENT_FORM_SCRIPT_SOURCE] };
}
