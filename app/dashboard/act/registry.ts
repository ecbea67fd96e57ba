/** Every dashboard action by the name its form posts to (`/dashboard/act/<name>`). */
import * as orders from '../orders/actions';
import * as testClock from '../test-clock/actions';
import type { DashboardActionDefinition } from './dispatch';

export const DASHBOARD_ACTIONS: Record<string, DashboardActionDefinition> = {
  refund: orders.refund,
  advance_clock: testClock.advanceClock,
};
