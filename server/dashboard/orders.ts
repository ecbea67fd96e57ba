/**
 * The dashboard's order pages: the order with the card it was paid with (which the API object
 * never carries), and the refund form's amount.
 */
import { and, eq } from 'drizzle-orm';
import { orders } from '@/db/schema';
import type { Services } from '../context';
import { ownedBy, type Scope } from '../kit/scope';
import type { Order } from '../orders/schemas';
import { getOrder } from '../orders/service';
import { countDownloads } from '../downloads/service';

export interface OrderWithCard {
  order: Order;
  /** Null until the order is paid. */
  card: { brand: string; last4: string } | null;
  /** How often the customer downloaded the order's delivery files. */
  downloads: number;
}

/** An order of the scope (unknown, foreign and other-environment ids throw `resource_missing` alike). */
export async function getOrderWithCard(db: Services['db'], scope: Scope, id: string): Promise<OrderWithCard> {
  const order = await getOrder(db, scope, id);
  const [[row], downloads] = await Promise.all([
    db
      .select({ brand: orders.cardBrand, last4: orders.cardLast4 })
      .from(orders)
      .where(and(eq(orders.id, id), ownedBy(orders, scope))),
    countDownloads(db, scope, id),
  ]);
  return { order, card: row?.brand && row.last4 ? { brand: row.brand, last4: row.last4 } : null, downloads };
}

/** Euros as typed in a form (`12.50`, `12.5`, `12`) → integer cents; undefined for anything else, more than 2 decimals included. */
export function parseEuros(text: string): number | undefined {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
