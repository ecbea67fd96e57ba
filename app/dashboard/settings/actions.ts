import { MEMBER_ROLES, type MemberRole } from '@/db/schema';
import type { InvitationShown } from '@/server/dashboard/settings';
import { renameStore as rename } from '@/server/stores/service';
import { changePassword, signOutEverywhere, type PersonActing } from '@/server/users/service';
import { changeMemberRole, inviteMember, removeMember, TeamRefusal } from '@/server/users/team';
import { dashboardBase, SIGN_IN_PATH } from '../access';
import { withError, type ActionInput, type DashboardActionDefinition } from '../act/dispatch';
import { signOut } from '../auth';
import { revealOnNextView } from '../reveal';
import { passwordSignIn } from '../sign-in/password-sign-in';

const settingsPath = (input: ActionInput) => `${dashboardBase(input.mode)}/settings`;

const personActing = ({ userId, actor, scope }: ActionInput): PersonActing => ({ userId, email: actor.email, storeId: scope.storeId, ip: actor.ip, path: actor.path });

const memberRole = (text: string): MemberRole | undefined => MEMBER_ROLES.find((role) => role === text);

/** The settings page after a team change: done, or the rule that refused it. */
async function teamChange(input: ActionInput, change: () => Promise<unknown>, done: string): Promise<string> {
  try {
    await change();
    return `${settingsPath(input)}?done=${done}`;
  } catch (error) {
    if (error instanceof TeamRefusal) return withError(settingsPath(input), error.code);
    throw error;
  }
}

export const renameStore: DashboardActionDefinition = {
  right: 'settings',
  changes: 'store',
  async run(input) {
    const renamed = await rename(input.services.db, input.scope.storeId, input.actor, input.form.text('name'));
    return renamed ? `${settingsPath(input)}?done=renamed` : withError(settingsPath(input), 'name_invalid');
  },
};

/**
 * Invites a person. The settings page then says, once, how the invitation reaches them; a link
 * never reaches the inviter (it goes to the person's e-mail only).
 */
export const inviteTeamMember: DashboardActionDefinition = {
  right: 'settings',
  changes: 'store',
  async run(input) {
    const role = memberRole(input.form.text('role'));
    if (!role) return withError(settingsPath(input), 'role_invalid');
    const { services } = input;
    return teamChange(
      input,
      async () => {
        const invitation = await inviteMember(services, personActing(input), { email: input.form.text('email'), role });
        const shown: InvitationShown = { storeId: input.scope.storeId, ...invitation };
        await revealOnNextView(services, settingsPath(input), 'invitation', input.userId, JSON.stringify(shown));
      },
      'invited',
    );
  },
};

export const changeTeamRole: DashboardActionDefinition = {
  right: 'settings',
  changes: 'store',
  async run(input) {
    const role = memberRole(input.form.text('role'));
    if (!role) return withError(settingsPath(input), 'role_invalid');
    return teamChange(input, () => changeMemberRole(input.services.db, personActing(input), { userId: input.form.text('user_id'), role }), 'role_changed');
  },
};

export const removeTeamMember: DashboardActionDefinition = {
  right: 'settings',
  changes: 'store',
  run: (input) => teamChange(input, () => removeMember(input.services.db, personActing(input), { userId: input.form.text('user_id') }), 'removed'),
};

/**
 * One's own password. The change ends every session of the person, this one too; this browser is
 * then signed in again with the new password, so only the other sessions end for good.
 */
export const changeOwnPassword: DashboardActionDefinition = {
  right: 'read',
  changes: 'person',
  async run(input) {
    const { form } = input;
    const password = form.text('password');
    const refused = await changePassword(input.services.db, personActing(input), { current: form.text('current_password'), password, confirmation: form.text('confirmation') });
    if (refused) return withError(settingsPath(input), refused);
    // Every session ended with the change; this browser signs in again with the new password (with
    // two-factor on, through the code step; rate limited, through the sign-in form).
    return passwordSignIn(input.actor.email, password, `${settingsPath(input)}?done=password_changed`);
  },
};

/** Ends every session of the person, this one included. */
export const signOutEverywhereAction: DashboardActionDefinition = {
  right: 'read',
  changes: 'person',
  async run(input) {
    await signOutEverywhere(input.services.db, personActing(input));
    await signOut({ redirect: false });
    return SIGN_IN_PATH;
  },
};
