import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { checkoutSessions, stores } from '@/db/schema';
import { storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import { markExpired, type ExpireRows } from '../kit/expiry';
import { recordEvent } from '../webhooks/events';
import { checkoutSessionView, withAmountDiscounts, type CheckoutSessionRow } from './view';

const markSessionsExpired = markExpired(checkoutSessions);

export interface SessionExpiryDeps {
  /** For the session as the API shows it, in its event. */
  config: Pick<Config, 'publicBaseUrl' | 'authSecret'>;
  /** Real time; each session's store clock (its test clock in test mode) is derived from it. */
  wallClock: Clock;
}

/**
 * The one function that expires checkout sessions, on every path: the sweep and the due job when
 * the test clock moves, a read or a payment past `expires_at`, and POST
 * /checkout/sessions/{id}/expire. Only `open` sessions change (their orders stay `pending`), each
 * with its `checkout.session.expired` event, in a transaction of its own (a savepoint inside the
 * caller's). Returns the sessions it expired.
 */
export function expireCheckoutSessions(deps: SessionExpiryDeps): ExpireRows<CheckoutSessionRow> {
  return (db: Executor, which: SQL) =>
    db.transaction(async (tx) => {
      const expired = await markSessionsExpired(tx, which);
      if (expired.length === 0) return expired;
      const wallNow = deps.wallClock.now();
      const offsets = await tx
        .select({ id: stores.id, testClockOffsetSeconds: stores.testClockOffsetSeconds })
        .from(stores)
        .where(inArray(stores.id, [...new Set(expired.map((row) => row.storeId))]));
      const offsetOf = new Map(offsets.map((store) => [store.id, store.testClockOffsetSeconds]));
      for (const row of await withAmountDiscounts(tx, expired)) {
        const now = storeClock(deps.wallClock, { livemode: row.livemode, testClockOffsetSeconds: offsetOf.get(row.storeId) ?? 0 }).now();
        await recordEvent(tx, { storeId: row.storeId, livemode: row.livemode, type: 'checkout.session.expired', object: checkoutSessionView(row, deps), now, wallNow });
      }
      return expired;
    });
}

/** Sessions one sweep expires at most; the next sweep takes the rest. */
const SWEEP_BATCH = 500;

/**
 * Every store's open sessions past their deadline, read on each store's clock, so that their
 * `checkout.session.expired` events are written even when nobody reads the session again.
 * Rows another sweep holds are skipped.
 */
export async function expireDueCheckoutSessions(db: Executor, deps: SessionExpiryDeps): Promise<number> {
  const wall = deps.wallClock.now().toISOString();
  const due = db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .innerJoin(stores, eq(stores.id, checkoutSessions.storeId))
    .where(
      and(
        eq(checkoutSessions.status, 'open'),
        // The furthest any store's clock reads bounds the index range; the second test is exact per row.
        sql`${checkoutSessions.expiresAt} <= ${wall}::timestamptz + make_interval(secs => (select coalesce(max(${stores.testClockOffsetSeconds}), 0) from ${stores}))`,
        sql`${checkoutSessions.expiresAt} <= case when ${checkoutSessions.livemode} then ${wall}::timestamptz
          else ${wall}::timestamptz + make_interval(secs => ${stores.testClockOffsetSeconds}) end`,
      ),
    )
    .limit(SWEEP_BATCH)
    .for('update', { of: checkoutSessions, skipLocked: true });
  const expired = await expireCheckoutSessions(deps)(db, inArray(checkoutSessions.id, due));
  return expired.length;
}
