/** Every dashboard action by the name its form posts to (`/dashboard/act/<name>`). */
import * as apiKeys from '../api-keys/actions';
import * as orders from '../orders/actions';
import * as twoFactor from '../settings/two-factor-actions';
import type { DashboardActionDefinition } from './dispatch';

export const DASHBOARD_ACTIONS: Record<string, DashboardActionDefinition> = {
  refund: orders.refund,
  api_key_create: apiKeys.apiKeyCreate,
  api_key_roll: apiKeys.apiKeyRoll,
  api_key_revoke: apiKeys.apiKeyRevoke,
  two_factor_start: twoFactor.twoFactorStart,
  two_factor_confirm: twoFactor.twoFactorConfirm,
  two_factor_disable: twoFactor.twoFactorDisable,
  two_factor_backup_codes: twoFactor.twoFactorBackupCodes,
};
