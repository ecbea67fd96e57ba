import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { refunds } from '@/db/schema';

/** Whether refunds that have succeeded (money moved back) cover the whole order: the purchase is reversed. */
export async function refundedInFull(db: Executor, orderId: string, amountTotal: number): Promise<boolean> {
  const [sum] = await db
    .select({ refunded: sql<number>`coalesce(sum(${refunds.amount}), 0)::int` })
    .from(refunds)
    .where(and(eq(refunds.orderId, orderId), eq(refunds.status, 'succeeded')));
  return (sum?.refunded ?? 0) >= amountTotal;
}
