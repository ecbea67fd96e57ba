import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { can } from '@/server/users/roles';
import type { WebhookEndpointList } from '@/server/webhooks/schemas';
import { listEndpoints } from '@/server/webhooks/service';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { endpointState, EndpointFields, WEBHOOK_MESSAGES } from './endpoint-form';
import '../developer-pages.css';

const PAGE_SIZE = 25;

function EndpointsTable({ base, list }: { base: string; list: WebhookEndpointList }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((endpoint) => (
            <tr key={endpoint.id}>
              <td data-label="URL">
                <a href={`${base}/webhooks/${endpoint.id}`} className="dash-mono">
                  {endpoint.url}
                </a>
              </td>
              <td data-label="Events">{endpoint.events === null ? 'all' : endpoint.events.join(', ')}</td>
              <td data-label="Status">{endpointState(endpoint)}</td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(endpoint.created)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The store's webhook endpoints of one mode, newest first; and, for the `developer` right, the create form. */
export async function WebhooksPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/webhooks');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const startingAfter = typeof searchParams.starting_after === 'string' && searchParams.starting_after !== '' ? searchParams.starting_after : undefined;
  const list = await listEndpoints(db, { storeId: current.storeId, livemode: mode === 'live' }, { limit: PAGE_SIZE, starting_after: startingAfter }).catch((error: unknown) => {
    // A cursor of another store, mode or list: the page does not exist.
    if (error instanceof ApiError && error.code === 'resource_missing') notFound();
    throw error;
  });
  const error = typeof searchParams.error === 'string' ? searchParams.error : undefined;
  return (
    <DashboardShell access={access} mode={mode} path="/webhooks">
      <section className="dash-card">
        <h1>Webhooks</h1>
        {list.data.length === 0 && <p className="dash-muted">{startingAfter ? 'No more endpoints.' : 'No webhook endpoints yet.'}</p>}
        {list.data.length > 0 && <EndpointsTable base={base} list={list} />}
        {list.has_more && (
          <p className="dash-pager">
            <a href={`${base}/webhooks?starting_after=${encodeURIComponent(list.data.at(-1)!.id)}`}>Next page</a>
          </p>
        )}
      </section>
      {can(current.role, 'developer') && (
        <section className="dash-card" aria-labelledby="endpoint-create">
          <h2 id="endpoint-create">New endpoint</h2>
          {error && (
            <p role="alert" className="dash-alert">
              {WEBHOOK_MESSAGES[error] ?? 'The endpoint could not be created.'}
            </p>
          )}
          <ActionForm action="webhook-create" mode={mode} idempotent className="dash-form" label="New endpoint">
            <EndpointFields />
            <button type="submit" className="dash-narrow">
              Create endpoint
            </button>
          </ActionForm>
        </section>
      )}
    </DashboardShell>
  );
}
