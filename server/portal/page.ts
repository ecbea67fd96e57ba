/**
 * The read model of the customer portal page: what the holder of
 * a portal link may see. proxy.ts and the page call this; neither touches the database.
 *
 * Every request goes to the database: the token's hash is looked up by its unique index and the
 * session's state is judged in the same statement, so an expired or revoked link stops resolving
 * on the very next request (nothing is cached, and the page is sent with `no-store`). The index
 * compares SHA-256 digests, never the token, so how long a lookup takes tells nothing about it.
 */
import { and, asc, desc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import {
  licenseKeys,
  orderLines,
  orders,
  portalSessions,
  refunds,
  stores,
  subscriptionCharges,
  subscriptions,
  type OrderStatus,
  type PortalScope,
  type PriceInterval,
  type RefundStatus,
  type SubscriptionChargeStatus,
  type SubscriptionStatus,
} from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { downloadLinks, type DownloadLink } from '../downloads/service';
import { taxLabelOf, type TaxLabel } from '../kit/hosted-page/tax-label';
import { paymentMethodLink } from '../kit/links';
import { isPortalTokenFormat, portalTokenHash } from './token';
import { ownedBy, type Scope } from '../kit/scope';
import { ApiError } from '../errors';
import { pdfFilename, renderCreditNotePdf, renderInvoicePdf } from '../invoices/pdf';
import { readCreditNote, readInvoice } from '../invoices/service';
import type { InvoiceRow } from '../invoices/view';
import { storeLinkColumns, type StoreLinks } from '../stores/service';

/** Only brand and last 4 of a card are ever shown. */
export interface PortalCard {
  brand: string;
  last4: string;
}

export interface PortalOrder {
  /** The order's reference, for the customer's own records and questions to the merchant. */
  id: string;
  status: OrderStatus;
  created: number;
  paidAt: number | null;
  lines: { description: string; quantity: number; unitAmount: number; amountTotal: number }[];
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  amountRefunded: number;
  /** The VAT rates charged and whether the prices contain the tax, for the tax line's label. */
  tax: TaxLabel;
  card: PortalCard | null;
  /** The invoice the payment issued, downloadable through the portal link. */
  invoiceId: string | null;
  /** `creditNoteId`: the credit note a succeeded refund issued. */
  refunds: { amount: number; status: RefundStatus; created: number; creditNoteId: string | null }[];
  licenseKeys: string[];
  /** Signed links to the files of the lines whose product has one (none once refunded in full). */
  downloads: DownloadLink[];
}

export interface PortalSubscription {
  /** What the customer quotes, and what the cancel page's link prefills. */
  id: string;
  planName: string;
  status: SubscriptionStatus;
  amount: number;
  interval: PriceInterval;
  intervalCount: number;
  created: number;
  /** Null when no further payment is scheduled (canceled, expired, not started, or an end scheduled). */
  nextBillingAt: number | null;
  /** When a scheduled end takes effect (`cancel_at`); null when none is scheduled. */
  endsAt: number | null;
  /** The card the next charge uses. */
  card: PortalCard | null;
  /** A plan change waiting for the renewal at `effectiveAt`. */
  scheduledChange: { planName: string; amount: number; interval: PriceInterval; intervalCount: number; effectiveAt: number } | null;
  /** When the free trial ends (the first charge), while it runs; else null. */
  trialEnd: number | null;
  /** The discount's terms and until when it reaches the charges (null: forever, or not fixed until the first charge). */
  discount: { percentOff: number | null; amountOff: number | null; until: number | null } | null;
  /** Cents a plan change left over, taken off the next charges; 0 once it is not charged any more (nothing pays it back). */
  credit: number;
  /**
   * A signed link to give another card, made fresh for this view (valid 7 days on the store's
   * clock); null for a subscription that is not charged any more.
   */
  updatePaymentMethodUrl: string | null;
  /** Newest first. */
  /** A payment's status is its order's once refunds paid it back. */
  payments: { amount: number; status: SubscriptionChargeStatus | 'refunded' | 'partially_refunded'; date: number; card: PortalCard | null; invoiceId: string | null }[];
}

export interface PortalPage {
  storeName: string;
  storeLinks: StoreLinks;
  livemode: boolean;
  scope: PortalScope;
  expiresAt: number;
  orders: PortalOrder[];
  subscriptions: PortalSubscription[];
}

interface PortalDeps {
  db: Database;
  /** Wall time; the store's test clock is applied in SQL, per session (test mode only). */
  clock: Clock;
}

/** Opening the page also signs its download links. */
type OpenPortalDeps = PortalDeps & { config: Pick<Config, 'authSecret' | 'publicBaseUrl' | 'downloadLimit'> };

/**
 * "Now" on the session's store clock, in SQL: wall time, plus the store's test clock offset for
 * a test-mode session. Judged in the statement itself, so there is no window between
 * reading the clock and the session.
 */
function storeNow(wallNow: Date) {
  return sql`(${wallNow.toISOString()}::timestamptz + make_interval(secs => case when ${portalSessions.livemode} then 0 else ${stores.testClockOffsetSeconds} end))`;
}

function resolvable(tokenHash: string, wallNow: Date) {
  return and(eq(portalSessions.tokenHash, tokenHash), isNull(portalSessions.revokedAt), sql`${portalSessions.expiresAt} > ${storeNow(wallNow)}`);
}

/**
 * proxy.ts: whether the link resolves now, without counting a view (the page counts it): the
 * store's links (its logo goes into the page's CSP) when it does, undefined when it does not.
 */
export async function portalLinkStore(deps: PortalDeps, token: string): Promise<{ storeLinks: StoreLinks } | undefined> {
  if (!isPortalTokenFormat(token)) return undefined;
  const [row] = await deps.db
    .select({ storeLinks: storeLinkColumns })
    .from(portalSessions)
    .innerJoin(stores, eq(stores.id, portalSessions.storeId))
    .where(resolvable(portalTokenHash(token), deps.clock.now()))
    .limit(1);
  return row;
}

/**
 * Opens the portal for one page view: a single UPDATE counts the view and sets
 * `last_accessed_at` (store clock) only if the link still resolves, so concurrent views each
 * count once and a revocation committed before it is always seen. Undefined: the link does not
 * resolve (unknown, expired or revoked alike).
 */
export async function openPortal(deps: OpenPortalDeps, token: string): Promise<PortalPage | undefined> {
  if (!isPortalTokenFormat(token)) return undefined;
  const wallNow = deps.clock.now();
  const [session] = await deps.db
    .update(portalSessions)
    .set({ accessCount: sql`${portalSessions.accessCount} + 1`, lastAccessedAt: sql`${storeNow(wallNow)}` })
    .from(stores)
    .where(and(eq(stores.id, portalSessions.storeId), resolvable(portalTokenHash(token), wallNow)))
    .returning({
      storeId: portalSessions.storeId,
      livemode: portalSessions.livemode,
      scope: portalSessions.scope,
      customerId: portalSessions.customerId,
      orderId: portalSessions.orderId,
      subscriptionId: portalSessions.subscriptionId,
      expiresAt: portalSessions.expiresAt,
      storeName: stores.name,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
      ...storeLinkColumns,
    });
  if (!session) return undefined;
  const owner = { storeId: session.storeId, livemode: session.livemode };
  const [orderRows, subscriptionRows] = await Promise.all([
    session.scope === 'subscription'
      ? []
      : loadOrders(deps, { ...owner, testClockOffsetSeconds: session.testClockOffsetSeconds }, session.scope === 'order' ? { orderId: session.orderId! } : { customerId: session.customerId! }),
    session.scope === 'order'
      ? []
      : loadSubscriptions(
          deps,
          { ...owner, testClockOffsetSeconds: session.testClockOffsetSeconds },
          session.scope === 'subscription' ? { subscriptionId: session.subscriptionId! } : { customerId: session.customerId! },
        ),
  ]);
  return {
    storeName: session.storeName,
    storeLinks: { logoUrl: session.logoUrl, termsUrl: session.termsUrl, privacyUrl: session.privacyUrl },
    livemode: session.livemode,
    scope: session.scope,
    expiresAt: epochSeconds(session.expiresAt),
    orders: orderRows,
    subscriptions: subscriptionRows,
  };
}

const card = (brand: string | null, last4: string | null): PortalCard | null => (brand && last4 ? { brand, last4 } : null);

/**
 * One order, or every order the customer paid (pending checkouts are not history), newest
 * first, with lines, refunds and license keys; every read scoped by store and environment.
 */
async function loadOrders(deps: OpenPortalDeps, owner: Scope & { testClockOffsetSeconds: number }, which: { orderId: string } | { customerId: string }): Promise<PortalOrder[]> {
  const { db } = deps;
  const rows = await db
    .select()
    .from(orders)
    .where(and(ownedBy(orders, owner), 'orderId' in which ? eq(orders.id, which.orderId) : and(eq(orders.customerId, which.customerId), ne(orders.status, 'pending'))))
    .orderBy(desc(orders.createdAt), desc(orders.id));
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [lines, refundRows, keys, downloads] = await Promise.all([
    db.select().from(orderLines).where(inArray(orderLines.orderId, ids)).orderBy(asc(orderLines.position)),
    db
      .select()
      .from(refunds)
      .where(and(inArray(refunds.orderId, ids), ownedBy(refunds, owner)))
      .orderBy(asc(refunds.createdAt), asc(refunds.id)),
    db
      .select({ orderId: licenseKeys.orderId, key: licenseKeys.key })
      .from(licenseKeys)
      .where(and(inArray(licenseKeys.orderId, ids), ownedBy(licenseKeys, owner), isNull(licenseKeys.revokedAt)))
      .orderBy(asc(licenseKeys.createdAt), asc(licenseKeys.key)),
    downloadLinks(deps, owner, rows),
  ]);
  return rows.map((row) => {
    const own = lines.filter((line) => line.orderId === row.id);
    return {
      id: row.id,
      status: row.status,
      created: epochSeconds(row.createdAt),
      paidAt: row.paidAt === null ? null : epochSeconds(row.paidAt),
      lines: own.map((line) => ({ description: line.description, quantity: line.quantity, unitAmount: line.unitAmount, amountTotal: line.amountTotal })),
      amountSubtotal: row.amountSubtotal,
      amountTax: row.amountTax,
      amountTotal: row.amountTotal,
      amountRefunded: row.amountRefunded,
      tax: taxLabelOf(own),
      card: card(row.cardBrand, row.cardLast4),
      invoiceId: row.invoiceId,
      refunds: refundRows
        .filter((refund) => refund.orderId === row.id)
        .map((refund) => ({ amount: refund.amount, status: refund.status, created: epochSeconds(refund.createdAt), creditNoteId: refund.creditNoteId })),
      licenseKeys: keys.filter((key) => key.orderId === row.id).map((key) => key.key),
      downloads: downloads.get(row.id) ?? [],
    };
  });
}

/** Statuses in which another payment is scheduled at `next_billing_at`, and so a card may be replaced. */
const BILLING_STATUSES: SubscriptionStatus[] = ['trialing', 'active', 'past_due'];

async function loadSubscriptions(deps: OpenPortalDeps, owner: Scope & { testClockOffsetSeconds: number }, which: { subscriptionId: string } | { customerId: string }): Promise<PortalSubscription[]> {
  const { db } = deps;
  const now = storeClock(deps.clock, owner).now();
  const rows = await db
    .select()
    .from(subscriptions)
    .where(and(ownedBy(subscriptions, owner), 'subscriptionId' in which ? eq(subscriptions.id, which.subscriptionId) : eq(subscriptions.customerId, which.customerId)))
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id));
  if (rows.length === 0) return [];
  // A charge that took the money has an order: its invoice, and the refunds that paid it back.
  const charges = await db
    .select({ charge: subscriptionCharges, orderStatus: orders.status, invoiceId: orders.invoiceId })
    .from(subscriptionCharges)
    .leftJoin(orders, eq(orders.id, subscriptionCharges.orderId))
    .where(
      and(
        inArray(
          subscriptionCharges.subscriptionId,
          rows.map((row) => row.id),
        ),
        ownedBy(subscriptionCharges, owner),
      ),
    )
    .orderBy(desc(subscriptionCharges.createdAt), desc(subscriptionCharges.cycle), desc(subscriptionCharges.attempt));
  return rows.map((row) => {
    const billed = BILLING_STATUSES.includes(row.status);
    return {
      id: row.id,
      planName: row.planName,
      status: row.status,
      amount: row.amount,
      interval: row.interval,
      intervalCount: row.intervalCount,
      created: epochSeconds(row.createdAt),
      nextBillingAt: billed && !row.cancelAtPeriodEnd ? epochSeconds(row.nextBillingAt) : null,
      endsAt: billed && row.cancelAt ? epochSeconds(row.cancelAt) : null,
      card: card(row.cardBrand, row.cardLast4),
      scheduledChange:
        billed && row.pendingChange
          ? {
              planName: row.pendingChange.plan_name,
              amount: row.pendingChange.amount,
              interval: row.pendingChange.interval,
              intervalCount: row.pendingChange.interval_count,
              effectiveAt: row.pendingChange.effective_at,
            }
          : null,
      trialEnd: row.status === 'trialing' && row.trialEnd ? epochSeconds(row.trialEnd) : null,
      discount: row.discount === null ? null : { percentOff: row.discount.percent_off, amountOff: row.discount.amount_off, until: row.discountEnd ? epochSeconds(row.discountEnd) : null },
      credit: billed ? row.creditBalance : 0,
      updatePaymentMethodUrl: billed ? paymentMethodLink(deps.config, row.id, now).url : null,
      payments: charges
        // A trial's card check (cycle 0) moved no money: not a payment.
        .filter(({ charge }) => charge.subscriptionId === row.id && charge.cycle > 0)
        .map(({ charge, orderStatus, invoiceId }) => ({
          amount: charge.amount,
          status: orderStatus === 'refunded' || orderStatus === 'partially_refunded' ? orderStatus : charge.status,
          date: epochSeconds(charge.settledAt ?? charge.createdAt),
          card: card(charge.cardBrand, charge.cardLast4),
          invoiceId,
        })),
    };
  });
}

/** A document the portal offers for download: an invoice or a credit note, as a PDF. */
export interface PortalDocument {
  filename: string;
  bytes: Buffer;
}

/**
 * GET /portal/{token}/invoices/{id} and /credit_notes/{id}: a document of what the link shows
 * (its order, its subscription, or its customer's), as a PDF; undefined for a link that does
 * not resolve now (so a deleted customer's links stop at once, while their invoices are kept)
 * and for any document outside the link's reach, alike. Read-only: a download counts no view.
 */
export async function openPortalDocument(deps: PortalDeps, token: string, kind: 'invoice' | 'credit_note', id: string): Promise<PortalDocument | undefined> {
  if (!isPortalTokenFormat(token)) return undefined;
  const [session] = await deps.db
    .select({
      storeId: portalSessions.storeId,
      livemode: portalSessions.livemode,
      scope: portalSessions.scope,
      customerId: portalSessions.customerId,
      orderId: portalSessions.orderId,
      subscriptionId: portalSessions.subscriptionId,
    })
    .from(portalSessions)
    .innerJoin(stores, eq(stores.id, portalSessions.storeId))
    .where(resolvable(portalTokenHash(token), deps.clock.now()))
    .limit(1);
  if (!session) return undefined;
  const owner = { storeId: session.storeId, livemode: session.livemode };
  const within = (invoice: InvoiceRow) =>
    session.scope === 'order' ? invoice.orderId === session.orderId : session.scope === 'subscription' ? invoice.subscriptionId === session.subscriptionId : invoice.customerId === session.customerId;
  try {
    if (kind === 'invoice') {
      const invoice = await readInvoice(deps.db, owner, id);
      if (!within(invoice)) return undefined;
      return { filename: pdfFilename(invoice.number), bytes: await renderInvoicePdf(invoice) };
    }
    const note = await readCreditNote(deps.db, owner, id);
    const invoice = await readInvoice(deps.db, owner, note.invoiceId);
    if (!within(invoice)) return undefined;
    return { filename: pdfFilename(note.number), bytes: await renderCreditNotePdf(note, invoice) };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_missing') return undefined;
    throw error;
  }
}
