import { redirect } from 'next/navigation';
import { signInAction } from '../actions';
import { auth } from '../auth';
import { SignedOutCard } from '../card';

export const dynamic = 'force-dynamic';

const MESSAGES: Record<string, string> = {
  // One message for an unknown e-mail and a wrong password, so neither is revealed.
  invalid_credentials: 'The e-mail or password is not right.',
  rate_limited: 'Too many sign-in attempts. Wait a few minutes and try again.',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if ((await auth())?.user?.id) redirect('/dashboard');
  const { error } = await searchParams;
  const message = typeof error === 'string' ? MESSAGES[error] : undefined;
  return (
    <SignedOutCard title="Sign in">
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      <form action={signInAction} className="dash-form">
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required maxLength={254} />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={256} />
        <button type="submit">Sign in</button>
      </form>
    </SignedOutCard>
  );
}
