import { notFound } from 'next/navigation';
import { SUBSCRIPTION_STATUSES } from '@/db/schema';
import { getAppServices } from '@/server/app';
import { listSubscriptionPage } from '@/server/dashboard/subscriptions';
import { ApiError } from '@/server/errors';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { listQueryString, type SearchParams } from '../list-query';
import { DateRangeFields, ListTable } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import { readSubscriptionsQuery, type SubscriptionsQuery } from './query';
import { subscriptionColumns } from './status';

const PAGE_SIZE = 25;

function Filters({ base, form }: { base: string; form: SubscriptionsQuery['form'] }) {
  return (
    <form method="get" action={`${base}/subscriptions`} className="dash-filters" role="search">
      <div className="dash-field dash-field-wide">
        <label htmlFor="subscriptions-customer">Customer</label>
        <input id="subscriptions-customer" name="customer" type="search" defaultValue={form.customer} placeholder="cus_… or e-mail" maxLength={254} />
      </div>
      <div className="dash-field">
        <label htmlFor="subscriptions-status">Status</label>
        <select id="subscriptions-status" name="status" defaultValue={form.status || 'all'}>
          <option value="all">all</option>
          {SUBSCRIPTION_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <DateRangeFields idPrefix="subscriptions" from={form.from} to={form.to} />
      <button type="submit">Apply</button>
    </form>
  );
}

/** The store's subscriptions of one mode, newest first, 25 a page, filtered by the query string. */
export async function SubscriptionsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/subscriptions');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const query = readSubscriptionsQuery(searchParams);
  const startingAfter = typeof searchParams.starting_after === 'string' ? searchParams.starting_after : undefined;
  const page = query.problem
    ? undefined
    : await listSubscriptionPage(db, { storeId: current.storeId, livemode: mode === 'live' }, { ...query.filters, limit: PAGE_SIZE, starting_after: startingAfter }).catch((error: unknown) => {
        // A cursor of another store, mode or list: the page does not exist.
        if (error instanceof ApiError && error.code === 'resource_missing') notFound();
        throw error;
      });
  const filtered = Object.values(query.form).some((value) => value !== '' && value !== 'all');
  return (
    <DashboardShell access={access} mode={mode} path="/subscriptions">
      <section className="dash-card">
        <div className="dash-heading">
          <h1>Subscriptions</h1>
          {can(current.role, 'export') && page && (
            <a className="dash-button-link" href={`${base}/subscriptions.csv${listQueryString(query.form)}`}>
              Export CSV
            </a>
          )}
        </div>
        <Filters base={base} form={query.form} />
        {query.problem && (
          <p role="alert" className="dash-alert">
            {query.problem}
          </p>
        )}
        {page && page.data.length === 0 && <p className="dash-muted">{filtered || startingAfter ? 'No subscriptions match these filters.' : 'No subscriptions yet.'}</p>}
        {page && page.data.length > 0 && <ListTable columns={subscriptionColumns(base, { withCustomer: true })} rows={page.data} />}
        {page?.hasMore && (
          <p className="dash-pager">
            <a href={`${base}/subscriptions${listQueryString(query.form, { starting_after: page.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
