import { DOCUMENT_LANGUAGES, MEMBER_ROLES, PAYOUT_SCHEDULES, type DocumentLanguage, type MemberRole, type PayoutSchedule } from '@/db/schema';
import { getAppServices } from '@/server/app';
import { payoutScheduleOf } from '@/server/balance/service';
import { MAX_ACCOUNT_HOLDER_LENGTH, payoutDestination, TEST_MODE_IBAN, type PayoutDestination } from '@/server/bank-accounts/service';
import { parseInvitationShown, type InvitationShown } from '@/server/dashboard/settings';
import { ibanLast4 } from '@/server/kit/iban';
import { MAX_STORE_NAME_LENGTH, storeLanguage } from '@/server/stores/service';
import { can } from '@/server/users/roles';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, type StoreMembership } from '@/server/users/service';
import { listTeam, type TeamMember } from '@/server/users/team';
import { twoFactorEnabled } from '@/server/users/two-factor';
import type { DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { passwordMessage } from '../password-messages';
import { takeRevealed } from '../reveal';
import { DashboardShell, storePage } from '../shell';
import { TwoFactorSettings } from './two-factor';
import './settings.css';

/** The refusals of the settings actions, by the code they send back. */
const ERRORS: Record<string, string> = {
  name_invalid: `Give the store a name of 1 to ${MAX_STORE_NAME_LENGTH} characters.`,
  role_invalid: 'Choose a role from the list.',
  email_invalid: 'Give a valid e-mail address.',
  already_member: 'That person is already a member of this store, or invited to it.',
  rate_limited: 'Too many invitations for now: wait an hour and try again.',
  not_member: 'That person is not a member of this store (any more).',
  not_allowed: 'Only owners and admins change the team.',
  owner_only: 'Only an owner may invite, change or remove an owner, or make someone owner.',
  last_owner: 'A store keeps at least one owner: make someone else owner first.',
  own_role: 'You cannot change your own role: ask another owner or admin.',
  wrong_password: 'The current password is not right.',
  iban: 'The IBAN is not valid: it needs the code of a SEPA country, that country’s number of characters and check digits that match. Copy it from your bank’s documents.',
  account_holder: `Give the account holder’s name, 1 to ${MAX_ACCOUNT_HOLDER_LENGTH} characters.`,
  bank_account_code_required: 'Enter a current authentication code from your app to save the live bank account.',
  bank_account_invalid_code: 'The authentication code is not right. Enter the current code from your app.',
  bank_account_rate_limited: 'Too many attempts. Wait a few minutes and try again.',
  payout_schedule_invalid: 'Choose Weekly, Monthly or Manual.',
  language_invalid: 'Choose English or Deutsch.',
};

const DONE: Record<string, string> = {
  renamed: 'The store is renamed.',
  invited: 'The invitation is made.',
  role_changed: 'The role is changed.',
  removed: 'The member is removed: their access to this store has ended.',
  password_changed: 'Your password is changed and your other sessions have ended.',
  bank_account_saved: 'The bank account is saved, and every owner is told by e-mail.',
  payout_schedule_changed: 'The payout schedule is changed.',
  language_changed: 'The language is changed.',
};

const SCHEDULE_LABELS: Record<PayoutSchedule, string> = { weekly: 'Weekly', monthly: 'Monthly', manual: 'Manual' };
const LANGUAGE_LABELS: Record<DocumentLanguage, string> = { en: 'English', de: 'Deutsch' };

const lookUp = (messages: Record<string, string>, code: unknown) => (typeof code === 'string' && Object.hasOwn(messages, code) ? messages[code] : undefined);

/** The roles this person may give: only an owner makes someone owner. */
const assignableRoles = (actorRole: MemberRole) => MEMBER_ROLES.filter((role) => role !== 'owner' || actorRole === 'owner');

function StoreSection({ membership, mode }: { membership: StoreMembership; mode: DashboardMode }) {
  return (
    <section className="dash-card" aria-labelledby="settings-store">
      <h2 id="settings-store">Store</h2>
      {can(membership.role, 'settings') ? (
        <ActionForm action="store-rename" mode={mode} className="dash-form settings-form">
          <label htmlFor="store-name">Store name</label>
          <input id="store-name" name="name" defaultValue={membership.storeName} required maxLength={MAX_STORE_NAME_LENGTH} />
          <button type="submit">Rename</button>
        </ActionForm>
      ) : (
        <p>{membership.storeName}</p>
      )}
      <p className="dash-muted">
        Store id <span className="dash-mono">{membership.storeId}</span>
      </p>
    </section>
  );
}

/**
 * The language of the members' e-mails and payout statements; owners and admins change it. The
 * section is no named region: the name is its select's label alone.
 */
function LanguageSection({ language, mode, mayChange }: { language: DocumentLanguage; mode: DashboardMode; mayChange: boolean }) {
  return (
    <section className="dash-card" data-testid="settings-language">
      <h2>Language</h2>
      <p className="dash-muted">The store’s members get their e-mails and payout statements in it.</p>
      {mayChange ? (
        <ActionForm action="store-language" mode={mode} className="dash-form settings-form">
          <label htmlFor="store-language">Language</label>
          <select id="store-language" name="language" defaultValue={language}>
            {DOCUMENT_LANGUAGES.map((code) => (
              <option key={code} value={code}>
                {LANGUAGE_LABELS[code]}
              </option>
            ))}
          </select>
          <button type="submit">Save language</button>
        </ActionForm>
      ) : (
        <p>{LANGUAGE_LABELS[language]}</p>
      )}
    </section>
  );
}

/** When this mode's payouts are made; shown to owners and admins, who change it (its name is its select's label alone). */
function PayoutScheduleSection({ schedule, mode }: { schedule: PayoutSchedule; mode: DashboardMode }) {
  return (
    <section className="dash-card" data-testid="settings-payout-schedule">
      <h2>Payout schedule</h2>
      <p className="dash-muted">{mode === 'live' ? 'Live' : 'Test'} mode: weekly on Mondays, monthly on the 1st (00:00 UTC), or only when you pay out by hand.</p>
      <ActionForm action="payout-schedule" mode={mode} className="dash-form settings-form">
        <label htmlFor="payout-schedule">Payout schedule</label>
        <select id="payout-schedule" name="payout_schedule" defaultValue={schedule}>
          {PAYOUT_SCHEDULES.map((value) => (
            <option key={value} value={value}>
              {SCHEDULE_LABELS[value]}
            </option>
          ))}
        </select>
        <button type="submit">Save payout schedule</button>
      </ActionForm>
    </section>
  );
}

/**
 * Where this mode's payouts go, shown by the IBAN's last four only; owners alone see and save it,
 * in live mode with a fresh authentication code.
 */
function BankAccountSection({ destination, mode, hasTwoFactor }: { destination: PayoutDestination | undefined; mode: DashboardMode; hasTwoFactor: boolean }) {
  const askCode = mode === 'live' && hasTwoFactor;
  return (
    <section className="dash-card" aria-labelledby="settings-bank-account">
      <h2 id="settings-bank-account">Bank account</h2>
      {destination ? (
        <p data-testid="bank-account">
          Payouts go to <span className="dash-mono">•••• {ibanLast4(destination.iban)}</span>, {destination.accountHolder}
          {mode === 'test' && destination.iban === TEST_MODE_IBAN && <span className="dash-muted dash-block">The test account every store’s test mode starts with.</span>}
        </p>
      ) : (
        <p data-testid="bank-account">No bank account yet: live payouts are held until one is saved.</p>
      )}
      <p className="dash-muted">A new IBAN or account holder holds payouts for 7 days, and every owner is told by e-mail.</p>
      {mode === 'live' && !hasTwoFactor ? (
        <p className="dash-muted">Owners save the live bank account with two-factor on: turn it on below.</p>
      ) : (
        <ActionForm action="bank-account-save" mode={mode} className="dash-form settings-form" label="Bank account">
          <label htmlFor="bank-iban">IBAN</label>
          <input id="bank-iban" name="iban" required maxLength={64} autoComplete="off" spellCheck={false} />
          <label htmlFor="bank-holder">Account holder</label>
          <input id="bank-holder" name="account_holder" required maxLength={MAX_ACCOUNT_HOLDER_LENGTH} defaultValue={destination?.accountHolder} autoComplete="off" />
          {askCode && (
            <>
              <label htmlFor="bank-code">Authentication code</label>
              <input id="bank-code" name="code" type="text" autoComplete="one-time-code" required maxLength={32} />
            </>
          )}
          <button type="submit">Save bank account</button>
        </ActionForm>
      )}
    </section>
  );
}

/** A member's row: the forms appear only where the rules let this person act. */
function MemberRow({ member, actor, mode }: { member: TeamMember; actor: { userId: string; role: MemberRole }; mode: DashboardMode }) {
  const mayChange = can(actor.role, 'settings') && member.userId !== actor.userId && (member.role !== 'owner' || actor.role === 'owner');
  return (
    <tr data-user-id={member.userId}>
      <td data-label="Member">
        <div>
          {member.email}
          {member.userId === actor.userId && <span className="dash-muted"> (you)</span>}
          {member.pending && <span className="dash-muted dash-block">invitation pending</span>}
        </div>
      </td>
      <td data-label="Role">
        {mayChange ? (
          <ActionForm action="team-role" mode={mode} className="settings-inline">
            <input type="hidden" name="user_id" value={member.userId} />
            <select name="role" defaultValue={member.role} aria-label={`Role of ${member.email}`}>
              {assignableRoles(actor.role).map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
            <button type="submit">Change role</button>
          </ActionForm>
        ) : (
          member.role
        )}
      </td>
      <td className="dash-nowrap" data-label="Joined">
        {utcTime(member.joined)}
      </td>
      <td data-label="">
        {mayChange && (
          <ActionForm action="team-remove" mode={mode} className="settings-inline">
            <input type="hidden" name="user_id" value={member.userId} />
            <button type="submit" className="settings-danger" aria-label={`Remove ${member.email}`}>
              Remove
            </button>
          </ActionForm>
        )}
      </td>
    </tr>
  );
}

/** How the new invitation reaches its person; a link that sets a password is never shown here. */
function InvitationNotice({ invitation: { email, role, delivery } }: { invitation: InvitationShown }) {
  const who = (
    <>
      <strong>{email}</strong> ({role})
    </>
  );
  const joins = 'They join the store once they accept it, signed in as themselves.';
  return (
    <div className="dash-notice" role="status" data-delivery={delivery}>
      {delivery === 'link_mailed' && (
        <p>
          An invitation is e-mailed to {who}, with a link to set their password. {joins} If the link expires (after 24 hours), they can use “Forgot password?” on the sign-in page.
        </p>
      )}
      {delivery === 'link_not_sent' && (
        <>
          <p>
            {who} is invited, but this service sends no e-mail (SMTP_URL is not set), so the link that sets their password has not reached them, and it is never shown here. The operator must hand them
            a link:
          </p>
          <p className="dash-mono settings-command">npm run admin -- user:reset --email {email}</p>
          <p>{joins}</p>
        </>
      )}
      {delivery === 'notice_mailed' && (
        <p>
          {who} already has an account and is told by e-mail. {joins}
        </p>
      )}
      {delivery === 'awaiting_sign_in' && (
        <p>
          {who} already has an account: the invitation waits for them when they next sign in. {joins}
        </p>
      )}
    </div>
  );
}

function TeamSection({ team, actor, mode, invitation }: { team: TeamMember[]; actor: { userId: string; role: MemberRole }; mode: DashboardMode; invitation: InvitationShown | undefined }) {
  return (
    <section className="dash-card" aria-labelledby="settings-team">
      <h2 id="settings-team">Team</h2>
      <div className="dash-table-wrap">
        <table className="dash-table dash-table-stack">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="settings-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {team.map((member) => (
              <MemberRow key={member.userId} member={member} actor={actor} mode={mode} />
            ))}
          </tbody>
        </table>
      </div>
      {invitation && <InvitationNotice invitation={invitation} />}
      {can(actor.role, 'settings') && (
        <ActionForm action="team-invite" mode={mode} className="dash-form settings-form" label="Invite a member">
          <h3>Invite a member</h3>
          <label htmlFor="invite-email">Email</label>
          <input id="invite-email" name="email" type="email" required maxLength={254} autoComplete="off" />
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" name="role" defaultValue="viewer">
            {assignableRoles(actor.role).map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
          <button type="submit">Invite</button>
        </ActionForm>
      )}
    </section>
  );
}

function AccountSection({ email, mode }: { email: string; mode: DashboardMode }) {
  return (
    <section className="dash-card" aria-labelledby="settings-account">
      <h2 id="settings-account">Account</h2>
      <p>
        Signed in as <strong>{email}</strong>.
      </p>
      <ActionForm action="password-change" mode={mode} className="dash-form settings-form" label="Change password">
        <h3>Change password</h3>
        <input type="text" name="username" value={email} autoComplete="username" readOnly hidden />
        <label htmlFor="current-password">Current password</label>
        <input id="current-password" name="current_password" type="password" autoComplete="current-password" required maxLength={MAX_PASSWORD_LENGTH} />
        <label htmlFor="new-password">New password</label>
        <input id="new-password" name="password" type="password" autoComplete="new-password" required maxLength={MAX_PASSWORD_LENGTH} />
        <label htmlFor="confirm-password">Confirm password</label>
        <input id="confirm-password" name="confirmation" type="password" autoComplete="new-password" required maxLength={MAX_PASSWORD_LENGTH} />
        <p className="dash-muted">At least {MIN_PASSWORD_LENGTH} characters. Your other sessions end; this one continues.</p>
        <button type="submit">Change password</button>
      </ActionForm>
      <ActionForm action="sign-out-everywhere" mode={mode} className="dash-form settings-form" label="Sign out everywhere">
        <h3>Sessions</h3>
        <p className="dash-muted">Ends every session of yours at once, in every browser, this one included.</p>
        <button type="submit">Sign out everywhere</button>
      </ActionForm>
    </section>
  );
}

/**
 * Settings: the store's name, language and team (owners and admins change them; everyone sees
 * them), the payout schedule of the mode (owners and admins), where its payouts go (owners) and
 * the person's own account (anyone, for themselves).
 */
export async function SettingsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/settings');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const mayChangeSettings = can(current.role, 'settings');
  const ownsBankAccount = can(current.role, 'bankAccount');
  const [team, language, schedule, destination, hasTwoFactor] = await Promise.all([
    listTeam(services.db, current.storeId),
    storeLanguage(services.db, current.storeId),
    mayChangeSettings ? payoutScheduleOf(services.db, scope) : undefined,
    ownsBankAccount ? payoutDestination(services.db, scope, current.storeName) : undefined,
    twoFactorEnabled(services.db, access.userId),
  ]);
  const revealed = await takeRevealed('invitation', access.userId);
  const shown = revealed === undefined ? undefined : parseInvitationShown(revealed);
  // An invitation made in another store (the switcher used meanwhile) is not this page's to show.
  const invitation = shown?.storeId === current.storeId ? shown : undefined;
  const error = lookUp(ERRORS, searchParams.error) ?? (typeof searchParams.error === 'string' ? passwordMessage(searchParams.error) : undefined);
  const done = lookUp(DONE, searchParams.done);
  return (
    <DashboardShell access={access} mode={mode} path="/settings">
      <h1 className="settings-title">Settings</h1>
      {error && (
        <p role="alert" className="dash-alert">
          {error}
        </p>
      )}
      {done && !error && (
        <p role="status" className="settings-done">
          {done}
        </p>
      )}
      <StoreSection membership={current} mode={mode} />
      <LanguageSection language={language} mode={mode} mayChange={mayChangeSettings} />
      {schedule && <PayoutScheduleSection schedule={schedule} mode={mode} />}
      {ownsBankAccount && <BankAccountSection destination={destination} mode={mode} hasTwoFactor={hasTwoFactor} />}
      <TeamSection team={team} actor={{ userId: access.userId, role: current.role }} mode={mode} invitation={invitation} />
      <AccountSection email={access.email} mode={mode} />
      <TwoFactorSettings access={access} mode={mode} error={typeof searchParams.error === 'string' ? searchParams.error : undefined} />
    </DashboardShell>
  );
}
