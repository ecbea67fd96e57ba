/**
 * The dashboard's customer pages: the list searched by the start of an e-mail, and one customer
 * with their orders, subscriptions and portal links.
 */
import { like } from 'drizzle-orm';
import { customers } from '@/db/schema';
import type { Services } from '../context';
import type { Customer, CustomerListFilters } from '../customers/schemas';
import { customerListConditions, customerView, getCustomer } from '../customers/service';
import { listPage, type PageQuery } from '../kit/list';
import type { Scope } from '../kit/scope';
import type { OrderList } from '../orders/schemas';
import { listOrders } from '../orders/service';
import type { PortalSession } from '../portal/schemas';
import { listPortalSessions } from '../portal/service';
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
