import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { WEBHOOK_DELIVERY_STATUSES } from '@/db/schema';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { can } from '@/server/users/roles';
import { listDeliveriesInput, type WebhookDelivery, type WebhookDeliveryList, type WebhookEndpoint } from '@/server/webhooks/schemas';
import { getEndpoint, listDeliveries } from '@/server/webhooks/service';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import { queryText, type SearchParams } from '../list-query';
import { takeRevealed } from '../reveal';
import { DashboardShell, storePage } from '../shell';
import { endpointState, EndpointFields, WEBHOOK_MESSAGES } from './endpoint-form';
import '../developer-pages.css';
import { FactList } from '../card';

const PAGE_SIZE = 25;

const SAVED: Record<string, string> = {
  updated: 'Endpoint saved.',
  disabled: 'Endpoint disabled: deliveries wait, pending, until it is enabled.',
  enabled: 'Endpoint enabled.',
  resent: 'Event resent: a new delivery is in the log.',
};

/** How long the replaced secret keeps signing after a roll (the API's `expires_in`, in seconds). */
const OVERLAPS: [string, number][] = [
  ['Now', 0],
  ['In 1 hour', 3_600],
  ['In 24 hours', 86_400],
  ['In 7 days', 604_800],
];

function Summary({ endpoint }: { endpoint: WebhookEndpoint }) {
  const rows: [string, ReactNode][] = [
    ['URL', <span className="dash-mono">{endpoint.url}</span>],
    ['Status', endpointState(endpoint)],
    ['Events', endpoint.events === null ? 'all' : endpoint.events.join(', ')],
    ['Created', utcTime(endpoint.created)],
    ['Previous secret signs until', endpoint.previous_secret_expires_at === null ? '—' : utcTime(endpoint.previous_secret_expires_at)],
  ];
  return <FactList rows={rows} />;
}

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempt_log.length === 0) return <span className="dash-muted">none yet</span>;
  return (
    <ol className="dash-attempts">
      {delivery.attempt_log.map((attempt) => (
        <li key={attempt.attempt}>
          {utcTime(attempt.attempted_at)}: {attempt.response_status === null ? 'no response' : `HTTP ${attempt.response_status}`}
          {attempt.error && ` (${attempt.error})`}, {attempt.duration_ms} ms
        </li>
      ))}
    </ol>
  );
}

function ResendForm({ mode, endpoint, delivery }: { mode: DashboardMode; endpoint: WebhookEndpoint; delivery: WebhookDelivery }) {
  return (
    <ActionForm action="event-resend" mode={mode} idempotent className="dash-inline-form" label={`Resend ${delivery.event_id}`}>
      <input type="hidden" name="event_id" value={delivery.event_id} />
      <input type="hidden" name="endpoint_id" value={endpoint.id} />
      <input type="hidden" name="delivery_id" value={delivery.id} />
      {delivery.status === 'succeeded' && (
        <label>
          <input type="checkbox" name="confirm" value="yes" required /> Resend although delivered
        </label>
      )}
      <button type="submit">Resend</button>
    </ActionForm>
  );
}

function Deliveries({ base, mode, endpoint, list, resendable }: { base: string; mode: DashboardMode; endpoint: WebhookEndpoint; list: WebhookDeliveryList; resendable: boolean }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack dash-deliveries">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Attempts</th>
            {resendable && <th scope="col">Resend</th>}
          </tr>
        </thead>
        <tbody>
          {list.data.map((delivery) => (
            <tr key={delivery.id} data-delivery={delivery.id}>
              <td data-label="Event">
                <span className="dash-mono">{delivery.event_type}</span>
                <a href={`${base}/events/${delivery.event_id}`} className="dash-mono dash-block">
                  {delivery.event_id}
                </a>
              </td>
              <td data-label="Status">
                <span className="dash-status" data-status={delivery.status}>
                  {delivery.status}
                </span>
              </td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(delivery.created)}
              </td>
              <td data-label="Attempts">
                <Attempts delivery={delivery} />
              </td>
              {resendable && (
                <td data-label="Resend">
                  <ResendForm mode={mode} endpoint={endpoint} delivery={delivery} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One endpoint of the store and mode with its delivery log; anything else is this page's 404. */
export async function WebhookPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/webhooks');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const query = await searchParams;
  const base = dashboardBase(mode);
  const services = await getAppServices();
  const { db } = services;
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const isMissing = (failure: unknown) => failure instanceof ApiError && failure.code === 'resource_missing';
  const endpoint = await getEndpoint(db, scope, id).catch((failure: unknown) => {
    if (isMissing(failure)) notFound();
    throw failure;
  });
  const developer = can(current.role, 'developer');
  // Only a person who may manage the endpoint is shown the secret their own action made.
  const secret = developer ? await takeRevealed('webhook_secret', access.userId) : undefined;
  const filters = { status: queryText(query, 'status'), event_id: queryText(query, 'event_id') };
  const parsed = listDeliveriesInput.safeParse({
    id: endpoint.id,
    limit: PAGE_SIZE,
    status: filters.status === '' || filters.status === 'all' ? undefined : filters.status,
    event_id: filters.event_id || undefined,
    starting_after: queryText(query, 'starting_after') || undefined,
  });
  const deliveries = parsed.success
    ? await listDeliveries(db, scope, endpoint.id, parsed.data).catch((failure: unknown) => {
        if (isMissing(failure)) notFound();
        throw failure;
      })
    : undefined;
  const error = queryText(query, 'error');
  const saved = SAVED[queryText(query, 'saved')];
  const nextQuery = (cursor: string) => `?${new URLSearchParams(Object.entries({ ...filters, starting_after: cursor }).filter(([, value]) => value !== '' && value !== 'all')).toString()}`;
  return (
    <DashboardShell access={access} mode={mode} path="/webhooks">
      <p className="dash-back">
        <a href={`${base}/webhooks`}>← Webhooks</a>
      </p>
      <section className="dash-card">
        <h1 className="dash-mono">{endpoint.id}</h1>
        {secret && (
          <div role="status" className="dash-notice">
            <p>
              <strong>Signing secret</strong>: copy it now, it is shown only this once.
            </p>
            <code className="dash-secret dash-mono" data-secret>
              {secret}
            </code>
          </div>
        )}
        {saved && (
          <p className="dash-notice" role="status">
            {saved}
          </p>
        )}
        {error && (
          <p role="alert" className="dash-alert">
            {WEBHOOK_MESSAGES[error] ?? 'The endpoint could not be changed.'}
          </p>
        )}
        <Summary endpoint={endpoint} />
      </section>
      {developer && (
        <section className="dash-card" aria-labelledby="endpoint-edit">
          <h2 id="endpoint-edit">Edit</h2>
          <ActionForm action="webhook-update" mode={mode} className="dash-form" label="Edit endpoint">
            <input type="hidden" name="endpoint_id" value={endpoint.id} />
            <EndpointFields endpoint={endpoint} />
            <button type="submit" className="dash-narrow">
              Save endpoint
            </button>
          </ActionForm>
          <ActionForm action="webhook-disable" mode={mode} className="dash-form dash-narrow" label={endpoint.disabled ? 'Enable endpoint' : 'Disable endpoint'}>
            <input type="hidden" name="endpoint_id" value={endpoint.id} />
            <input type="hidden" name="disabled" value={endpoint.disabled ? 'false' : 'true'} />
            <button type="submit" className="dash-secondary">
              {endpoint.disabled ? 'Enable endpoint' : 'Disable endpoint'}
            </button>
          </ActionForm>
        </section>
      )}
      {developer && (
        <section className="dash-card" aria-labelledby="endpoint-roll">
          <h2 id="endpoint-roll">Signing secret</h2>
          <p className="dash-muted">A new secret signs every delivery from now on; it is shown once. The old one also signs until it expires.</p>
          <ActionForm action="webhook-roll-secret" mode={mode} className="dash-form dash-narrow" label="Roll secret">
            <input type="hidden" name="endpoint_id" value={endpoint.id} />
            <label htmlFor="roll-expires">Old secret expires</label>
            <select id="roll-expires" name="expires_in" defaultValue="86400">
              {OVERLAPS.map(([label, seconds]) => (
                <option key={seconds} value={seconds}>
                  {label}
                </option>
              ))}
            </select>
            <button type="submit">Roll secret</button>
          </ActionForm>
        </section>
      )}
      <section className="dash-card" aria-labelledby="endpoint-deliveries">
        <h2 id="endpoint-deliveries">Deliveries</h2>
        <form method="get" action={`${base}/webhooks/${endpoint.id}`} className="dash-filters" role="search">
          <div className="dash-field">
            <label htmlFor="deliveries-status">Status</label>
            <select id="deliveries-status" name="status" defaultValue={filters.status || 'all'}>
              <option value="all">all</option>
              {WEBHOOK_DELIVERY_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </div>
          <div className="dash-field dash-field-wide">
            <label htmlFor="deliveries-event">Event id</label>
            <input id="deliveries-event" name="event_id" type="search" defaultValue={filters.event_id} placeholder="evt_…" maxLength={80} />
          </div>
          <button type="submit">Apply</button>
        </form>
        {!deliveries && (
          <p role="alert" className="dash-alert">
            Choose a status from the list; an event id reads evt_test_… or evt_live_….
          </p>
        )}
        {deliveries && deliveries.data.length === 0 && <p className="dash-muted">No deliveries match.</p>}
        {deliveries && deliveries.data.length > 0 && <Deliveries base={base} mode={mode} endpoint={endpoint} list={deliveries} resendable={developer && !endpoint.disabled} />}
        {deliveries?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/webhooks/${endpoint.id}${nextQuery(deliveries.data.at(-1)!.id)}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
