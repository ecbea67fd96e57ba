import type { ReactNode } from 'react';
import type { MemberRole } from '@/db/schema';
import { EVIDENCE_MAX_LENGTH, type Dispute, type EvidenceField } from '@/server/disputes/schemas';
import { disputeView, evidenceLockedError, noEvidenceError, type DisputeRow } from '@/server/disputes/service';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { FactList } from '../card';
import { money, utcTime } from '../format';
import { DisputeStatus, REASON_LABELS, RespondBy } from './status';
import '../developer-pages.css';

/** The evidence fields as the form labels them, each with what belongs in it. */
const EVIDENCE_LABELS: readonly { field: EvidenceField; label: string; hint: string }[] = [
  { field: 'customer_communication', label: 'Customer communication', hint: 'Messages between you and the customer about this purchase.' },
  { field: 'product_description', label: 'Product description', hint: 'What you sold, and how and when it was delivered.' },
  { field: 'uncategorized_text', label: 'Additional information', hint: 'Anything else the card network should weigh.' },
];

const CONFIRMATION = 'I confirm this evidence is complete: it cannot be changed after submitting';

const SAVED: Record<string, string> = {
  evidence_saved: 'Evidence saved. Submit it before the deadline; what is saved then is submitted for you.',
  evidence_submitted: 'Evidence submitted: the dispute is under review.',
};

/** The evidence form's alert for the `?error=` its action sent back; `locked` is the dispute service's reason it can no longer change, if so. */
function evidenceMessage(error: string, locked: string | undefined): string | undefined {
  if (error === 'dispute_not_editable') return locked;
  if (error === 'evidence_missing') return noEvidenceError().message;
  if (error === 'confirm_submit') return `Tick “${CONFIRMATION}” to submit the evidence.`;
  if (error === 'evidence_too_long') return `Each evidence field holds at most ${EVIDENCE_MAX_LENGTH.toLocaleString('en')} characters.`;
  if (error === 'dispute_missing') return 'This dispute is not one of this store’s in this mode.';
  return undefined;
}

function Summary({ dispute }: { dispute: Dispute }) {
  const rows: [string, ReactNode][] = [
    [
      'Status',
      <>
        <DisputeStatus status={dispute.status} />
        <RespondBy dispute={dispute} />
      </>,
    ],
    ['Reason', REASON_LABELS[dispute.reason]],
    ['Amount', money(dispute.amount)],
    ['Opened', utcTime(dispute.created)],
    ['Evidence submitted', dispute.evidence_submitted_at === null ? '—' : utcTime(dispute.evidence_submitted_at)],
    ['Dispute', <span className="dash-mono">{dispute.id}</span>],
  ];
  return <FactList rows={rows} />;
}

/** The evidence form: the three fields as saved, Save evidence, and Submit evidence behind its confirmation. */
function EvidenceForm({ dispute, mode }: { dispute: Dispute; mode: DashboardMode }) {
  return (
    <ActionForm action="dispute-evidence" mode={mode} className="dash-form dash-evidence-form" label="Dispute evidence">
      <h3>Evidence</h3>
      <input type="hidden" name="dispute_id" value={dispute.id} />
      <input type="hidden" name="order_id" value={dispute.order_id} />
      {EVIDENCE_LABELS.map(({ field, label, hint }) => (
        <div key={field} className="dash-evidence-field">
          <label htmlFor={`evidence-${field}`}>{label}</label>
          <p id={`evidence-${field}-hint`} className="dash-muted">
            {hint}
          </p>
          <textarea id={`evidence-${field}`} name={field} rows={5} maxLength={EVIDENCE_MAX_LENGTH} defaultValue={dispute.evidence[field] ?? ''} aria-describedby={`evidence-${field}-hint`} />
        </div>
      ))}
      <label className="dash-check">
        <input type="checkbox" name="confirm" value="yes" required /> {CONFIRMATION}
      </label>
      <div className="dash-evidence-buttons">
        {/* Saving needs no confirmation: the box is checked only for submitting. */}
        <button type="submit" name="intent" value="save" className="dash-secondary" formNoValidate>
          Save evidence
        </button>
        <button type="submit" name="intent" value="submit">
          Submit evidence
        </button>
      </div>
    </ActionForm>
  );
}

/** The evidence as it stands, for those who may not change it or once it can no longer change. */
function EvidenceText({ dispute }: { dispute: Dispute }) {
  return (
    <div className="dash-evidence">
      <h3>Evidence</h3>
      <dl>
        {EVIDENCE_LABELS.map(({ field, label }) => (
          <div key={field}>
            <dt>{label}</dt>
            <dd>{dispute.evidence[field] ?? '—'}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/**
 * The order's dispute: its facts and deadline, and for the roles that answer disputes the
 * evidence pack and the evidence form, the form only while the dispute service would take a save
 * at `now` (the store's clock); the evidence read-only otherwise. `error` and `saved` are the
 * page's query, as the form's action sent it back.
 */
export function DisputeSection({ row, now, role, mode, error, saved }: { row: DisputeRow; now: Date; role: MemberRole; mode: DashboardMode; error: string; saved: string }) {
  const dispute = disputeView(row);
  const respond = can(role, 'disputes');
  const locked = evidenceLockedError(row, now)?.message;
  const message = error === '' ? undefined : evidenceMessage(error, locked);
  const notice = Object.hasOwn(SAVED, saved) ? SAVED[saved] : undefined;
  return (
    <section className="dash-card" aria-labelledby="order-dispute">
      <div className="dash-heading dash-dispute-heading">
        <h2 id="order-dispute">Dispute</h2>
        {respond && (
          <a className="dash-button-link" href={`${dashboardBase(mode)}/disputes/${dispute.id}/evidence.pdf`}>
            Download evidence pack
          </a>
        )}
      </div>
      {notice && (
        <p className="dash-notice" role="status">
          {notice}
        </p>
      )}
      <Summary dispute={dispute} />
      {message && (
        <p role="alert" className="dash-alert dash-evidence-alert">
          {message}
        </p>
      )}
      {respond && locked === undefined ? <EvidenceForm dispute={dispute} mode={mode} /> : <EvidenceText dispute={dispute} />}
    </section>
  );
}
