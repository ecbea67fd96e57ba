import { dispatchDashboardAction } from '../dispatch';
import { DASHBOARD_ACTIONS } from '../registry';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ action: string }> }) {
  const { action } = await params;
  return dispatchDashboardAction(request, Object.hasOwn(DASHBOARD_ACTIONS, action) ? DASHBOARD_ACTIONS[action] : undefined);
}
