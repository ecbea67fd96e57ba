/**
 * What every dashboard page and action checks on the server itself (the proxy's redirect is only
 * a convenience): a live session, the person, their membership of the current store and the
 * role's right to the action.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { isServiceOrigin } from '@/server/kit/origin';
import { can, type DashboardAction } from '@/server/users/roles';
import { dashboardPerson, type PendingInvitation, type StoreMembership } from '@/server/users/service';
import { auth } from './auth';

export const SIGN_IN_PATH = '/dashboard/sign-in';
export const FORGOT_PASSWORD_PATH = `${SIGN_IN_PATH}/forgot`;
/** Where a signed-in person answers the invitations waiting for them. */
export const INVITATIONS_PATH = '/dashboard/invitations';

export type DashboardMode = 'live' | 'test';

export function dashboardBase(mode: DashboardMode): string {
  return mode === 'test' ? '/dashboard/test' : '/dashboard';
}

export interface DashboardAccess {
  userId: string;
  email: string;
  /** The stores the person has access to: accepted memberships only. */
  memberships: StoreMembership[];
  /** Invitations waiting for the person's answer; they give no access. */
  invitations: PendingInvitation[];
  /** Undefined when the person belongs to no store, or their role may not do the action. */
  current: StoreMembership | undefined;
}

/** The signed-in person's access for the action; undefined when nobody is signed in. */
export async function dashboardAccess(action: DashboardAction): Promise<DashboardAccess | undefined> {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) return undefined;
  const services = await getAppServices();
  const person = await dashboardPerson(services.db, userId);
  if (!person) return undefined;
  const chosen = person.memberships.find((membership) => membership.storeId === session.storeId) ?? person.memberships[0];
  return { userId, email: person.email, memberships: person.memberships, invitations: person.invitations, current: chosen && can(chosen.role, action) ? chosen : undefined };
}

/** The same for a page: a signed-out visitor goes to the sign-in form. */
export async function requireDashboard(action: DashboardAction): Promise<DashboardAccess> {
  const access = await dashboardAccess(action);
  if (!access) redirect(SIGN_IN_PATH);
  return access;
}

/** Server Actions answer only posts from the service's own pages. */
export async function requireServiceOrigin(): Promise<void> {
  const { config } = await getAppServices();
  if (!isServiceOrigin((await headers()).get('origin'), config.publicBaseUrl)) throw new Error('Cross-site request refused.');
}
