/**
 * The subscription list's query string, shared by the list page and its CSV export: `status`,
 * `customer` (a customer id or an e-mail address), `from` and `to` (whole UTC days), `starting_after`.
 */
import { SUBSCRIPTION_STATUSES } from '@/db/schema';
import type { SubscriptionSearch } from '@/server/dashboard/subscriptions';
import { createdRangeFields } from '@/server/kit/list';
import { subscriptionListFilters } from '@/server/subscriptions/schemas';
import { z } from 'zod';
import { createdDays, queryText, type SearchParams } from '../list-query';

export interface SubscriptionsQuery {
  /** What the form shows back. */
  form: { status: string; customer: string; from: string; to: string };
  filters: SubscriptionSearch;
  /** Why the query cannot be used, for the alert. */
  problem?: string;
}

const createdRange = z.strictObject(createdRangeFields);

const CUSTOMER_ID = /^cus_(test|live)_[0-9A-Za-z]{1,64}$/;

export function readSubscriptionsQuery(params: SearchParams): SubscriptionsQuery {
  const form = { status: queryText(params, 'status'), customer: queryText(params, 'customer'), from: queryText(params, 'from'), to: queryText(params, 'to') };
  const query: SubscriptionsQuery = { form, filters: {} };
  const byId = CUSTOMER_ID.test(form.customer);
  if (form.customer !== '' && !byId && !form.customer.includes('@')) return { ...query, problem: 'Customer takes a customer id (cus_…) or an e-mail address.' };
  if (form.status !== '' && form.status !== 'all' && !(SUBSCRIPTION_STATUSES as readonly string[]).includes(form.status)) return { ...query, problem: 'Choose a status from the list.' };
  const created = createdDays(form.from, form.to);
  if (!created) return { ...query, problem: 'Dates are days, YYYY-MM-DD.' };
  const parsed = subscriptionListFilters.safeParse({
    status: form.status === '' || form.status === 'all' ? undefined : form.status,
    customer_email: form.customer.includes('@') ? form.customer : undefined,
  });
  if (!parsed.success) return { ...query, problem: 'That is not an e-mail address.' };
  // The API's subscription list has no created range: checked by the rule of the lists that have one.
  const range = createdRange.safeParse(created);
  if (!range.success) return { ...query, problem: 'Dates are days from 1970 to 9999.' };
  return { ...query, filters: { ...parsed.data, ...range.data, customer_id: byId ? form.customer : undefined } };
}
