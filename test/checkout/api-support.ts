import { eq } from 'drizzle-orm';
import { checkoutSessions, orderLines, orders } from '@/db/schema';
import type { TestApi } from '../support/server';

export const SESSIONS = '/api/v1/checkout/sessions';

export const HOUR = 3600;
export { createProduct, epoch, expectError, T0 } from '../support/api';

export async function readSessionRow(api: TestApi, id: string) {
  const [row] = await api.services.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return row;
}

export async function readOrder(api: TestApi, id: string) {
  const [order] = await api.services.db.select().from(orders).where(eq(orders.id, id));
  const lines = await api.services.db.select().from(orderLines).where(eq(orderLines.orderId, id)).orderBy(orderLines.position);
  return { order, lines };
}

/** A session's URL split into what a test asserts: path and the two query parameters. */
export function parseSessionUrl(url: string) {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname, expires: parsed.searchParams.get('expires'), signature: parsed.searchParams.get('signature') };
}
