/**
 * A checkout session taxed by the buyer's country: each time the hosted page learns the billing
 * details (a country or VAT ID changed, `Update total`, `Pay`), the lines are taxed again for
 * them at the day's rates and the order, its lines and the session take the new amounts, so what
 * the page shows, the API reads and the payment charges are one set of numbers.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { checkoutSessions, OPEN_ATTEMPT_STATUSES, orderLines, orders, paymentAttempts, stores } from '@/db/schema';
import { storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { ownedBy } from '../kit/scope';
import { checkBilling, type BillingErrorCode, type BillingField, type BillingForm, type CheckedBilling } from '../vat/billing';
import type { RateTable } from '../kit/vat-rates';
import { buyerLineAmounts } from '../vat/taxation';
import { sumLines } from '../kit/line-tax';
import type { CheckoutSessionRow } from './view';

/**
 * Taxes the session's lines for `billing` on `date` (the store's clock) and writes them, in the
 * caller's transaction, which holds the session's row lock. Answers the session as written.
 */
export async function taxSessionForBuyer(tx: Transaction, session: CheckoutSessionRow, billing: CheckedBilling, rates: RateTable, date: Date): Promise<CheckoutSessionRow> {
  const lines = await tx
    .select({
      id: orderLines.id,
      unitAmount: orderLines.unitAmount,
      quantity: orderLines.quantity,
      amountDiscount: orderLines.amountDiscount,
      taxInclusive: orderLines.taxInclusive,
      taxCategory: orderLines.taxCategory,
    })
    .from(orderLines)
    .where(eq(orderLines.orderId, session.orderId))
    .orderBy(asc(orderLines.position));
  const taxed = lines.map((line) => ({
    id: line.id,
    // The discount stays in: tax applies to what is left of the line after it.
    ...buyerLineAmounts({ gross: line.unitAmount * line.quantity - line.amountDiscount, inclusive: line.taxInclusive, category: line.taxCategory }, billing.tax, rates, date),
  }));
  // Most sessions have one line: one update each is simpler than a batch and as fast.
  for (const line of taxed) {
    await tx.update(orderLines).set({ amountSubtotal: line.subtotal, amountTax: line.tax, amountTotal: line.total, taxRate: line.taxRate }).where(eq(orderLines.id, line.id));
  }
  const amounts = sumLines(taxed);
  const buyer = { customerDetails: billing.details, taxCountry: billing.tax.taxCountry, taxTreatment: billing.tax.treatment };
  const totals = { amountSubtotal: amounts.subtotal, amountTax: amounts.tax, amountTotal: amounts.total };
  await tx
    .update(orders)
    .set({ ...totals, ...buyer, buyerVatId: billing.details.vat_id })
    .where(and(eq(orders.id, session.orderId), ownedBy(orders, session)));
  const [written] = await tx
    .update(checkoutSessions)
    .set({ ...totals, ...buyer })
    .where(eq(checkoutSessions.id, session.id))
    .returning();
  return written!;
}

/**
 * A `Pay` whose total, taxed again for the submitted details, is not the total the page showed:
 * nothing is charged, and the page shows the new amounts for the buyer to confirm.
 */
export class TotalChangedError extends Error {
  constructor(readonly amountTotal: number) {
    super('The total has changed: nothing was charged.');
  }
}

export type BillingUpdate =
  | { kind: 'refused'; errors: Partial<Record<BillingField, BillingErrorCode>> }
  | { kind: 'taxed'; session: CheckoutSessionRow; vatIdUnconfirmed: boolean }
  /** Paid, failed, expired, or a payment on its way: the amounts stay as they are. */
  | { kind: 'closed' };

export interface BillingDeps {
  db: Database;
  /** Wall clock: the store's is derived from it. */
  clock: Clock;
  config: Pick<Config, 'vatLookup' | 'operator' | 'taxRates'>;
}

/**
 * The billing details of an open session taxed by the buyer's country, from its hosted page
 * (`Update total`, or the page's script as the country or VAT ID changes). Checked first, then
 * written under the session's row lock, unless a payment attempt is on its way: it charges the
 * amounts it was made with.
 */
export async function updateSessionBilling(deps: BillingDeps, sessionId: string, form: BillingForm): Promise<BillingUpdate> {
  const [seen] = await deps.db.select({ livemode: checkoutSessions.livemode }).from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
  if (!seen) return { kind: 'closed' };
  const checked = await checkBilling(deps.config, seen.livemode, form);
  if (!checked.ok) return { kind: 'refused', errors: checked.errors };
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ session: checkoutSessions, offset: stores.testClockOffsetSeconds })
      .from(checkoutSessions)
      .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
      .where(eq(checkoutSessions.id, sessionId))
      .for('update', { of: checkoutSessions });
    if (row?.session.taxMode !== 'buyer_country') return { kind: 'closed' as const };
    const { session } = row;
    const now = storeClock(deps.clock, { livemode: session.livemode, testClockOffsetSeconds: row.offset }).now();
    if (session.status !== 'open' || session.paymentStatus !== 'unpaid' || session.expiresAt.getTime() <= now.getTime()) return { kind: 'closed' as const };
    const [open] = await tx
      .select({ id: paymentAttempts.id })
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.checkoutSessionId, session.id), inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])))
      .limit(1);
    if (open) return { kind: 'closed' as const };
    return { kind: 'taxed' as const, session: await taxSessionForBuyer(tx, session, checked.billing, deps.config.taxRates, now), vatIdUnconfirmed: checked.billing.vatIdUnconfirmed };
  });
}
