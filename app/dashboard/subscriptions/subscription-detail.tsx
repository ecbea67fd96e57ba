import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { subscriptionDetail, type SubscriptionDetail } from '@/server/dashboard/subscriptions';
import { ApiError } from '@/server/errors';
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_VALUE_LENGTH } from '@/server/kit/metadata';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { money, utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { CANCEL_REASON_MAX } from './actions';
import { ENDED_STATUSES, SubscriptionSummary } from './summary';

/** The actions' errors, by the code they send back. */
const MESSAGES: Record<string, string> = {
  reason: `The reason may be at most ${CANCEL_REASON_MAX} characters.`,
  pending: 'The first payment of this subscription is still being confirmed. Cancel again in a moment.',
  gateway: 'The payment gateway did not confirm the cancel of the recurring contract. Nothing changed; cancel again.',
  missing: 'This subscription no longer exists.',
  metadata: `Metadata: at most ${METADATA_MAX_KEYS} keys, each 1–${METADATA_MAX_KEY_LENGTH} characters and used once, with values of at most ${METADATA_MAX_VALUE_LENGTH} characters.`,
};

/** Blank rows the metadata form offers for new keys. */
const BLANK_ROWS = 2;

function Attempts({ detail, base }: { detail: SubscriptionDetail; base: string }) {
  if (detail.attempts.length === 0) return <p className="dash-muted">No payment attempts yet.</p>;
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Payment</th>
            <th scope="col">Date</th>
            <th scope="col" className="dash-num">
              Amount
            </th>
            <th scope="col">Status</th>
            <th scope="col">Failure reason</th>
            <th scope="col">Card</th>
            <th scope="col">Order</th>
          </tr>
        </thead>
        <tbody>
          {detail.attempts.map((attempt) => (
            <tr key={attempt.id}>
              <td data-label="Payment">
                {/* A trial's card check comes before payment 1 and moves no money. */}
                {attempt.cycle === 0 ? 'Card check (trial)' : attempt.cycle}
                {attempt.attempt > 0 && <span className="dash-muted"> (retry {attempt.attempt})</span>}
              </td>
              <td className="dash-nowrap" data-label="Date">
                {utcTime(attempt.settled_at ?? attempt.created)}
              </td>
              <td className="dash-num" data-label="Amount">
                {money(attempt.amount)}
              </td>
              <td data-label="Status">
                <span className="dash-status" data-status={attempt.status}>
                  {attempt.status}
                </span>
              </td>
              <td data-label="Failure reason">{attempt.failure_code ?? '—'}</td>
              <td className="dash-nowrap" data-label="Card">
                {attempt.card ? `${attempt.card.brand} •••• ${attempt.card.last4}` : '—'}
              </td>
              <td data-label="Order">
                {attempt.order_id ? (
                  <a href={`${base}/orders/${attempt.order_id}`} className="dash-mono dash-wrap">
                    {attempt.order_id}
                  </a>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Metadata({ detail, mode, mayChange }: { detail: SubscriptionDetail; mode: DashboardMode; mayChange: boolean }) {
  const entries = Object.entries(detail.subscription.metadata);
  if (!mayChange) {
    if (entries.length === 0) return <p className="dash-muted">No metadata.</p>;
    return (
      <dl className="dash-facts">
        {entries.map(([key, value]) => (
          <div key={key}>
            <dt className="dash-mono">{key}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    );
  }
  const rows = [...entries, ...Array.from({ length: Math.min(BLANK_ROWS, METADATA_MAX_KEYS - entries.length) }, (): [string, string] => ['', ''])];
  return (
    <ActionForm action="update-subscription-metadata" mode={mode} className="dash-form dash-metadata-form" label="Metadata">
      <input type="hidden" name="subscription_id" value={detail.subscription.id} />
      <p className="dash-muted">Clear a row to remove its key.</p>
      {rows.map(([key, value], index) => (
        <div className="dash-metadata-row" key={index}>
          <input name="metadata_key" aria-label={`Key ${index + 1}`} defaultValue={key} maxLength={METADATA_MAX_KEY_LENGTH} placeholder="key" />
          <input name="metadata_value" aria-label={`Value ${index + 1}`} defaultValue={value} maxLength={METADATA_MAX_VALUE_LENGTH} placeholder="value" />
        </div>
      ))}
      <button type="submit">Save metadata</button>
    </ActionForm>
  );
}

function CancelForm({ detail, mode }: { detail: SubscriptionDetail; mode: DashboardMode }) {
  return (
    <ActionForm action="cancel-subscription" mode={mode} className="dash-form dash-action-form" label="Cancel subscription">
      <input type="hidden" name="subscription_id" value={detail.subscription.id} />
      <label htmlFor="cancel-reason">Reason</label>
      <textarea id="cancel-reason" name="reason" maxLength={CANCEL_REASON_MAX} rows={3} />
      <p className="dash-muted">Effective now: no further charge, no proration.</p>
      <button type="submit" className="dash-danger">
        Cancel subscription
      </button>
    </ActionForm>
  );
}

/** One subscription of the store and mode; anything else is this page's 404. */
export async function SubscriptionPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/subscriptions');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const { error, updated } = await searchParams;
  const { db } = await getAppServices();
  const detail = await subscriptionDetail(db, { storeId: current.storeId, livemode: mode === 'live' }, id).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.code === 'resource_missing') notFound();
    throw failure;
  });
  const mayChange = can(current.role, 'refund');
  const message = typeof error === 'string' ? MESSAGES[error] : undefined;
  const base = dashboardBase(mode);
  return (
    <DashboardShell access={access} mode={mode} path="/subscriptions">
      <p className="dash-back">
        <a href={`${base}/subscriptions`}>← Subscriptions</a>
      </p>
      <section className="dash-card">
        <h1 className="dash-mono">{detail.subscription.id}</h1>
        <SubscriptionSummary base={base} detail={detail} />
        {message && (
          <p role="alert" className="dash-alert dash-alert-below">
            {message}
          </p>
        )}
      </section>
      <section className="dash-card" aria-labelledby="subscription-attempts">
        <h2 id="subscription-attempts">Payment attempts</h2>
        <Attempts detail={detail} base={base} />
      </section>
      <section className="dash-card" aria-labelledby="subscription-metadata">
        <h2 id="subscription-metadata">Metadata</h2>
        {updated === 'metadata' && (
          <p role="status" className="dash-notice">
            Metadata saved.
          </p>
        )}
        <Metadata detail={detail} mode={mode} mayChange={mayChange} />
      </section>
      {mayChange && !ENDED_STATUSES.has(detail.subscription.status) && (
        <section className="dash-card" aria-labelledby="subscription-cancel">
          <h2 id="subscription-cancel">Cancel subscription</h2>
          <CancelForm detail={detail} mode={mode} />
        </section>
      )}
    </DashboardShell>
  );
}
