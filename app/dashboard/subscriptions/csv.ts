import { getAppServices } from '@/server/app';
import { csvDownload, csvRefusal, exportSubscriptionsCsv } from '@/server/dashboard/csv';
import { requireDashboard, type DashboardMode } from '../access';
import { readSubscriptionsQuery } from './query';

/** subscriptions.csv: every subscription the list page would show with this query, for roles with CSV export. */
export async function subscriptionsCsvResponse(mode: DashboardMode, request: Request): Promise<Response> {
  const access = await requireDashboard('export');
  if (!access.current) return csvRefusal('Your role may not export.', 403);
  const query = readSubscriptionsQuery(Object.fromEntries(new URL(request.url).searchParams));
  if (query.problem) return csvRefusal(query.problem, 400);
  const services = await getAppServices();
  return csvDownload(`subscriptions-${mode}.csv`, exportSubscriptionsCsv(services, { storeId: access.current.storeId, livemode: mode === 'live' }, query.filters));
}
