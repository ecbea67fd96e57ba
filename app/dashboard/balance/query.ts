/**
 * The balance transactions list's query string, shared by the Balance page and its CSV export:
 * `type`, `payout` (a payout id), `source` (the id of an order, refund, dispute or payout),
 * `from` and `to` (whole UTC days, the store's clock), `starting_after`.
 */
import { BALANCE_TRANSACTION_TYPES } from '@/db/schema';
import { balanceTransactionListFilters, type BalanceTransactionListFilters } from '@/server/balance/schemas';
import { createdDays, queryText, type SearchParams } from '../list-query';

export interface BalanceTransactionsQuery {
  /** What the form shows back. */
  form: { type: string; payout: string; source: string; from: string; to: string };
  filters: BalanceTransactionListFilters;
  /** Why the query cannot be used, for the alert. */
  problem?: string;
}

/** The alert for a filter the API's list refuses, by the field it names. */
const FIELD_PROBLEMS: Record<string, string> = {
  payout_id: 'Payout takes a payout id (po_…).',
  source_id: 'Source takes the id of an order, refund, dispute or payout (ord_…, re_…, dp_…, po_…).',
};

export function readBalanceTransactionsQuery(params: SearchParams): BalanceTransactionsQuery {
  const form = { type: queryText(params, 'type'), payout: queryText(params, 'payout'), source: queryText(params, 'source'), from: queryText(params, 'from'), to: queryText(params, 'to') };
  const query: BalanceTransactionsQuery = { form, filters: {} };
  if (form.type !== '' && form.type !== 'all' && !(BALANCE_TRANSACTION_TYPES as readonly string[]).includes(form.type)) return { ...query, problem: 'Choose a type from the list.' };
  const created = createdDays(form.from, form.to);
  if (!created) return { ...query, problem: 'Dates are days, YYYY-MM-DD.' };
  const parsed = balanceTransactionListFilters.safeParse({
    type: form.type === '' || form.type === 'all' ? undefined : form.type,
    payout_id: form.payout === '' ? undefined : form.payout,
    source_id: form.source === '' ? undefined : form.source,
    ...created,
  });
  if (!parsed.success) return { ...query, problem: FIELD_PROBLEMS[String(parsed.error.issues[0]?.path[0])] ?? 'Dates are days from 1970 to 9999.' };
  return { ...query, filters: parsed.data };
}
