import { notFound } from 'next/navigation';
import { DISPUTE_STATUSES } from '@/db/schema';
import { getAppServices } from '@/server/app';
import { listDisputes } from '@/server/disputes/service';
import { ApiError } from '@/server/errors';
import { dashboardBase, type DashboardMode } from '../access';
import { listQueryString, queryText, type SearchParams } from '../list-query';
import { ListTable } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import { readDisputesQuery, type DisputesQuery } from './query';
import { disputeColumns } from './status';

const PAGE_SIZE = 25;

function Filters({ base, form }: { base: string; form: DisputesQuery['form'] }) {
  return (
    <form method="get" action={`${base}/disputes`} className="dash-filters dash-dispute-filters" role="search" aria-label="Filter disputes">
      <div className="dash-field">
        <label htmlFor="disputes-status">Status</label>
        <select id="disputes-status" name="status" defaultValue={form.status || 'all'}>
          <option value="all">all</option>
          {DISPUTE_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

/** The store's disputes of one mode, newest first, 25 a page, filtered by status: each with its deadline while it waits for evidence, linking to its order. */
export async function DisputesPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/disputes');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const query = readDisputesQuery(searchParams);
  const startingAfter = queryText(searchParams, 'starting_after') || undefined;
  const list = query.problem
    ? undefined
    : await listDisputes(db, scope, { ...query.filters, limit: PAGE_SIZE, starting_after: startingAfter }).catch((error: unknown) => {
        // A cursor of another store, mode or list: the page does not exist.
        if (error instanceof ApiError && error.code === 'resource_missing') notFound();
        throw error;
      });
  const filtered = query.form.status !== '' && query.form.status !== 'all';
  return (
    <DashboardShell access={access} mode={mode} path="/disputes">
      <section className="dash-card">
        <div className="dash-heading">
          <h1>Disputes</h1>
        </div>
        <p className="dash-muted">Payments a cardholder disputed with their bank. Answer each with evidence on its order’s page before its deadline: without evidence a dispute is lost.</p>
        <Filters base={base} form={query.form} />
        {query.problem && (
          <p role="alert" className="dash-alert">
            {query.problem}
          </p>
        )}
        {list && list.data.length === 0 && <p className="dash-muted">{filtered || startingAfter ? 'No disputes match these filters.' : 'No disputes yet.'}</p>}
        {list && list.data.length > 0 && <ListTable columns={disputeColumns(base)} rows={list.data} />}
        {list?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/disputes${listQueryString(query.form, { starting_after: list.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
