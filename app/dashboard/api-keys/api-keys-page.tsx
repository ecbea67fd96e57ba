import { getAppServices } from '@/server/app';
import { epochSeconds } from '@/server/clock';
import { listApiKeys, ROLL_GRACE_SECONDS, type ApiKeyListing } from '@/server/keys/service';
import { can } from '@/server/users/roles';
import { twoFactorEnabled } from '@/server/users/two-factor';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import { takeRevealed } from '../reveal';
import { DashboardShell, storePage } from '../shell';
import './api-keys.css';

const MESSAGES: Record<string, string> = {
  code_required: 'Enter a current authentication code from your app to change live-mode keys.',
  invalid_code: 'The authentication code is not right. Enter the current code from your app.',
  rate_limited: 'Too many attempts. Wait a few minutes and try again.',
  kind: 'Choose a secret or a publishable key.',
  expires_in: 'Choose when the old key stops working.',
  confirm: 'Tick the box to confirm revoking the key.',
  not_active: 'That key is no longer active: it was revoked or rolled meanwhile.',
};

const ROLL_LABELS: Record<(typeof ROLL_GRACE_SECONDS)[number], string> = { 0: 'now', 3600: 'in 1 hour', 86400: 'in 24 hours', 604800: 'in 7 days' };

function keyStatus(key: ApiKeyListing, now: Date): { label: string; active: boolean; rolled: boolean } {
  if (key.revokedAt) return { label: 'revoked', active: false, rolled: false };
  if (key.expiresAt && key.expiresAt <= now) return { label: 'expired', active: false, rolled: false };
  if (key.expiresAt) return { label: `expires ${utcTime(epochSeconds(key.expiresAt))}`, active: true, rolled: true };
  return { label: 'active', active: true, rolled: false };
}

function CodeField({ id, askCode }: { id: string; askCode: boolean }) {
  if (!askCode) return null;
  return (
    <>
      <label htmlFor={id}>Authentication code</label>
      <input id={id} name="code" type="text" autoComplete="one-time-code" required maxLength={32} />
    </>
  );
}

function KeyActions({ apiKey, mode, askCode, rolled }: { apiKey: ApiKeyListing; mode: DashboardMode; askCode: boolean; rolled: boolean }) {
  return (
    <details className="keys-actions">
      <summary>{rolled ? 'Revoke' : 'Roll or revoke'}</summary>
      {!rolled && (
        <ActionForm action="api-key-roll" mode={mode} className="dash-form keys-form" label={`Roll ${apiKey.hint}`}>
          <input type="hidden" name="key_id" value={apiKey.id} />
          <label htmlFor={`roll-${apiKey.id}`}>Old key stops working</label>
          <select id={`roll-${apiKey.id}`} name="expires_in" defaultValue="3600">
            {ROLL_GRACE_SECONDS.map((seconds) => (
              <option key={seconds} value={seconds}>
                {ROLL_LABELS[seconds]}
              </option>
            ))}
          </select>
          <CodeField id={`roll-code-${apiKey.id}`} askCode={askCode} />
          <button type="submit">Roll key</button>
        </ActionForm>
      )}
      <ActionForm action="api-key-revoke" mode={mode} className="dash-form keys-form" label={`Revoke ${apiKey.hint}`}>
        <input type="hidden" name="key_id" value={apiKey.id} />
        <label className="dash-check">
          <input type="checkbox" name="confirm" value="yes" required /> I confirm revoking this key: it stops working at once
        </label>
        <CodeField id={`revoke-code-${apiKey.id}`} askCode={askCode} />
        <button type="submit" className="keys-danger">
          Revoke key
        </button>
      </ActionForm>
    </details>
  );
}

/** The store's API keys of one mode by hint; developers and up create, roll and revoke them (live secret keys: owners and admins). */
export async function ApiKeysPage({ mode, searchParams }: { mode: DashboardMode; searchParams: Record<string, string | string[] | undefined> }) {
  const entry = await storePage(mode, '/api-keys');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const [keys, revealed, hasTwoFactor] = await Promise.all([listApiKeys(services.db, scope), takeRevealed('api_key', access.userId), twoFactorEnabled(services.db, access.userId)]);
  const now = services.clock.now();
  const manage = can(current.role, 'developer');
  // Live secret keys can refund: owners and admins manage them, developers the rest.
  const manageSecret = manage && (mode === 'test' || can(current.role, 'liveSecretKeys'));
  const manages = (apiKey: ApiKeyListing) => manage && (apiKey.kind !== 'secret' || manageSecret);
  const askCode = mode === 'live' && hasTwoFactor;
  const needsTwoFactor = mode === 'live' && !hasTwoFactor && (current.role === 'owner' || current.role === 'admin');
  const error = typeof searchParams.error === 'string' ? MESSAGES[searchParams.error] : undefined;
  return (
    <DashboardShell access={access} mode={mode} path="/api-keys">
      <section className="dash-card">
        <h1>API keys</h1>
        {error && (
          <p role="alert" className="dash-alert">
            {error}
          </p>
        )}
        {revealed && (
          <div className="keys-new" role="status">
            <p>
              <strong>Copy your new key now:</strong> it is not shown again.
            </p>
            <code className="dash-mono keys-secret" data-testid="new-api-key">
              {revealed}
            </code>
          </div>
        )}
        {manage && !manageSecret && <p className="dash-muted">Live secret keys are created, rolled and revoked by the store’s owners and admins.</p>}
        {manage && needsTwoFactor && (
          <p className="dash-muted">
            Owners and admins change live-mode keys with two-factor on: <a href={`${dashboardBase(mode)}/settings`}>turn it on in Settings</a>.
          </p>
        )}
        {keys.length === 0 ? (
          <p className="dash-muted">No keys in this mode.</p>
        ) : (
          <div className="dash-table-wrap">
            <table className="dash-table dash-table-stack">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  {manage && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {keys.map((apiKey) => {
                  const status = keyStatus(apiKey, now);
                  return (
                    <tr key={apiKey.id}>
                      <td data-label="Kind">{apiKey.kind}</td>
                      <td data-label="Key" className="dash-mono">
                        {apiKey.hint}
                      </td>
                      <td data-label="Created" className="dash-nowrap">
                        {utcTime(epochSeconds(apiKey.created))}
                      </td>
                      <td data-label="Status">{status.label}</td>
                      {manage && (
                        <td data-label="Actions" className="keys-actions-cell">
                          {status.active && manages(apiKey) ? <KeyActions apiKey={apiKey} mode={mode} askCode={askCode} rolled={status.rolled} /> : '—'}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {manage && (
        <section className="dash-card">
          <h2>Create a key</h2>
          <ActionForm action="api-key-create" mode={mode} className="dash-form keys-form" label="Create a key">
            <label htmlFor="key-kind">Kind</label>
            <select id="key-kind" name="kind" defaultValue={manageSecret ? 'secret' : 'publishable'}>
              {manageSecret && <option value="secret">secret</option>}
              <option value="publishable">publishable</option>
            </select>
            <CodeField id="create-code" askCode={askCode} />
            <button type="submit">Create key</button>
          </ActionForm>
        </section>
      )}
    </DashboardShell>
  );
}
