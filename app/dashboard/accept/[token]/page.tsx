import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { describeLink, MIN_PASSWORD_LENGTH } from '@/server/users/service';
import { INVITATIONS_PATH } from '../../access';
import { setPasswordAction } from '../../actions';
import { SignedOutCard } from '../../card';
import { passwordMessage } from '../../password-messages';

export const dynamic = 'force-dynamic';

/** An invitation or password-reset link; proxy.ts answers an invalid one with its 404 page. */
export default async function AcceptPage({ params, searchParams }: { params: Promise<{ token: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await params;
  const { error } = await searchParams;
  const link = await describeLink(await getAppServices(), token);
  if (link.kind === 'invalid') notFound();
  if (link.kind === 'invited') {
    return (
      <SignedOutCard title={`You are invited to ${link.storeName}`}>
        <p>{link.email} already has a password: sign in with it, then accept or decline the invitation.</p>
        <p>
          <a href={INVITATIONS_PATH}>Sign in to answer</a>
        </p>
      </SignedOutCard>
    );
  }
  if (link.kind === 'joined') {
    return (
      <SignedOutCard title={`You have joined ${link.storeName}`}>
        <p>{link.email} already has a password: sign in with it to see the store.</p>
        <p>
          <a href="/dashboard/sign-in">Sign in</a>
        </p>
      </SignedOutCard>
    );
  }
  const message = typeof error === 'string' ? passwordMessage(error) : undefined;
  return (
    <SignedOutCard title="Set your password">
      <p>
        {link.storeName ? `Invitation to ${link.storeName} for ` : 'For '}
        <strong>{link.email}</strong>
      </p>
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      <form action={setPasswordAction} className="dash-form">
        <input type="hidden" name="token" value={token} />
        <input type="text" name="username" value={link.email} autoComplete="username" readOnly hidden />
        <label htmlFor="password">New password</label>
        <input id="password" name="password" type="password" autoComplete="new-password" required maxLength={256} />
        <label htmlFor="confirmation">Confirm password</label>
        <input id="confirmation" name="confirmation" type="password" autoComplete="new-password" required maxLength={256} />
        <p className="dash-muted">At least {MIN_PASSWORD_LENGTH} characters.</p>
        <button type="submit">Set password</button>
      </form>
    </SignedOutCard>
  );
}
