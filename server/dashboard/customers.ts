/**
 * The dashboard's customer pages: the list searched by the start of an e-mail, one customer with
 * their orders, subscriptions and portal links, and the changes a signed-in person makes (create
 * or revoke a portal link, delete the customer), each through the API's service and audited with
 * that person in the change's transaction.
 */
import { and, eq, like } from 'drizzle-orm';
import { customers, portalSessions } from '@/db/schema';
import { recordAudit } from '../audit/service';
import type { Services } from '../context';
import type { Customer, CustomerListFilters } from '../customers/schemas';
import { customerListConditions, customerView, deleteCustomer, getCustomer } from '../customers/service';
import { resourceMissing } from '../errors';
import { listPage, type PageQuery } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import type { OrderList } from '../orders/schemas';
import { listOrders } from '../orders/service';
import type { PortalSession } from '../portal/schemas';
import { createPortalSession, getPortalSession, listPortalSessions, revokePortalSession } from '../portal/service';
import { personAudit } from './actor';
import type { DashboardActor } from '../audit/service';
import { scopeClock } from './service';
import { listSubscriptionPage, type SubscriptionPage } from './subscriptions';

/** The API's customer filters, and the start of an e-mail (lower-cased) for the dashboard's search. */
export interface CustomerSearch extends CustomerListFilters {
  email_prefix?: string | undefined;
}

/** `%`, `_` and `\` match themselves in the prefix, not as LIKE wildcards. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The API list's conditions, plus the prefix (customers_email_prefix_idx serves it). */
export function customerSearchConditions(search: CustomerSearch) {
  const api = customerListConditions(search);
  return { visible: api.visible, where: [...api.where, search.email_prefix === undefined ? undefined : like(customers.email, likePrefix(search.email_prefix))] };
}

export interface CustomerPage {
  data: Customer[];
  hasMore: boolean;
}

/** One page of the list, newest first; a cursor of another store, mode or a deleted customer is resource_missing. */
export async function listCustomerPage(db: Services['db'], scope: Scope, search: CustomerSearch & PageQuery): Promise<CustomerPage> {
  const { rows, hasMore } = await listPage(db, customers, { scope, page: search, kind: 'customer', ...customerSearchConditions(search) });
  return { data: rows.map(customerView), hasMore };
}

/** How many of each related list the customer page shows; a link leads to the rest. */
export const RELATED_LIMIT = 10;

export interface CustomerDetail {
  customer: Customer;
  orders: OrderList;
  subscriptions: SubscriptionPage;
  portalSessions: PortalSession[];
  /** More portal sessions exist than are shown. */
  morePortalSessions: boolean;
}

/** A customer of the scope with the latest of their orders, subscriptions and portal sessions; deleted ones are resource_missing. */
export async function customerDetail(services: Pick<Services, 'db' | 'clock'>, scope: Scope, id: string): Promise<CustomerDetail> {
  const customer = await getCustomer(services.db, scope, id);
  const clock = await scopeClock(services, scope);
  const [orders, subscriptions, portal] = await Promise.all([
    listOrders(services.db, scope, { limit: RELATED_LIMIT, customer_id: id }),
    listSubscriptionPage(services.db, scope, { limit: RELATED_LIMIT, customer_id: id }),
    listPortalSessions({ db: services.db, clock }, scope, { limit: RELATED_LIMIT, customer_id: id }),
  ]);
  return { customer, orders, subscriptions, portalSessions: portal.data, morePortalSessions: portal.has_more };
}

/**
 * A customer-scope portal link made by a person. The form's key makes a double submit create one
 * link; it also keeps the token sealed (server/portal/token.ts) until the page shows it once
 * (takeNewPortalUrl). A replay is not audited again.
 */
export async function createPortalLinkAs(services: Services, scope: Scope, actor: DashboardActor, customerId: string, idempotencyKey: string): Promise<PortalSession> {
  const clock = await scopeClock(services, scope);
  const idempotency = { key: idempotencyKey, body: { customer_id: customerId }, replayed: false };
  return services.db.transaction(async (tx) => {
    const session = await createPortalSession({ db: tx, clock, wallClock: services.clock, config: services.config }, scope, { customer_id: customerId }, idempotency);
    if (!idempotency.replayed) await recordAudit(tx, personAudit(scope, actor, 'portal_session.create', { portal_session: session.id, customer: customerId }));
    return session;
  });
}

/** Revokes one of the customer's portal links; revoking a revoked link changes nothing and is not audited again. */
export async function revokePortalLinkAs(services: Services, scope: Scope, actor: DashboardActor, customerId: string, portalSessionId: string): Promise<PortalSession> {
  const clock = await scopeClock(services, scope);
  return services.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ revokedAt: portalSessions.revokedAt })
      .from(portalSessions)
      .where(and(eq(portalSessions.id, portalSessionId), ownedBy(portalSessions, scope), eq(portalSessions.customerId, customerId)))
      .for('update');
    if (!row) throw resourceMissing('portal session', portalSessionId);
    if (row.revokedAt !== null) return getPortalSession({ db: tx, clock }, scope, portalSessionId);
    const revoked = await revokePortalSession({ db: tx, clock, wallClock: services.clock }, scope, portalSessionId);
    await recordAudit(tx, personAudit(scope, actor, 'portal_session.revoke', { portal_session: portalSessionId, customer: customerId }));
    return revoked;
  });
}

/** DELETE /customers/{id} by a person: the API's soft delete (which revokes their portal links), audited in its transaction. */
export async function deleteCustomerAs(services: Services, scope: Scope, actor: DashboardActor, customerId: string): Promise<void> {
  const clock = await scopeClock(services, scope);
  await services.db.transaction(async (tx) => {
    await deleteCustomer({ db: tx, clock, wallClock: services.clock }, scope, customerId);
    await recordAudit(tx, personAudit(scope, actor, 'customer.delete', { customer: customerId }));
  });
}

