/** Every dashboard action by the name its form posts to (`/dashboard/act/<name>`). */
import * as orders from '../orders/actions';
import * as settings from '../settings/actions';
import type { DashboardActionDefinition } from './dispatch';

export const DASHBOARD_ACTIONS: Record<string, DashboardActionDefinition> = {
  refund: orders.refund,
  'store-rename': settings.renameStore,
  'team-invite': settings.inviteTeamMember,
  'team-role': settings.changeTeamRole,
  'team-remove': settings.removeTeamMember,
  'password-change': settings.changeOwnPassword,
  'sign-out-everywhere': settings.signOutEverywhereAction,
};
