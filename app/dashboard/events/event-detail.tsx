import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { getEvent } from '@/server/events/service';
import { can } from '@/server/users/roles';
import { listEndpoints } from '@/server/webhooks/service';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { WEBHOOK_MESSAGES } from '../webhooks/endpoint-form';
import '../developer-pages.css';
import { FactList } from '../card';

/** The endpoints a resend may choose from: the store's limit of endpoints fits one page. */
const ENDPOINT_CHOICES = 100;

/**
 * One event of the store and mode, its payload as delivered, and a resend to a chosen endpoint; to
 * an endpoint that already received the event, the form comes back asking to confirm.
 */
export async function EventPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/events');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const { error, saved, endpoint_id: chosen } = await searchParams;
  const { db } = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const event = await getEvent(db, scope, id).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.code === 'resource_missing') notFound();
    throw failure;
  });
  const developer = can(current.role, 'developer');
  const endpoints = developer ? (await listEndpoints(db, scope, { limit: ENDPOINT_CHOICES })).data.filter((endpoint) => !endpoint.disabled) : [];
  const rows: [string, ReactNode][] = [
    ['Type', <span className="dash-mono">{event.type}</span>],
    ['Created', utcTime(event.created)],
    ['Object', <span className="dash-mono">{event.data.object.id}</span>],
    ['Sequence', String(event.sequence)],
    ['Mode', event.livemode ? 'live' : 'test'],
  ];
  const base = dashboardBase(mode);
  return (
    <DashboardShell access={access} mode={mode} path="/events">
      <p className="dash-back">
        <a href={`${base}/events`}>← Events</a>
      </p>
      <section className="dash-card">
        <h1 className="dash-mono">{event.id}</h1>
        <FactList rows={rows} />
      </section>
      <section className="dash-card" aria-labelledby="event-payload">
        <h2 id="event-payload">Payload</h2>
        <pre className="dash-payload dash-mono" data-payload>
          {JSON.stringify(event, null, 2)}
        </pre>
      </section>
      {developer && (
        <section className="dash-card" aria-labelledby="event-resend">
          <h2 id="event-resend">Resend</h2>
          {saved === 'resent' && (
            <p className="dash-notice" role="status">
              Event resent: a new delivery is in the endpoint’s log.
            </p>
          )}
          {typeof error === 'string' && (
            <p role="alert" className="dash-alert">
              {WEBHOOK_MESSAGES[error] ?? 'The event could not be resent.'}
            </p>
          )}
          {endpoints.length === 0 ? (
            <p className="dash-muted">
              No enabled endpoint in this mode: <a href={`${base}/webhooks`}>add one</a>.
            </p>
          ) : (
            <ActionForm action="event-resend" mode={mode} idempotent className="dash-form dash-narrow" label="Resend event">
              <input type="hidden" name="event_id" value={event.id} />
              <label htmlFor="resend-endpoint">Endpoint</label>
              <select id="resend-endpoint" name="endpoint_id" required defaultValue={typeof chosen === 'string' ? chosen : undefined}>
                {endpoints.map((endpoint) => (
                  <option key={endpoint.id} value={endpoint.id}>
                    {endpoint.url}
                  </option>
                ))}
              </select>
              {error === 'confirm_resend_received' && (
                <label className="dash-check">
                  <input type="checkbox" name="confirm" value="yes" required /> Resend although delivered
                </label>
              )}
              <button type="submit">Resend event</button>
            </ActionForm>
          )}
        </section>
      )}
    </DashboardShell>
  );
}
