import { ApiError } from '@/server/errors';
import { confirmTwoFactor, disableTwoFactor, regenerateBackupCodes, startTwoFactor, type TwoFactorActor } from '@/server/users/two-factor';
import { dashboardBase } from '../access';
import { withError, type ActionInput, type DashboardActionDefinition } from '../act/dispatch';
import { revealOnNextView } from '../reveal';

/** Every person manages their own two-factor from the Settings page of either mode. */
function settingsOf({ mode, userId, actor, scope }: ActionInput): { path: string; person: TwoFactorActor } {
  const path = `${dashboardBase(mode)}/settings`;
  return { path, person: { userId, email: actor.email, ip: actor.ip, path, scope } };
}

/** Backup codes travel to the page like a new key: once, never in the URL. */
const BACKUP_CODES_SEPARATOR = ' ';

export const twoFactorStart: DashboardActionDefinition = {
  right: 'read',
  changes: 'person',
  async run(input) {
    const { path, person } = settingsOf(input);
    return startTwoFactor(input.services, person).then(
      () => path,
      (error: unknown) => {
        if (error instanceof ApiError && error.code === 'parameter_invalid') return withError(path, 'already_on');
        throw error;
      },
    );
  },
};

export const twoFactorConfirm: DashboardActionDefinition = {
  right: 'read',
  changes: 'person',
  async run(input) {
    const { path, person } = settingsOf(input);
    const result = await confirmTwoFactor(input.services, person, input.form.text('code'));
    if (!result.ok) return withError(path, result.reason);
    await revealOnNextView(input.services, path, 'backup_codes', input.userId, result.backupCodes.join(BACKUP_CODES_SEPARATOR));
    return path;
  },
};

export const twoFactorDisable: DashboardActionDefinition = {
  right: 'read',
  changes: 'person',
  async run(input) {
    const { path, person } = settingsOf(input);
    const check = await disableTwoFactor(input.services, person, input.form.text('code'));
    return check === 'ok' ? path : withError(path, check);
  },
};

export const twoFactorBackupCodes: DashboardActionDefinition = {
  right: 'read',
  changes: 'person',
  async run(input) {
    const { path, person } = settingsOf(input);
    const result = await regenerateBackupCodes(input.services, person, input.form.text('code'));
    if (!result.ok) return withError(path, result.reason);
    await revealOnNextView(input.services, path, 'backup_codes', input.userId, result.backupCodes.join(BACKUP_CODES_SEPARATOR));
    return path;
  },
};

/** The backup codes handed to the page, as a list. */
export const splitBackupCodes = (revealed: string) => revealed.split(BACKUP_CODES_SEPARATOR);
