import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { listAuditEntries, type AuditEntryView, type AuditFilters } from '@/server/dashboard/audit';
import { ApiError } from '@/server/errors';
import { dashboardBase, type DashboardMode } from '../access';
import { utcTime } from '../format';
import { createdDays, listQueryString, queryText, type SearchParams } from '../list-query';
import { DateRangeFields } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import './audit.css';

const PAGE_SIZE = 50;
interface AuditQuery {
  /** What the form shows back. */
  form: { action: string; actor: string; from: string; to: string };
  filters: Omit<AuditFilters, 'limit' | 'startingAfter'>;
  problem?: string;
}

/** `action` (exact, or a prefix ending in `.`), `actor` (a key hint or `user:<email>`), `from` and `to` (whole UTC days). */
function readAuditQuery(params: SearchParams): AuditQuery {
  const form = { action: queryText(params, 'action'), actor: queryText(params, 'actor'), from: queryText(params, 'from'), to: queryText(params, 'to') };
  const created = createdDays(form.from, form.to);
  // E-mails are kept lower-cased; a key's hint is compared as typed.
  const actor = form.actor.toLowerCase().startsWith('user:') ? form.actor.toLowerCase() : form.actor;
  let problem: string | undefined;
  if (form.action !== '' && !/^[A-Za-z0-9_.-]{1,100}$/.test(form.action)) problem = 'An action is like refund.create, or refund. for every refund action.';
  if (form.actor.length > 300) problem = 'Who is an API key’s hint (sk_test_…abcd) or user:<email>.';
  if (!created) problem = 'Dates are days, YYYY-MM-DD.';
  return {
    form,
    filters: { action: form.action || undefined, actor: actor || undefined, createdGte: created?.created_gte, createdLte: created?.created_lte },
    problem,
  };
}

function Filters({ base, form }: { base: string; form: AuditQuery['form'] }) {
  return (
    <form method="get" action={`${base}/audit`} className="dash-filters" role="search">
      <div className="dash-field">
        <label htmlFor="audit-action">Action</label>
        <input id="audit-action" name="action" defaultValue={form.action} placeholder="refund. or refund.create" maxLength={100} />
      </div>
      <div className="dash-field dash-field-wide">
        <label htmlFor="audit-actor">Who</label>
        <input id="audit-actor" name="actor" defaultValue={form.actor} placeholder="user:<email> or sk_test_…abcd" maxLength={300} />
      </div>
      <DateRangeFields idPrefix="audit" from={form.from} to={form.to} />
      <button type="submit">Apply</button>
    </form>
  );
}

const modeName = (livemode: boolean | null) => (livemode === null ? 'both' : livemode ? 'live' : 'test');

function AuditTable({ entries }: { entries: AuditEntryView[] }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack audit-table">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Action</th>
            <th scope="col">Who</th>
            <th scope="col">Mode</th>
            <th scope="col">Request</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className="dash-nowrap" data-label="Time">
                {utcTime(entry.created)}
              </td>
              <td data-label="Action">
                <div>
                  <span className="dash-mono">{entry.action}</span>
                  {entry.code && <span className="dash-muted dash-block">{entry.code}</span>}
                </div>
              </td>
              <td data-label="Who" className="audit-who">
                {entry.who ?? '—'}
              </td>
              <td data-label="Mode">{modeName(entry.livemode)}</td>
              <td data-label="Request" className="audit-request">
                <div>
                  {entry.method ?? ''} <span className="dash-mono audit-path">{entry.path ?? ''}</span>
                  {entry.ip && <span className="dash-muted dash-block">{entry.ip}</span>}
                </div>
              </td>
              <td data-label="Details" className="audit-details">
                {entry.details && Object.keys(entry.details).length > 0 ? <code>{JSON.stringify(entry.details)}</code> : '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The store's audit trail seen from one mode: that mode's entries and the store-wide ones (mode
 * "both"), newest first, 50 a page, filtered by the query string.
 */
export async function AuditPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/audit');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const query = readAuditQuery(searchParams);
  const cursor = queryText(searchParams, 'starting_after');
  if (cursor !== '' && !/^\d{1,15}$/.test(cursor)) notFound();
  const { db } = await getAppServices();
  const list = query.problem
    ? undefined
    : await listAuditEntries(db, { storeId: current.storeId, livemode: mode === 'live' }, { ...query.filters, startingAfter: cursor === '' ? undefined : Number(cursor), limit: PAGE_SIZE }).catch(
        (error: unknown) => {
          // A cursor of another store: the page does not exist.
          if (error instanceof ApiError && error.code === 'resource_missing') notFound();
          throw error;
        },
      );
  const filtered = Object.values(query.form).some((value) => value !== '');
  return (
    <DashboardShell access={access} mode={mode} path="/audit">
      <section className="dash-card">
        <h1>Audit log</h1>
        <Filters base={base} form={query.form} />
        {query.problem && (
          <p role="alert" className="dash-alert">
            {query.problem}
          </p>
        )}
        {list && list.data.length === 0 && <p className="dash-muted">{filtered || cursor ? 'No entries match these filters.' : 'No entries yet.'}</p>}
        {list && list.data.length > 0 && <AuditTable entries={list.data} />}
        {list?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/audit${listQueryString(query.form, { starting_after: String(list.data.at(-1)!.id) })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
