'use server';
/**
 * The dashboard's forms. They work without JavaScript: each posts, acts and answers with a
 * redirect (an error travels as a code in the query, never the typed values).
 */
import { CredentialsSignin } from 'next-auth';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { clientIp } from '@/server/context';
import { parseEuros, refundAs } from '@/server/dashboard/orders';
import { ApiError } from '@/server/errors';
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

/** The refund form's error code for a refusal of the refund service; undefined for anything else. */
function refundErrorCode(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'parameter_invalid') return error.param === 'amount' ? 'above_remainder' : 'not_paid';
  if (error.code === 'order_already_processed') return 'refunded';
  if (error.code === 'idempotency_key_reused') return 'key_reused';
  if (error.code === 'payment_outcome_unknown') return 'outcome_unknown';
  return undefined;
}

/**
 * Refunds an order, in full or in part, once per rendering of the form (its idempotency key);
 * a live refund must be confirmed. Roles without the refund right are refused here, whatever
 * the page showed them.
 */
export async function refundAction(form: FormData): Promise<void> {
  await requireServiceOrigin();
  const access = await requireDashboard('refund');
  if (!access.current) throw new Error('Refused: this role may not refund.');
  const mode = text(form, 'mode') === 'live' ? 'live' : 'test';
  const orderId = text(form, 'order_id');
  const detail = `${dashboardBase(mode)}/orders/${encodeURIComponent(orderId)}`;
  if (mode === 'live' && text(form, 'confirm') !== 'yes') redirect(`${detail}?error=confirm`);
  const amount = parseEuros(text(form, 'amount'));
  if (amount === undefined || amount < 1) redirect(`${detail}?error=amount`);
  const key = text(form, 'idempotency_key');
  if (!/^[0-9a-f]{32}$/.test(key)) redirect(`${detail}?error=form_expired`);
  const actor = { email: access.email, ip: clientIp(await headers()), path: detail };
  const scope = { storeId: access.current.storeId, livemode: mode === 'live' };
  const failure = await refundAs(await getAppServices(), scope, actor, { order_id: orderId, amount }, key).then(
    () => undefined,
    (error: unknown) => {
      const code = refundErrorCode(error);
      if (code === undefined) throw error;
      return code;
    },
  );
  redirect(failure ? `${detail}?error=${failure}` : detail);
}
