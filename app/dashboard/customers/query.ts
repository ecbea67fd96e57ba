/**
 * The customer list's query string, shared by the list page and its CSV export: `q` (a customer
 * id, an e-mail address or its start), `from` and `to` (whole UTC days), `starting_after`.
 */
import { customerListFilters } from '@/server/customers/schemas';
import type { CustomerSearch } from '@/server/dashboard/customers';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '@/server/kit/fields';
import { createdDays, queryText, type SearchParams } from '../list-query';

export interface CustomersQuery {
  /** What the form shows back. */
  form: { q: string; from: string; to: string };
  filters: CustomerSearch;
  /** A `cus_…` typed in the search box: the page goes to that customer. */
  customerId?: string;
  /** Why the query cannot be used, for the alert. */
  problem?: string;
}

export function readCustomersQuery(params: SearchParams): CustomersQuery {
  const form = { q: queryText(params, 'q'), from: queryText(params, 'from'), to: queryText(params, 'to') };
  const query: CustomersQuery = { form, filters: {} };
  if (form.q.startsWith('cus_')) return { ...query, customerId: form.q };
  const created = createdDays(form.from, form.to);
  if (!created) return { ...query, problem: 'Dates are days, YYYY-MM-DD.' };
  // Customers' e-mails are stored lower-cased: a whole address is matched exactly, anything shorter as its start.
  const email = form.q.toLowerCase();
  if (/\s/.test(email) || email.length > MAX_EMAIL_LENGTH) return { ...query, problem: 'Search takes a customer id (cus_…), an e-mail address or its start.' };
  const parsed = customerListFilters.safeParse({ email: isEmailAddress(email) ? email : undefined, ...created });
  if (!parsed.success) return { ...query, problem: 'Dates are days from 1970 to 9999.' };
  return { ...query, filters: { ...parsed.data, email_prefix: email !== '' && !isEmailAddress(email) ? email : undefined } };
}
