/**
 * The dashboard's order pages: the order with the card it was paid with (which the API object
 * never carries), and refunds made by a signed-in person, audited with that person.
 */
import { byPerson, type DashboardActor } from '../audit/service';
import { and, eq } from 'drizzle-orm';
import { orders } from '@/db/schema';
import type { Services } from '../context';
import type { IdempotentRequest } from '../kit/idempotency';
import { ownedBy, type Scope } from '../kit/scope';
import type { Order } from '../orders/schemas';
import { getOrder } from '../orders/service';
import type { Refund } from '../orders/refund-schemas';
import type { CreateRefundInput } from '../refunds/schemas';
import { createRefund } from '../refunds/service';
import { countDownloads } from '../downloads/service';
import { scopeClock } from './service';

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

/**
 * A refund from the dashboard: createRefund under the form's idempotency key, so a double submit
 * refunds once, and one audit entry naming the person (`user:<email>`, where an API call has its
 * key's hint) for the refund that was made, none for a replay.
 */
export async function refundAs(services: Services, scope: Scope, actor: DashboardActor, input: CreateRefundInput, idempotencyKey: string): Promise<Refund> {
  const idempotency: IdempotentRequest = { key: idempotencyKey, body: input, replayed: false };
  const deps = { db: services.db, clock: await scopeClock(services, scope), wallClock: services.clock, gateway: services.gateways[scope.livemode ? 'live' : 'test'] };
  return createRefund(deps, scope, input, idempotency, {
    action: 'refund.create',
    storeId: scope.storeId,
    livemode: scope.livemode,
    ...byPerson(actor),
  });
}
