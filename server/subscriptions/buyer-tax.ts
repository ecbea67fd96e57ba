/**
 * A subscription checkout taxed by the buyer's country: the billing details its hosted page
 * learns, kept on the checkout, and the first charge they lead to at the day's rate. The
 * subscription takes the tax country and treatment from here, fixed for every later charge.
 */
import { and, eq, gt, isNull } from 'drizzle-orm';
import { subscriptionCheckouts, stores } from '@/db/schema';
import { storeClock } from '../clock';
import type { BillingDeps } from '../checkout/buyer-tax';
import { checkBilling, type BillingErrorCode, type BillingField, type BillingForm } from '../vat/billing';
import type { ChargeAmounts } from './charge-order';
import { firstChargeAmountsOf } from './discount';

type CheckoutRow = typeof subscriptionCheckouts.$inferSelect;

export type SubscriptionBillingUpdate =
  | { kind: 'refused'; errors: Partial<Record<BillingField, BillingErrorCode>> }
  | { kind: 'taxed'; checkout: CheckoutRow; charge: ChargeAmounts; vatIdUnconfirmed: boolean }
  /** Used, expired, or not taxed by the buyer's country. */
  | { kind: 'closed' };

/** The billing details of an open checkout, from its hosted page (`Update total`, or the page's script). */
export async function updateSubscriptionCheckoutBilling(deps: BillingDeps, checkoutId: string, form: BillingForm): Promise<SubscriptionBillingUpdate> {
  const [row] = await deps.db
    .select({ checkout: subscriptionCheckouts, offset: stores.testClockOffsetSeconds })
    .from(subscriptionCheckouts)
    .innerJoin(stores, eq(stores.id, subscriptionCheckouts.storeId))
    .where(eq(subscriptionCheckouts.id, checkoutId));
  if (row?.checkout.taxMode !== 'buyer_country') return { kind: 'closed' };
  const checked = await checkBilling(deps.config, row.checkout.livemode, form);
  if (!checked.ok) return { kind: 'refused', errors: checked.errors };
  const now = storeClock(deps.clock, { livemode: row.checkout.livemode, testClockOffsetSeconds: row.offset }).now();
  const { billing } = checked;
  // Only while the link is unused and open: the first attempt burns it with the details it carried.
  const [written] = await deps.db
    .update(subscriptionCheckouts)
    .set({ customerDetails: billing.details, taxCountry: billing.tax.taxCountry, taxTreatment: billing.tax.treatment })
    .where(and(eq(subscriptionCheckouts.id, checkoutId), eq(subscriptionCheckouts.status, 'open'), isNull(subscriptionCheckouts.consumedAt), gt(subscriptionCheckouts.expiresAt, now)))
    .returning();
  if (!written) return { kind: 'closed' };
  return { kind: 'taxed', checkout: written, charge: firstChargeAmountsOf(written, deps.config.taxRates, now), vatIdUnconfirmed: billing.vatIdUnconfirmed };
}
