import { forgotPasswordAction } from '../../actions';
import { SIGN_IN_PATH } from '../../access';
import { SignedOutCard } from '../../card';

export const dynamic = 'force-dynamic';

const ERRORS: Record<string, string> = {
  rate_limited: 'Too many reset requests. Wait a while and try again.',
  no_mail: 'This service sends no e-mail, so it cannot send you a link. Ask the person who runs it for a password reset link.',
};

/**
 * "Forgot password?": the answer is the same whether or not the e-mail belongs to someone, and the
 * link only ever goes to that e-mail, never onto this page.
 */
export default async function ForgotPasswordPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { error, sent } = await searchParams;
  const message = typeof error === 'string' && Object.hasOwn(ERRORS, error) ? ERRORS[error] : undefined;
  return (
    <SignedOutCard title="Reset your password">
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      {sent === '1' && !message ? (
        <p role="status">If a dashboard account uses that e-mail, a link to set a new password is on its way to it. The link works once, within 24 hours.</p>
      ) : (
        <form action={forgotPasswordAction} className="dash-form">
          <p className="dash-muted">Enter the e-mail you sign in with. If it belongs to an account, we e-mail it a link to set a new password.</p>
          <label htmlFor="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required maxLength={254} />
          <button type="submit">Send reset link</button>
        </form>
      )}
      <p className="dash-auth-aside">
        <a href={SIGN_IN_PATH}>Back to sign in</a>
      </p>
    </SignedOutCard>
  );
}
