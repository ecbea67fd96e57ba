import { DOCUMENT_LANGUAGES, MEMBER_ROLES, PAYOUT_SCHEDULES, type MemberRole } from '@/db/schema';
import { changePayoutSchedule } from '@/server/balance/service';
import { saveBankAccount as save } from '@/server/bank-accounts/service';
import type { InvitationShown } from '@/server/dashboard/settings';
import { ApiError } from '@/server/errors';
import { changeStoreLanguage, renameStore as rename } from '@/server/stores/service';
import { changePassword, signOutEverywhere, type PersonActing } from '@/server/users/service';
import { changeMemberRole, inviteMember, removeMember, TeamRefusal } from '@/server/users/team';
import { dashboardBase, SIGN_IN_PATH } from '../access';
import { withError, type ActionInput, type DashboardActionDefinition } from '../act/dispatch';
import { freshCodeProblem } from '../act/fresh-code';
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
 * Where the payouts of the form's mode go: owners only, live mode with a fresh code. The service
 * checks the IBAN and the holder; their refusals come back naming the field.
 */
export const saveBankAccount: DashboardActionDefinition = {
  right: 'bankAccount',
  async run(input) {
    const path = settingsPath(input);
    const problem = await freshCodeProblem(input, path);
    // Named apart from the two-factor section's own refusals, which the page shows there.
    if (problem) return withError(path, `bank_account_${problem}`);
    return save(await input.acting(path), input.scope, { iban: input.form.text('iban'), accountHolder: input.form.text('account_holder') }).then(
      () => `${path}?done=bank_account_saved`,
      (error: unknown) => {
        // The field the service refused is the page's error code.
        if (error instanceof ApiError && error.code === 'parameter_invalid' && (error.param === 'iban' || error.param === 'account_holder')) return withError(path, error.param);
        throw error;
      },
    );
  },
};

/** The payout schedule of the form's mode. */
export const changeSchedule: DashboardActionDefinition = {
  right: 'settings',
  async run(input) {
    const path = settingsPath(input);
    const schedule = PAYOUT_SCHEDULES.find((candidate) => candidate === input.form.text('payout_schedule'));
    if (!schedule) return withError(path, 'payout_schedule_invalid');
    await changePayoutSchedule(await input.acting(path), input.scope, schedule);
    return `${path}?done=payout_schedule_changed`;
  },
};

/** The language of the members' e-mails and payout statements: one for both modes. */
export const changeLanguage: DashboardActionDefinition = {
  right: 'settings',
  changes: 'store',
  async run(input) {
    const path = settingsPath(input);
    const language = DOCUMENT_LANGUAGES.find((candidate) => candidate === input.form.text('language'));
    if (!language) return withError(path, 'language_invalid');
    await changeStoreLanguage(input.services.db, input.scope.storeId, input.actor, language);
    return `${path}?done=language_changed`;
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
