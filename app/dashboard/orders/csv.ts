import { getAppServices } from '@/server/app';
import { csvDownload, exportOrdersCsv } from '@/server/dashboard/csv';
import { requireDashboard, type DashboardMode } from '../access';
import { readOrdersQuery } from './query';

/** orders.csv: every order the list page would show with this query, for roles with CSV export. */
export async function ordersCsvResponse(mode: DashboardMode, request: Request): Promise<Response> {
  const access = await requireDashboard('export');
  if (!access.current) return new Response('Your role may not export.\n', { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const query = readOrdersQuery(Object.fromEntries(new URL(request.url).searchParams));
  // An order id is a search for one order, which the list page answers by going to it.
  if (query.problem || query.orderId)
    return new Response(`${query.problem ?? 'Export takes the list filters, not an order id.'}\n`, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const services = await getAppServices();
  const csv = exportOrdersCsv(services, { storeId: access.current.storeId, livemode: mode === 'live' }, query.filters);
  return csvDownload(`orders-${mode}.csv`, csv);
}
