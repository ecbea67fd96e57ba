/** The Disputes list's query string: `status` (or `all`) and `starting_after`. */
import { DISPUTE_STATUSES, type DisputeStatus } from '@/db/schema';
import { queryText, type SearchParams } from '../list-query';

export interface DisputesQuery {
  /** What the form shows back. */
  form: { status: string };
  filters: { status?: DisputeStatus };
  /** Why the query cannot be used, for the alert. */
  problem?: string;
}

const isStatus = (text: string): text is DisputeStatus => (DISPUTE_STATUSES as readonly string[]).includes(text);

export function readDisputesQuery(params: SearchParams): DisputesQuery {
  const form = { status: queryText(params, 'status') };
  if (form.status === '' || form.status === 'all') return { form, filters: {} };
  if (!isStatus(form.status)) return { form, filters: {}, problem: 'Choose a status from the list.' };
  return { form, filters: { status: form.status } };
}
