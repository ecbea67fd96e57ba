/**
 * The order list's query string, shared by the list page and its CSV export: `q` (an order id or
 * an e-mail), `status`, `from` and `to` (whole UTC days, the store's clock), `starting_after`.
 */
import { ORDER_STATUSES } from '@/db/schema';
import { orderListFilters, type OrderListFilters } from '@/server/orders/schemas';

export type SearchParams = Record<string, string | string[] | undefined>;

export interface OrdersQuery {
  /** What the form shows back. */
  form: { q: string; status: string; from: string; to: string };
  filters: OrderListFilters;
  /** An `ord_…` typed in the search box: the page goes to that order. */
  orderId?: string;
  /** Why the query cannot be used, for the alert. */
  problem?: string;
}

const one = (params: SearchParams, name: string) => {
  const value = params[name];
  return (typeof value === 'string' ? value : '').trim();
};

export const DAY_SECONDS = 86_400;

/** `YYYY-MM-DD` → the epoch second its UTC day starts; undefined when empty, NaN when not a date. */
export function dayStart(text: string): number | undefined {
  if (text === '') return undefined;
  const milliseconds = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  return milliseconds / 1000;
}

export function readOrdersQuery(params: SearchParams): OrdersQuery {
  const form = { q: one(params, 'q'), status: one(params, 'status'), from: one(params, 'from'), to: one(params, 'to') };
  const from = dayStart(form.from);
  const to = dayStart(form.to);
  const query: OrdersQuery = { form, filters: {} };
  if (form.q.startsWith('ord_')) query.orderId = form.q;
  if (form.q !== '' && !form.q.startsWith('ord_') && !form.q.includes('@')) query.problem = 'Search takes an order id (ord_…) or an e-mail address.';
  if (form.status !== '' && form.status !== 'all' && !(ORDER_STATUSES as readonly string[]).includes(form.status)) query.problem = 'Choose a status from the list.';
  if (Number.isNaN(from) || Number.isNaN(to)) query.problem = 'Dates are days, YYYY-MM-DD.';
  if (query.problem) return query;
  const parsed = orderListFilters.safeParse({
    status: form.status === '' || form.status === 'all' ? undefined : form.status,
    customer_email: form.q.includes('@') ? form.q : undefined,
    created_gte: from,
    // The whole of the `to` day: created_lte is inclusive to the second.
    created_lte: to === undefined ? undefined : to + DAY_SECONDS - 1,
  });
  if (!parsed.success) return { ...query, problem: form.q.includes('@') ? 'That is not an e-mail address.' : 'Dates are days from 1970 to 9999.' };
  return { ...query, filters: parsed.data };
}

/** The query string of these filters, for the next page's and the export's links. */
export function ordersQueryString(form: OrdersQuery['form'], extra: Record<string, string> = {}): string {
  const entries = Object.entries({ ...form, ...extra }).filter(([, value]) => value !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}
