'use server';
/**
 * The dashboard's forms. They work without JavaScript: each posts, acts and answers with a
 * redirect (an error travels as a code in the query, never the typed values).
 */
import { CredentialsSignin } from 'next-auth';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { clientIp } from '@/server/context';
import { endAllSessions, passwordProblem, setPasswordWithLink, SIGN_IN_PROOF_SECONDS, signInProof, signInWithPassword } from '@/server/users/service';
import { dashboardBase, requireDashboard, requireServiceOrigin, SIGN_IN_PATH } from './access';
import { signIn, signOut, updateSession } from './auth';
import { SIGN_IN_PROOF_COOKIE } from './sign-in/proof-cookie';

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};

/** Completes the sign-in with a password's proof (and a code), or back to the form with why not. */
async function completeSignInOrBack(proof: string, code: string): Promise<void> {
  try {
    await signIn('credentials', { proof, code, redirect: false });
  } catch (error) {
    if (!(error instanceof CredentialsSignin)) throw error;
    if (error.code === 'expired') {
      (await cookies()).delete(SIGN_IN_PROOF_COOKIE);
      redirect(`${SIGN_IN_PATH}?error=expired`);
    }
    redirect(`${SIGN_IN_PATH}?step=code&error=${error.code === 'rate_limited' ? 'rate_limited' : 'invalid_code'}`);
  }
}

/**
 * Checks the e-mail and password, then signs in, or with two-factor on asks for the code. The
 * answer to a wrong password is the same either way, so it never tells whether two-factor is on.
 */
async function signInOrBack(email: string, password: string): Promise<void> {
  const services = await getAppServices();
  const result = await signInWithPassword(services, { email, password, ip: clientIp(await headers()) });
  if (!result.ok) redirect(`${SIGN_IN_PATH}?error=${result.reason}`);
  const proof = signInProof(services, result.user);
  if (result.user.twoFactor) {
    (await cookies()).set({
      ...SIGN_IN_PROOF_COOKIE,
      value: proof,
      httpOnly: true,
      sameSite: 'strict',
      secure: services.config.publicBaseUrl.startsWith('https:'),
      maxAge: SIGN_IN_PROOF_SECONDS,
    });
    redirect(`${SIGN_IN_PATH}?step=code`);
  }
  await completeSignInOrBack(proof, '');
}

export async function signInAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  await signInOrBack(text(form, 'email'), text(form, 'password'));
  redirect('/dashboard');
}

/** The second step: the code with the password's proof kept in the cookie. */
export async function verifyCodeAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  const jar = await cookies();
  await completeSignInOrBack(jar.get(SIGN_IN_PROOF_COOKIE.name)?.value ?? '', text(form, 'code'));
  jar.delete(SIGN_IN_PROOF_COOKIE);
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
