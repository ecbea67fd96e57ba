import { notFound } from 'next/navigation';
import { SUBSCRIPTION_STATUSES } from '@/db/schema';
import { getAppServices } from '@/server/app';
import { listSubscriptionPage, type SubscriptionPage } from '@/server/dashboard/subscriptions';
import { ApiError } from '@/server/errors';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { utcTime } from '../format';
import { listQueryString, type SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { readSubscriptionsQuery, type SubscriptionsQuery } from './query';
import { SubscriptionStatus, subscriptionPrice } from './status';

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
      <div className="dash-field">
        <label htmlFor="subscriptions-from">From</label>
        <input id="subscriptions-from" name="from" type="date" defaultValue={form.from} />
      </div>
      <div className="dash-field">
        <label htmlFor="subscriptions-to">To</label>
        <input id="subscriptions-to" name="to" type="date" defaultValue={form.to} />
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

function SubscriptionsTable({ base, page }: { base: string; page: SubscriptionPage }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Subscription</th>
            <th scope="col">Created</th>
            <th scope="col">Customer</th>
            <th scope="col">Status</th>
            <th scope="col" className="dash-num">
              Price
            </th>
          </tr>
        </thead>
        <tbody>
          {page.data.map((subscription) => (
            <tr key={subscription.id}>
              <td data-label="Subscription">
                <a href={`${base}/subscriptions/${subscription.id}`} className="dash-mono">
                  {subscription.id}
                </a>
              </td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(subscription.created)}
              </td>
              <td data-label="Customer">{subscription.customer_email}</td>
              <td data-label="Status">
                <SubscriptionStatus status={subscription.status} />
              </td>
              <td className="dash-num" data-label="Price">
                {subscriptionPrice(subscription)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
        {page && page.data.length > 0 && <SubscriptionsTable base={base} page={page} />}
        {page?.hasMore && (
          <p className="dash-pager">
            <a href={`${base}/subscriptions${listQueryString(query.form, { starting_after: page.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
