import type { SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { checkoutSessions } from '@/db/schema';
import { markExpired } from '../kit/expiry';

const markSessionsExpired = markExpired(checkoutSessions);

/**
 * The one function that expires checkout sessions, on every path: the due job when the test
 * clock moves, a read or a payment past `expires_at`, and POST /checkout/sessions/{id}/expire.
 * Only `open` sessions change (their orders stay `pending`). It runs in a transaction of its own
 * (a savepoint inside the caller's), so whatever must be written with an expiry commits with it.
 * Returns the sessions it expired.
 */
export function expireCheckoutSessions(db: Executor, which: SQL): Promise<(typeof checkoutSessions.$inferSelect)[]> {
  return db.transaction((tx) => markSessionsExpired(tx, which));
}
