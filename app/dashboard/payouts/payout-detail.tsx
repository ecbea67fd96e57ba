import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { scopeClock } from '@/server/dashboard/service';
import { ApiError } from '@/server/errors';
import type { Payout } from '@/server/payouts/schemas';
import { getPayout, listPayoutBalanceTransactions } from '@/server/payouts/service';
import { dashboardBase, type DashboardMode } from '../access';
import { entryColumns, Status } from '../balance/columns';
import { money, utcTime } from '../format';
import { listQueryString, queryText, type SearchParams } from '../list-query';
import { ListTable } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import { FactList } from '../card';

const ENTRIES_PAGE_SIZE = 25;

const FAILURE_REASONS: Record<NonNullable<Payout['failure_reason']>, string> = {
  account_closed: 'The account is closed',
  invalid_account: 'The account does not exist',
  name_mismatch: 'The account holder’s name does not match',
  bank_rejected: 'The bank rejected the transfer',
};

function Summary({ payout }: { payout: Payout }) {
  const facts: [string, ReactNode][] = [
    ['Amount', money(payout.amount)],
    ['Status', <Status status={payout.status} />],
    ['Failure reason', payout.failure_reason ? `${FAILURE_REASONS[payout.failure_reason]} (${payout.failure_reason})` : '—'],
    ['Created', utcTime(payout.created)],
    ['Arrival date', payout.arrival_date === null ? 'Not sent yet' : utcTime(payout.arrival_date)],
    ['Destination', `•••• ${payout.destination.iban_last4} · ${payout.destination.account_holder}`],
  ];
  return <FactList rows={facts} />;
}

/** One payout of the store and mode, with the entries it settled; anything else is this page's 404. */
export async function PayoutPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/balance', 'balance');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const search = await searchParams;
  const base = dashboardBase(mode);
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const startingAfter = queryText(search, 'starting_after') || undefined;
  const orNotFound = (error: unknown): never => {
    // An id or cursor of another store, mode or payout.
    if (error instanceof ApiError && error.code === 'resource_missing') notFound();
    throw error;
  };
  const payout = await getPayout(services.db, scope, id).catch(orNotFound);
  const entries = await listPayoutBalanceTransactions({ db: services.db, clock: await scopeClock(services, scope) }, scope, { id, limit: ENTRIES_PAGE_SIZE, starting_after: startingAfter }).catch(
    orNotFound,
  );
  return (
    <DashboardShell access={access} mode={mode} path="/balance">
      <p className="dash-back">
        <a href={`${base}/balance`}>← Balance</a>
      </p>
      <section className="dash-card">
        <div className="dash-heading dash-payout-heading">
          <h1 className="dash-mono">{payout.id}</h1>
          {payout.status === 'paid' && (
            <a className="dash-button-link" href={`${base}/payouts/${payout.id}/statement.pdf`}>
              Download statement
            </a>
          )}
        </div>
        {queryText(search, 'saved') === 'created' && (
          <p className="dash-notice" role="status">
            Payout made: {money(payout.amount)} to •••• {payout.destination.iban_last4}.
          </p>
        )}
        <Summary payout={payout} />
      </section>
      <section className="dash-card" aria-labelledby="payout-entries">
        <h2 id="payout-entries">Balance transactions settled</h2>
        <p className="dash-muted">They sum to the payout’s amount.</p>
        <ListTable columns={entryColumns(base, { withPayout: false })} rows={entries.data} />
        {entries.has_more && (
          <p className="dash-pager">
            <a href={`${base}/payouts/${payout.id}${listQueryString({ starting_after: entries.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
