import { SignedOutCard } from '../card';
import { requireDashboard } from '../access';
import { utcTime } from '../format';
import { acceptInvitationAction, declineInvitationAction } from './actions';
import '../developer-pages.css';

export const dynamic = 'force-dynamic';

const MESSAGES: Record<string, string> = {
  gone: 'That invitation is no longer there: it was withdrawn or answered already.',
};

/** The signed-in person's pending invitations, each accepted or declined by them alone. */
export default async function InvitationsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireDashboard('read');
  const { error, done } = await searchParams;
  const message = typeof error === 'string' && Object.hasOwn(MESSAGES, error) ? MESSAGES[error] : undefined;
  return (
    <SignedOutCard title="Invitations">
      <p>
        Signed in as <strong>{access.email}</strong>.
      </p>
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      {done === 'declined' && <p role="status">The invitation is declined.</p>}
      {access.invitations.length === 0 ? (
        <p>No invitation is waiting for you.</p>
      ) : (
        <ul className="dash-invitation-list">
          {access.invitations.map((invitation) => (
            <li key={invitation.storeId} data-store-id={invitation.storeId}>
              <p>
                <strong>{invitation.storeName}</strong> invites you as {invitation.role}.<span className="dash-muted dash-block">Invited {utcTime(invitation.invited)}</span>
              </p>
              <div className="dash-invitation-answers">
                <form action={acceptInvitationAction} className="dash-form">
                  <input type="hidden" name="store" value={invitation.storeId} />
                  <button type="submit" aria-label={`Accept the invitation to ${invitation.storeName}`}>
                    Accept
                  </button>
                </form>
                <form action={declineInvitationAction} className="dash-form">
                  <input type="hidden" name="store" value={invitation.storeId} />
                  <button type="submit" className="dash-secondary" aria-label={`Decline the invitation to ${invitation.storeName}`}>
                    Decline
                  </button>
                </form>
              </div>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
    </SignedOutCard>
  );
}
