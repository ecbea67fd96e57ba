import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { listEventsInput, type EventList } from '@/server/events/schemas';
import { listEvents } from '@/server/events/service';
import { EVENT_TYPES } from '@/server/webhooks/events';
import { dashboardBase, type DashboardMode } from '../access';
import { utcTime } from '../format';
import { createdDays, listQueryString, queryText, type SearchParams } from '../list-query';
import { DateRangeFields } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import '../developer-pages.css';

const PAGE_SIZE = 25;

/** Every prefix filter the API takes (`checkout.*`, `checkout.session.*`, …), then every type. */
const TYPE_CHOICES = [
  ...new Set(
    EVENT_TYPES.flatMap((type) =>
      type
        .split('.')
        .slice(0, -1)
        .map((_, index, parts) => `${parts.slice(0, index + 1).join('.')}.*`),
    ),
  ),
  ...EVENT_TYPES,
];

/** The list's query string: `type` (a type or a prefix), `object_id`, `from` and `to` (whole UTC days), `starting_after`. */
function readEventsQuery(params: SearchParams) {
  const form = { type: queryText(params, 'type'), object_id: queryText(params, 'object_id'), from: queryText(params, 'from'), to: queryText(params, 'to') };
  const created = createdDays(form.from, form.to);
  if (!created) return { form, problem: 'Dates are days, YYYY-MM-DD.' };
  const parsed = listEventsInput.safeParse({
    limit: PAGE_SIZE,
    type: form.type === '' || form.type === 'all' ? undefined : form.type,
    object_id: form.object_id || undefined,
    ...created,
    starting_after: queryText(params, 'starting_after') || undefined,
  });
  if (!parsed.success) return { form, problem: parsed.error.issues[0]?.path[0] === 'type' ? 'Choose a type from the list.' : 'Dates are days from 1970 on.' };
  return { form, query: parsed.data };
}

function Filters({ base, form }: { base: string; form: ReturnType<typeof readEventsQuery>['form'] }) {
  return (
    <form method="get" action={`${base}/events`} className="dash-filters" role="search">
      <div className="dash-field dash-field-wide">
        <label htmlFor="events-type">Type</label>
        <select id="events-type" name="type" defaultValue={form.type || 'all'}>
          <option value="all">all</option>
          {TYPE_CHOICES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div className="dash-field dash-field-wide">
        <label htmlFor="events-object">Object id</label>
        <input id="events-object" name="object_id" type="search" defaultValue={form.object_id} placeholder="prod_…, ord_…" maxLength={100} />
      </div>
      <DateRangeFields idPrefix="events" from={form.from} to={form.to} />
      <button type="submit">Apply</button>
    </form>
  );
}

function EventsTable({ base, list }: { base: string; list: EventList }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Type</th>
            <th scope="col">Object</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((event) => (
            <tr key={event.id}>
              <td data-label="Event">
                <a href={`${base}/events/${event.id}`} className="dash-mono">
                  {event.id}
                </a>
              </td>
              <td data-label="Type" className="dash-mono">
                {event.type}
              </td>
              <td data-label="Object" className="dash-mono">
                {event.data.object.id}
              </td>
              <td data-label="Created">{utcTime(event.created)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The store's event log of one mode, newest recorded first, 25 a page, filtered by the query string. */
export async function EventsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/events');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const { form, query, problem } = readEventsQuery(searchParams);
  const list = query
    ? await listEvents(db, { storeId: current.storeId, livemode: mode === 'live' }, query).catch((error: unknown) => {
        // A cursor of another store, mode or list: the page does not exist.
        if (error instanceof ApiError && error.code === 'resource_missing') notFound();
        throw error;
      })
    : undefined;
  const filtered = Object.values(form).some((value) => value !== '' && value !== 'all');
  return (
    <DashboardShell access={access} mode={mode} path="/events">
      <section className="dash-card">
        <h1>Events</h1>
        <Filters base={base} form={form} />
        {problem && (
          <p role="alert" className="dash-alert">
            {problem}
          </p>
        )}
        {list && list.data.length === 0 && <p className="dash-muted">{filtered || searchParams.starting_after ? 'No events match these filters.' : 'No events yet.'}</p>}
        {list && list.data.length > 0 && <EventsTable base={base} list={list} />}
        {list?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/events${listQueryString(form, { starting_after: list.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
