'use server';
/**
 * The invited person's answer to an invitation, signed in as themselves. Not a store action
 * (`/dashboard/act/`): the person has no access to the store until they accept.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { clientIp } from '@/server/context';
import { answerInvitation, type InvitationAnswer } from '@/server/users/team';
import { INVITATIONS_PATH, requireDashboard, requireServiceOrigin } from '../access';
import { updateSession } from '../auth';

async function answer(form: FormData, given: InvitationAnswer): Promise<string> {
  await requireServiceOrigin();
  const access = await requireDashboard('read');
  const store = form.get('store');
  const storeId = typeof store === 'string' ? store : '';
  const actor = { userId: access.userId, email: access.email, storeId, ip: clientIp(await headers()), path: INVITATIONS_PATH };
  if (!(await answerInvitation(await getAppServices(), actor, given))) return `${INVITATIONS_PATH}?error=gone`;
  if (given === 'decline') return `${INVITATIONS_PATH}?done=declined`;
  // The accepted store becomes the current one.
  await updateSession({ storeId });
  return '/dashboard';
}

export async function acceptInvitationAction(form: FormData): Promise<void> {
  redirect(await answer(form, 'accept'));
}

export async function declineInvitationAction(form: FormData): Promise<void> {
  redirect(await answer(form, 'decline'));
}
