import { redirect } from 'next/navigation';
import { FORGOT_PASSWORD_PATH } from '../access';
import { signInAction, verifyCodeAction } from '../actions';
import { auth } from '../auth';
import { SignedOutCard } from '../card';
import { awaitingCode } from './proof-cookie';

export const dynamic = 'force-dynamic';

const MESSAGES: Record<string, string> = {
  // One message for an unknown e-mail and a wrong password, so neither is revealed.
  invalid_credentials: 'The e-mail or password is not right.',
  rate_limited: 'Too many sign-in attempts. Wait a few minutes and try again.',
  invalid_code: 'The authentication code is not right.',
  expired: 'The sign-in took too long. Enter your e-mail and password again.',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if ((await auth())?.user?.id) redirect('/dashboard');
  const { error, step } = await searchParams;
  const message = typeof error === 'string' ? MESSAGES[error] : undefined;
  const askCode = step === 'code' && (await awaitingCode());
  return (
    <SignedOutCard title="Sign in">
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      {askCode ? (
        <form action={verifyCodeAction} className="dash-form">
          <label htmlFor="code">Authentication code</label>
          {/* biome-ignore lint/a11y/noAutofocus: the page asks only for this code, right after the password */}
          <input id="code" name="code" type="text" autoComplete="one-time-code" required maxLength={32} autoFocus aria-describedby="code-hint" />
          <p id="code-hint" className="dash-muted">
            The 6-digit code from your authenticator app, or one of your backup codes.
          </p>
          <button type="submit">Verify</button>
        </form>
      ) : (
        <form action={signInAction} className="dash-form">
          <label htmlFor="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required maxLength={254} />
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={256} />
          <button type="submit">Sign in</button>
        </form>
      )}
      {!askCode && (
        <p className="dash-auth-aside">
          <a href={FORGOT_PASSWORD_PATH}>Forgot password?</a>
        </p>
      )}
    </SignedOutCard>
  );
}
