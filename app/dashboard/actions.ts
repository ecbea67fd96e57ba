'use server';
/**
 * The dashboard's forms. They work without JavaScript: each posts, acts and answers with a
 * redirect (an error travels as a code in the query, never the typed values).
 */
import { CredentialsSignin } from 'next-auth';
import { redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { endAllSessions, passwordProblem, setPasswordWithLink } from '@/server/users/service';
import { dashboardBase, requireDashboard, requireServiceOrigin, SIGN_IN_PATH } from './access';
import { signIn, signOut, updateSession } from './auth';

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};

/** Signs in, or back to the form with `invalid_credentials` or `rate_limited`. */
async function signInOrBack(email: string, password: string): Promise<void> {
  try {
    await signIn('credentials', { email, password, redirect: false });
  } catch (error) {
    if (error instanceof CredentialsSignin) redirect(`${SIGN_IN_PATH}?error=${error.code === 'rate_limited' ? 'rate_limited' : 'invalid_credentials'}`);
    throw error;
  }
}

export async function signInAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  await signInOrBack(text(form, 'email'), text(form, 'password'));
  redirect('/dashboard');
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
  await signInOrBack(done.email, password);
  redirect('/dashboard');
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
