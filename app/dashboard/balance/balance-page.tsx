import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { BALANCE_TRANSACTION_TYPES, type PayoutSchedule } from '@/db/schema';
import { getAppServices } from '@/server/app';
import type { Balance } from '@/server/balance/schemas';
import { listBalanceTransactions, storeBalance } from '@/server/balance/service';
import { scopeClock } from '@/server/dashboard/service';
import { ApiError } from '@/server/errors';
import { balanceInsufficientError, listPayouts, payoutsHeldError } from '@/server/payouts/service';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { money, utcTime } from '../format';
import { listQueryString, queryText, type SearchParams } from '../list-query';
import { DateRangeFields, ListTable } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import { entryColumns, payoutColumns } from './columns';
import { readBalanceTransactionsQuery, type BalanceTransactionsQuery } from './query';
import { FactList } from '../card';

const ENTRIES_PAGE_SIZE = 25;
const PAYOUTS_PAGE_SIZE = 10;

const SCHEDULES: Record<PayoutSchedule, string> = { weekly: 'Weekly, Mondays 00:00 UTC', monthly: 'Monthly, the 1st 00:00 UTC', manual: 'Manual: only when you pay out' };

/** What each hold means for the merchant. */
const HOLDS: Record<NonNullable<Balance['payout_hold']>['reason'], string> = {
  account_suspended: 'The store is suspended.',
  destination_missing: 'No bank account is saved for this mode: add one in Settings.',
  payout_failed: 'A payout failed: save the bank account again (or a new one) in Settings.',
  destination_changed: 'The bank account changed: payouts wait 7 days from the change.',
};

const isMissing = (error: unknown) => error instanceof ApiError && error.code === 'resource_missing';

/** The Pay out now form's alert: a refusal in the payout service's own words, for the balance as it stands now. */
function payoutMessage(error: string, balance: Balance, minimum: number): string | undefined {
  if (error === 'balance_insufficient') return balanceInsufficientError(balance.available, minimum).message;
  if (error === 'payouts_held') return balance.payout_hold ? payoutsHeldError(balance.payout_hold).message : 'Payouts were held. Try again.';
  if (error === 'confirm') return 'Tick “I confirm this live payout” to pay out in live mode.';
  if (error === 'form_expired') return 'This form has expired: reload the page and pay out again.';
  return undefined;
}

function Summary({ balance }: { balance: Balance }) {
  const hold = balance.payout_hold;
  const facts: [string, ReactNode][] = [
    ['Payout schedule', SCHEDULES[balance.payout_schedule]],
    ['Next payout', balance.next_payout_at === null ? '—' : utcTime(balance.next_payout_at)],
    [
      'Payout hold',
      hold ? (
        <>
          {HOLDS[hold.reason]} <span className="dash-mono dash-muted">({hold.reason})</span>
          <span className="dash-block">{hold.until === null ? 'Until its cause is removed' : `Until ${utcTime(hold.until)}`}</span>
        </>
      ) : (
        'None'
      ),
    ],
  ];
  return (
    <>
      <dl className="dash-figures dash-balance-figures">
        <div className="dash-figure">
          <dt>Available</dt>
          <dd>{money(balance.available)}</dd>
        </div>
        <div className="dash-figure">
          <dt>Pending</dt>
          <dd>{money(balance.pending)}</dd>
        </div>
      </dl>
      <FactList rows={facts} />
    </>
  );
}

function PayoutForm({ mode, minimum }: { mode: DashboardMode; minimum: number }) {
  return (
    <ActionForm action="payout" mode={mode} idempotent className="dash-form dash-payout-form" label="Pay out">
      <p className="dash-muted">Pays out the whole available balance now, whatever the schedule: at least {money(minimum)}.</p>
      {mode === 'live' && (
        <label className="dash-check">
          <input type="checkbox" name="confirm" value="yes" required /> I confirm this live payout
        </label>
      )}
      <button type="submit">Pay out now</button>
    </ActionForm>
  );
}

function Filters({ base, form }: { base: string; form: BalanceTransactionsQuery['form'] }) {
  return (
    <form method="get" action={`${base}/balance`} className="dash-filters dash-entry-filters" role="search" aria-label="Filter balance transactions">
      <div className="dash-field">
        <label htmlFor="entries-type">Type</label>
        <select id="entries-type" name="type" defaultValue={form.type || 'all'}>
          <option value="all">all</option>
          {BALANCE_TRANSACTION_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div className="dash-field dash-field-wide">
        <label htmlFor="entries-payout">Payout</label>
        <input id="entries-payout" name="payout" defaultValue={form.payout} placeholder="po_…" maxLength={80} />
      </div>
      <div className="dash-field dash-field-wide">
        <label htmlFor="entries-source">Source</label>
        <input id="entries-source" name="source" defaultValue={form.source} placeholder="ord_…, re_…, po_…" maxLength={80} />
      </div>
      <DateRangeFields idPrefix="entries" from={form.from} to={form.to} />
      <button type="submit">Apply</button>
    </form>
  );
}

/**
 * The store's money in one mode: the balance and its hold, the schedule, Pay out now, the payouts
 * (10 a page) and the balance transactions (25 a page, filtered by the query string).
 */
export async function BalancePage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/balance', 'balance');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const deps = { db: services.db, clock: await scopeClock(services, scope) };
  const query = readBalanceTransactionsQuery(searchParams);
  const startingAfter = queryText(searchParams, 'starting_after') || undefined;
  const payoutsAfter = queryText(searchParams, 'payouts_after') || undefined;
  // A cursor of another store, mode or list: the page does not exist.
  const orNotFound = (error: unknown): never => {
    if (isMissing(error)) notFound();
    throw error;
  };
  const [balance, payouts, entries] = await Promise.all([
    storeBalance(deps, scope),
    listPayouts(services.db, scope, { limit: PAYOUTS_PAGE_SIZE, starting_after: payoutsAfter }).catch(orNotFound),
    query.problem ? undefined : listBalanceTransactions(deps, scope, { ...query.filters, limit: ENTRIES_PAGE_SIZE, starting_after: startingAfter }).catch(orNotFound),
  ]);
  const minimum = services.config.ledger.payoutMinimum;
  const error = queryText(searchParams, 'error');
  const message = error === '' ? undefined : payoutMessage(error, balance, minimum);
  const filtered = Object.values(query.form).some((value) => value !== '' && value !== 'all');
  return (
    <DashboardShell access={access} mode={mode} path="/balance">
      <section className="dash-card" aria-labelledby="balance-title">
        <h1 id="balance-title">Balance</h1>
        <Summary balance={balance} />
        {message && (
          <p role="alert" className="dash-alert dash-payout-alert">
            {message}
          </p>
        )}
        <PayoutForm mode={mode} minimum={minimum} />
      </section>
      <section className="dash-card" aria-labelledby="balance-payouts">
        <h2 id="balance-payouts">Payouts</h2>
        {payouts.data.length === 0 ? <p className="dash-muted">{payoutsAfter ? 'No more payouts.' : 'No payouts yet.'}</p> : <ListTable columns={payoutColumns(base)} rows={payouts.data} />}
        {payouts.has_more && (
          <p className="dash-pager">
            <a href={`${base}/balance${listQueryString(query.form, { payouts_after: payouts.data.at(-1)!.id })}`}>More payouts</a>
          </p>
        )}
      </section>
      <section className="dash-card" aria-labelledby="balance-entries">
        <div className="dash-heading">
          <h2 id="balance-entries">Balance transactions</h2>
          {entries && (
            <a className="dash-button-link" href={`${base}/balance_transactions.csv${listQueryString(query.form)}`}>
              Download CSV
            </a>
          )}
        </div>
        <Filters base={base} form={query.form} />
        {query.problem && (
          <p role="alert" className="dash-alert">
            {query.problem}
          </p>
        )}
        {entries && entries.data.length === 0 && <p className="dash-muted">{filtered || startingAfter ? 'No balance transactions match these filters.' : 'No balance transactions yet.'}</p>}
        {entries && entries.data.length > 0 && <ListTable columns={entryColumns(base, { withPayout: true })} rows={entries.data} />}
        {entries?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/balance${listQueryString(query.form, { starting_after: entries.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
