import { getAppServices } from '@/server/app';
import { csvDownload, csvRefusal, exportCustomersCsv } from '@/server/dashboard/csv';
import { requireDashboard, type DashboardMode } from '../access';
import { readCustomersQuery } from './query';

/** customers.csv: every customer the list page would show with this query, for roles with CSV export. */
export async function customersCsvResponse(mode: DashboardMode, request: Request): Promise<Response> {
  const access = await requireDashboard('export');
  if (!access.current) return csvRefusal('Your role may not export.', 403);
  const query = readCustomersQuery(Object.fromEntries(new URL(request.url).searchParams));
  // A customer id is a search for one customer, which the list page answers by going to it.
  if (query.problem || query.customerId) return csvRefusal(query.problem ?? 'Export takes the list filters, not a customer id.', 400);
  const services = await getAppServices();
  return csvDownload(`customers-${mode}.csv`, exportCustomersCsv(services, { storeId: access.current.storeId, livemode: mode === 'live' }, query.filters));
}
