/**
 * Dashboard sessions with next-auth: a sign-in (Credentials) in a signed and encrypted JWT cookie.
 * The sign-in form's action checks the password and hands over a short-lived proof of it; the
 * Credentials step completes with that proof and, when two-factor is on, a code. A JWT cannot be revoked by itself, so it carries the person's session version,
 * checked on every read: a password change, sign-out or "sign out everywhere" bumps the version
 * and ends every session at once. Sessions end 12 hours after sign-in, however active.
 */
import { hkdfSync } from 'node:crypto';
import NextAuth, { CredentialsSignin } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { getAppServices } from '@/server/app';
import { clientIp } from '@/server/context';
import { signingSecret } from '@/server/kit/links';
import { completeSignIn, currentSessionVersion } from '@/server/users/service';
import { errorField, log } from '@/server/observability/log';

declare module 'next-auth' {
  interface User {
    sessionVersion?: number;
  }
  interface Session {
    /** The store chosen with the switcher; the pages fall back to the first one. */
    storeId?: string;
  }
}

const SESSION_SECONDS = 12 * 60 * 60;

/** Its own key, so that the session cookie and the link signatures never share one. */
function sessionKey(authSecret: string): string {
  return Buffer.from(hkdfSync('sha256', authSecret, '', 'payments-service dashboard session v1', 32)).toString('base64url');
}

/** Carries why a sign-in was refused (`expired`, `invalid_code` or `rate_limited`) to the form. */
class SignInRefused extends CredentialsSignin {
  constructor(reason: string) {
    super();
    this.code = reason;
  }
}

const field = (value: unknown) => (typeof value === 'string' ? value : '');

export const {
  auth,
  signIn,
  signOut,
  unstable_update: updateSession,
} = NextAuth(async () => {
  const services = await getAppServices();
  return {
    secret: sessionKey(signingSecret(services.config)),
    trustHost: true,
    // Secure (and `__Secure-` named) as the service's public origin says, like every other cookie of
    // the dashboard: not as the request's scheme, which a proxy may not forward.
    useSecureCookies: services.config.publicBaseUrl.startsWith('https:'),
    session: { strategy: 'jwt', maxAge: SESSION_SECONDS },
    pages: { signIn: '/dashboard/sign-in' },
    // A refused password is an audited outcome, not a server error.
    logger: { error: (error) => (error instanceof CredentialsSignin ? undefined : log.error({ err: errorField(error) }, 'dashboard sign-in failed')) },
    providers: [
      Credentials({
        credentials: { proof: {}, code: {} },
        async authorize(credentials, request) {
          const result = await completeSignIn(services, { proof: field(credentials.proof), code: field(credentials.code), ip: clientIp(request.headers) });
          if (!result.ok) throw new SignInRefused(result.reason);
          return { id: result.user.id, email: result.user.email, sessionVersion: result.user.sessionVersion };
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user, trigger, session }) {
        const now = Math.floor(Date.now() / 1000);
        if (user) {
          token.uid = user.id;
          token.sv = user.sessionVersion;
          token.signedInAt = now;
        }
        if (typeof token.uid !== 'string' || typeof token.signedInAt !== 'number' || now >= token.signedInAt + SESSION_SECONDS) return null;
        if ((await currentSessionVersion(services.db, token.uid)) !== token.sv) return null;
        // The switcher's action checked the membership; every page checks it again.
        if (trigger === 'update' && typeof session?.storeId === 'string') token.storeId = session.storeId;
        return token;
      },
      session({ session, token }) {
        session.user.id = String(token.uid);
        session.storeId = typeof token.storeId === 'string' ? token.storeId : undefined;
        return session;
      },
    },
  };
});
