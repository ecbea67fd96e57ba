/** Every dashboard action by the name its form posts to (`/dashboard/act/<name>`). */
import * as orders from '../orders/actions';
import type { DashboardActionDefinition } from './dispatch';

export const DASHBOARD_ACTIONS: Record<string, DashboardActionDefinition> = {
  refund: orders.refund,
};
