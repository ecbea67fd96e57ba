/**
 * Signing in with a password, shared by the sign-in form, the accept page and a password change:
 * the password earns a short-lived proof; without two-factor the proof signs in at once, with it
 * the proof waits in a cookie for the code step. Each answers the path to go to next.
 */
import { CredentialsSignin } from 'next-auth';
import { cookies, headers } from 'next/headers';
import { getAppServices } from '@/server/app';
import { clientIp } from '@/server/context';
import { SIGN_IN_PROOF_SECONDS, signInProof, signInWithPassword } from '@/server/users/service';
import { SIGN_IN_PATH } from '../access';
import { signIn } from '../auth';
import { SIGN_IN_PROOF_COOKIE } from './proof-cookie';

/** Completes the sign-in with a password's proof (and a code); the path of the refusal, undefined once signed in. */
export async function completeSignIn(proof: string, code: string): Promise<string | undefined> {
  try {
    await signIn('credentials', { proof, code, redirect: false });
    return undefined;
  } catch (error) {
    if (!(error instanceof CredentialsSignin)) throw error;
    if (error.code === 'expired') {
      (await cookies()).delete(SIGN_IN_PROOF_COOKIE);
      return `${SIGN_IN_PATH}?error=expired`;
    }
    return `${SIGN_IN_PATH}?step=code&error=${error.code === 'rate_limited' ? 'rate_limited' : 'invalid_code'}`;
  }
}

/**
 * Checks the e-mail and password, then signs in (and answers `signedIn`), or with two-factor on
 * asks for the code. The answer to a wrong password is the same either way, so it never tells
 * whether two-factor is on.
 */
export async function passwordSignIn(email: string, password: string, signedIn: string): Promise<string> {
  const services = await getAppServices();
  const result = await signInWithPassword(services, { email, password, ip: clientIp(await headers()) });
  if (!result.ok) return `${SIGN_IN_PATH}?error=${result.reason}`;
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
    return `${SIGN_IN_PATH}?step=code`;
  }
  return (await completeSignIn(proof, '')) ?? signedIn;
}
