/**
 * A subscription's clock inside SQL, for passes over every store at once: live mode reads wall
 * time, a test-mode store's clock adds its offset (the query joins `stores`).
 */
import { sql, type SQL } from 'drizzle-orm';
import { stores, subscriptions } from '@/db/schema';

/** The subscription's clock at wall time `wall` (ISO). */
export function subscriptionClockSql(wall: string): SQL {
  return sql`case when ${subscriptions.livemode} then ${wall}::timestamptz else ${wall}::timestamptz + make_interval(secs => ${stores.testClockOffsetSeconds}) end`;
}

/** The furthest any store's clock reads at `wall` (ISO) plus `leadSeconds`: a constant bound an index can range over. */
export function furthestClockSql(wall: string, leadSeconds: number): SQL {
  return sql`${wall}::timestamptz + make_interval(secs => ${leadSeconds} + (select coalesce(max(${stores.testClockOffsetSeconds}), 0) from ${stores}))`;
}
