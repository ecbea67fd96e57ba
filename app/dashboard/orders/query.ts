/**
 * The order list's query string, shared by the list page and its CSV export: `q` (an order id or
 * an e-mail), `status`, `from` and `to` (whole UTC days, the store's clock), `starting_after`.
 */
import { ORDER_STATUSES } from '@/db/schema';
import { orderListFilters, type OrderListFilters } from '@/server/orders/schemas';
import { createdDays, queryText, type SearchParams } from '../list-query';

export type { SearchParams } from '../list-query';

export interface OrdersQuery {
  /** What the form shows back. */
  form: { q: string; status: string; from: string; to: string };
  filters: OrderListFilters;
  /** An `ord_…` typed in the search box: the page goes to that order. */
  orderId?: string;
  /** Why the query cannot be used, for the alert. */
  problem?: string;
}

export function readOrdersQuery(params: SearchParams): OrdersQuery {
  const form = { q: queryText(params, 'q'), status: queryText(params, 'status'), from: queryText(params, 'from'), to: queryText(params, 'to') };
  const created = createdDays(form.from, form.to);
  const query: OrdersQuery = { form, filters: {} };
  if (form.q.startsWith('ord_')) query.orderId = form.q;
  if (form.q !== '' && !form.q.startsWith('ord_') && !form.q.includes('@')) query.problem = 'Search takes an order id (ord_…) or an e-mail address.';
  if (form.status !== '' && form.status !== 'all' && !(ORDER_STATUSES as readonly string[]).includes(form.status)) query.problem = 'Choose a status from the list.';
  if (!created) query.problem = 'Dates are days, YYYY-MM-DD.';
  if (query.problem) return query;
  const parsed = orderListFilters.safeParse({
    status: form.status === '' || form.status === 'all' ? undefined : form.status,
    customer_email: form.q.includes('@') ? form.q : undefined,
    ...created,
  });
  if (!parsed.success) return { ...query, problem: form.q.includes('@') ? 'That is not an e-mail address.' : 'Dates are days from 1970 to 9999.' };
  return { ...query, filters: parsed.data };
}
