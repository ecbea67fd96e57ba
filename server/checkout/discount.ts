/**
 * A checkout session's discount: taken off each line's base (`unit_amount × quantity`) before
 * tax, the line then taxed on what is left at the rate it already carries, so the order, its
 * lines and the session always hold one set of numbers. Applied at creation, by a code typed on
 * the hosted page, and removed again (a code removed or no longer usable when paying).
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { checkoutSessions, OPEN_ATTEMPT_STATUSES, orderLines, orders, paymentAttempts, stores, type DiscountTerms } from '@/db/schema';
import { storeClock, type Clock } from '../clock';
import { resolveTypedCode } from '../coupons/discounts';
import { lineDiscounts } from '../kit/discounts';
import { lineTaxAt, sumLines, type LineAmounts } from '../kit/line-tax';
import { ownedBy } from '../kit/scope';
import type { CheckoutSessionRow } from './view';

/** What a line's discount and tax are computed from. */
export interface DiscountableLine {
  productId: string | null;
  unitAmount: number;
  quantity: number;
  /** The rate the line is taxed at, percent with at most two decimals; null: untaxed (yet). */
  taxRate: number | null;
  taxInclusive: boolean;
}

/**
 * The lines with `terms` taken off (null: none), in line order: each line's `amountDiscount` and
 * its amounts taxed on its base less the discount (exclusive: the subtotal; inclusive: the total).
 */
export function discountedLines<T extends DiscountableLine>(lines: readonly T[], terms: DiscountTerms | null): (T & LineAmounts & { amountDiscount: number })[] {
  const bases = lines.map((line) => ({ base: line.unitAmount * line.quantity, productId: line.productId }));
  const discounts = terms === null ? bases.map(() => 0) : lineDiscounts(terms, bases);
  return lines.map((line, index) => {
    const amountDiscount = discounts[index]!;
    const hundredths = line.taxRate === null ? 0 : Math.round(line.taxRate * 100);
    // Not a leading spread (slow): the line's own amounts are replaced.
    return Object.assign({}, line, { amountDiscount }, lineTaxAt(bases[index]!.base - amountDiscount, hundredths, line.taxInclusive));
  });
}

/**
 * Gives the session `terms` (null: takes its discount away) and writes its order's lines and
 * totals again, in the caller's transaction, which holds the session's row lock. Answers the
 * session as written.
 */
export async function writeSessionDiscount(tx: Transaction, session: CheckoutSessionRow, terms: DiscountTerms | null): Promise<CheckoutSessionRow> {
  const lines = await tx
    .select({
      id: orderLines.id,
      productId: orderLines.productId,
      unitAmount: orderLines.unitAmount,
      quantity: orderLines.quantity,
      taxRate: orderLines.taxRate,
      taxInclusive: orderLines.taxInclusive,
    })
    .from(orderLines)
    .where(eq(orderLines.orderId, session.orderId))
    .orderBy(asc(orderLines.position));
  const priced = discountedLines(lines, terms);
  // Most sessions have one line: one update each is simpler than a batch and as fast.
  for (const line of priced) {
    await tx.update(orderLines).set({ amountDiscount: line.amountDiscount, amountSubtotal: line.subtotal, amountTax: line.tax, amountTotal: line.total }).where(eq(orderLines.id, line.id));
  }
  const amounts = sumLines(priced);
  const totals = { amountSubtotal: amounts.subtotal, amountTax: amounts.tax, amountTotal: amounts.total };
  const amountDiscount = priced.reduce((sum, line) => sum + line.amountDiscount, 0);
  await tx
    .update(orders)
    .set({ ...totals, amountDiscount, discount: terms })
    .where(and(eq(orders.id, session.orderId), ownedBy(orders, session)));
  const [written] = await tx
    .update(checkoutSessions)
    .set({ ...totals, discount: terms })
    .where(eq(checkoutSessions.id, session.id))
    .returning();
  return written!;
}

export interface TypedCodeDeps {
  db: Database;
  /** Wall clock: the store's is derived from it. */
  clock: Clock;
}

/**
 * What a code typed on the hosted page (or its removal) did: `applied` and `removed` wrote the
 * session; `invalid` (unknown, unusable now, or reaching none of the lines) and `closed` (paid,
 * failed, expired, not offering codes, or a payment on its way) changed nothing.
 */
export type TypedCodeOutcome = 'applied' | 'removed' | 'invalid' | 'closed';

/**
 * A code typed on the page of a session that offers the field (`typed`), or its removal (null):
 * checked and written under the session's row lock, only while the session is open and unpaid
 * and no payment attempt is on its way (that attempt charges the amounts it was made with).
 */
export async function changeTypedCode(deps: TypedCodeDeps, sessionId: string, typed: string | null): Promise<TypedCodeOutcome> {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ session: checkoutSessions, offset: stores.testClockOffsetSeconds })
      .from(checkoutSessions)
      .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
      .where(eq(checkoutSessions.id, sessionId))
      .for('update', { of: checkoutSessions });
    if (!row?.session.allowPromotionCodes) return 'closed';
    const { session } = row;
    const now = storeClock(deps.clock, { livemode: session.livemode, testClockOffsetSeconds: row.offset }).now();
    if (session.status !== 'open' || session.paymentStatus !== 'unpaid' || session.expiresAt.getTime() <= now.getTime()) return 'closed';
    const [open] = await tx
      .select({ id: paymentAttempts.id })
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.checkoutSessionId, session.id), inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])))
      .limit(1);
    if (open) return 'closed';
    if (typed === null) {
      if (session.discount !== null) await writeSessionDiscount(tx, session, null);
      return 'removed';
    }
    const productIds = (await tx.select({ productId: orderLines.productId }).from(orderLines).where(eq(orderLines.orderId, session.orderId))).map((line) => line.productId);
    const terms = await resolveTypedCode(tx, session, typed, { kind: 'lines', productIds }, now);
    if (terms === null) return 'invalid';
    await writeSessionDiscount(tx, session, terms);
    return 'applied';
  });
}
