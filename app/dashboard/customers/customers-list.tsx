import { notFound, redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { getCustomer } from '@/server/customers/service';
import { listCustomerPage, type CustomerPage } from '@/server/dashboard/customers';
import { ApiError } from '@/server/errors';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { utcTime } from '../format';
import { listQueryString, type SearchParams } from '../list-query';
import { DateRangeFields } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import { readCustomersQuery, type CustomersQuery } from './query';
import '../subscriptions/subscriptions.css';
import './customers.css';

const PAGE_SIZE = 25;

const isMissing = (error: unknown) => error instanceof ApiError && error.code === 'resource_missing';

/** Notices after an action that ends on the list. */
const LIST_MESSAGES: Record<string, string> = {
  customer_missing: 'That customer does not exist or was already deleted.',
};

function Filters({ base, form }: { base: string; form: CustomersQuery['form'] }) {
  return (
    <form method="get" action={`${base}/customers`} className="dash-filters" role="search">
      <div className="dash-field dash-field-wide">
        <label htmlFor="customers-q">Search</label>
        <input id="customers-q" name="q" type="search" defaultValue={form.q} placeholder="cus_… or e-mail" maxLength={254} />
      </div>
      <DateRangeFields idPrefix="customers" from={form.from} to={form.to} />
      <button type="submit">Apply</button>
    </form>
  );
}

function CustomersTable({ base, page }: { base: string; page: CustomerPage }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col">Created</th>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
          </tr>
        </thead>
        <tbody>
          {page.data.map((customer) => (
            <tr key={customer.id}>
              <td data-label="Customer">
                <a href={`${base}/customers/${customer.id}`} className="dash-mono">
                  {customer.id}
                </a>
              </td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(customer.created)}
              </td>
              <td data-label="Email">{customer.email}</td>
              <td data-label="Name">{customer.name ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The store's customers of one mode (deleted ones left out), newest first, 25 a page, filtered by the query string. */
export async function CustomersPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/customers');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const query = readCustomersQuery(searchParams);
  let problem = query.problem;
  if (query.customerId) {
    const found = await getCustomer(db, scope, query.customerId).then(
      (customer) => customer.id,
      (error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      },
    );
    if (found) redirect(`${base}/customers/${found}`);
    problem = 'No customer found';
  }
  const startingAfter = typeof searchParams.starting_after === 'string' ? searchParams.starting_after : undefined;
  const page = problem
    ? undefined
    : await listCustomerPage(db, scope, { ...query.filters, limit: PAGE_SIZE, starting_after: startingAfter }).catch((error: unknown) => {
        // A cursor of another store, mode or list: the page does not exist.
        if (isMissing(error)) notFound();
        throw error;
      });
  const notice = typeof searchParams.error === 'string' ? LIST_MESSAGES[searchParams.error] : undefined;
  const deleted = typeof searchParams.deleted === 'string' ? searchParams.deleted : undefined;
  const filtered = Object.values(query.form).some((value) => value !== '');
  return (
    <DashboardShell access={access} mode={mode} path="/customers">
      <section className="dash-card">
        <div className="dash-heading">
          <h1>Customers</h1>
          {can(current.role, 'export') && page && (
            <a className="dash-button-link" href={`${base}/customers.csv${listQueryString(query.form)}`}>
              Export CSV
            </a>
          )}
        </div>
        {deleted && (
          <p role="status" className="dash-notice">
            Customer <span className="dash-mono">{deleted}</span> deleted; their portal links are revoked.
          </p>
        )}
        <Filters base={base} form={query.form} />
        {(problem ?? notice) && (
          <p role="alert" className="dash-alert">
            {problem ?? notice}
          </p>
        )}
        {page && page.data.length === 0 && <p className="dash-muted">{filtered || startingAfter ? 'No customers match these filters.' : 'No customers yet.'}</p>}
        {page && page.data.length > 0 && <CustomersTable base={base} page={page} />}
        {page?.hasMore && (
          <p className="dash-pager">
            <a href={`${base}/customers${listQueryString(query.form, { starting_after: page.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
