import QRCode from 'qrcode';
import { getAppServices } from '@/server/app';
import { BACKUP_CODE_COUNT, twoFactorState } from '@/server/users/two-factor';
import type { DashboardAccess, DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { takeRevealed } from '../reveal';
import { splitBackupCodes } from './two-factor-actions';
import './two-factor.css';

const MESSAGES: Record<string, string> = {
  invalid_code: 'The authentication code is not right. Enter the current code from your app.',
  rate_limited: 'Too many attempts. Wait a few minutes and try again.',
  already_on: 'Two-factor is already on.',
};

function CodeField({ id }: { id: string }) {
  return (
    <>
      <label htmlFor={id}>Authentication code</label>
      <input id={id} name="code" type="text" autoComplete="one-time-code" required maxLength={32} />
    </>
  );
}

/**
 * The person's own two-factor: turn it on (secret and QR code, confirmed with a code), see the
 * backup codes once, make new ones, turn it off. Shown in Settings of either mode.
 */
export async function TwoFactorSettings({ access, mode, error }: { access: DashboardAccess; mode: DashboardMode; error?: string }) {
  const services = await getAppServices();
  const state = await twoFactorState(services, access.userId, access.email);
  const revealed = await takeRevealed('backup_codes', access.userId);
  const message = error ? MESSAGES[error] : undefined;
  const qrSvg = state.state === 'pending' ? await QRCode.toString(state.otpauthUri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) : undefined;
  return (
    <section className="dash-card tf" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor authentication</h2>
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      {revealed && (
        <div className="tf-codes" role="status">
          <p>
            <strong>Save these backup codes now.</strong> Each signs you in once when your phone is not at hand; they are not shown again.
          </p>
          <ul className="tf-code-list">
            {splitBackupCodes(revealed).map((code) => (
              <li key={code} className="dash-mono">
                {code}
              </li>
            ))}
          </ul>
        </div>
      )}
      {state.state === 'off' && (
        <>
          <p>Two-factor is off. With it on, signing in asks for a code from an authenticator app after your password.</p>
          <ActionForm action="two-factor-start" mode={mode} className="dash-form tf-form">
            <button type="submit">Turn on two-factor</button>
          </ActionForm>
        </>
      )}
      {state.state === 'pending' && (
        <>
          <p>Scan the QR code with your authenticator app, or type the secret into it, then enter the code it shows.</p>
          <div className="tf-setup">
            {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own SVG markup for our own otpauth URI, no script, allowed by the page's CSP */}
            <div className="tf-qr" role="img" aria-label="QR code of the two-factor secret" dangerouslySetInnerHTML={{ __html: qrSvg! }} />
            <div>
              <p className="dash-muted">Secret (base32)</p>
              <p className="dash-mono tf-secret" data-testid="totp-secret">
                {state.secret}
              </p>
            </div>
          </div>
          <ActionForm action="two-factor-confirm" mode={mode} className="dash-form tf-form">
            <CodeField id="two-factor-confirm-code" />
            <button type="submit">Confirm</button>
          </ActionForm>
        </>
      )}
      {state.state === 'on' && (
        <>
          <p>
            Two-factor is on. {state.backupCodesLeft} of {BACKUP_CODE_COUNT} backup codes left.
          </p>
          <ActionForm action="two-factor-disable" mode={mode} className="dash-form tf-form">
            <CodeField id="two-factor-code" />
            <div className="tf-buttons">
              <button type="submit" formAction="/dashboard/act/two-factor-backup-codes">
                New backup codes
              </button>
              <button type="submit" className="tf-secondary">
                Turn off two-factor
              </button>
            </div>
          </ActionForm>
        </>
      )}
    </section>
  );
}
