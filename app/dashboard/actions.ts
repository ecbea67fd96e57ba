'use server';
/**
 * The dashboard's forms. They work without JavaScript: each posts, acts and answers with a
 * redirect (an error travels as a code in the query, never the typed values).
 */
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { clientIp } from '@/server/context';
import { dashboardPerson, endAllSessions, passwordProblem, requestPasswordReset, setPasswordWithLink } from '@/server/users/service';
import { dashboardBase, FORGOT_PASSWORD_PATH, INVITATIONS_PATH, requireDashboard, requireServiceOrigin, SIGN_IN_PATH } from './access';
import { signOut, updateSession } from './auth';
import { completeSignIn, passwordSignIn } from './sign-in/password-sign-in';
import { SIGN_IN_PROOF_COOKIE } from './sign-in/proof-cookie';

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};

export async function signInAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  redirect(await passwordSignIn(text(form, 'email'), text(form, 'password'), '/dashboard'));
}

/** The second step: the code with the password's proof kept in the cookie. */
export async function verifyCodeAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  const jar = await cookies();
  const refused = await completeSignIn(jar.get(SIGN_IN_PROOF_COOKIE.name)?.value ?? '', text(form, 'code'));
  if (refused) redirect(refused);
  jar.delete(SIGN_IN_PROOF_COOKIE);
  redirect('/dashboard');
}

/** "Forgot password?": the same answer whether or not the e-mail is known; the link goes only to the e-mail. */
export async function forgotPasswordAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  const outcome = await requestPasswordReset(await getAppServices(), { email: text(form, 'email'), ip: clientIp(await headers()) });
  redirect(outcome === 'sent' ? `${FORGOT_PASSWORD_PATH}?sent=1` : `${FORGOT_PASSWORD_PATH}?error=${outcome}`);
}

export async function setPasswordAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  const token = text(form, 'token');
  const password = text(form, 'password');
  const acceptPath = `/dashboard/accept/${encodeURIComponent(token)}`;
  const problem = passwordProblem(password, text(form, 'confirmation'));
  if (problem) redirect(`${acceptPath}?error=${problem}`);
  const services = await getAppServices();
  const done = await setPasswordWithLink(services, token, password);
  // A link spent meanwhile: its page now says so.
  if (!done) redirect(acceptPath);
  // Invitations waiting for the person's answer come first.
  const waiting = (await dashboardPerson(services.db, done.userId))?.invitations.length;
  redirect(await passwordSignIn(done.email, password, waiting ? INVITATIONS_PATH : '/dashboard'));
}

/** Ends this session and, as the version moves on, any copy of its cookie. */
export async function signOutAction(): Promise<void> {
  await requireServiceOrigin();
  const access = await requireDashboard('read');
  await endAllSessions((await getAppServices()).db, access.userId);
  await signOut({ redirectTo: SIGN_IN_PATH });
}

export async function switchStoreAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  const access = await requireDashboard('read');
  const storeId = text(form, 'store');
  if (access.memberships.some((membership) => membership.storeId === storeId)) await updateSession({ storeId });
  redirect(dashboardBase(text(form, 'mode') === 'test' ? 'test' : 'live'));
}
