import { getAppServices } from '@/server/app';
import { csvDownload, csvRefusal, exportBalanceTransactionsCsv } from '@/server/dashboard/csv';
import { scopeClock } from '@/server/dashboard/service';
import { requireDashboard, type DashboardMode } from '../access';
import { readBalanceTransactionsQuery } from './query';

/** balance_transactions.csv: every entry the Balance page would list with this query, for the roles that see the balance. */
export async function balanceTransactionsCsvResponse(mode: DashboardMode, request: Request): Promise<Response> {
  const access = await requireDashboard('balance');
  if (!access.current) return csvRefusal('Your role may not see the balance.', 403);
  const query = readBalanceTransactionsQuery(Object.fromEntries(new URL(request.url).searchParams));
  if (query.problem) return csvRefusal(query.problem, 400);
  const services = await getAppServices();
  const scope = { storeId: access.current.storeId, livemode: mode === 'live' };
  const csv = exportBalanceTransactionsCsv({ db: services.db, clock: await scopeClock(services, scope) }, scope, query.filters);
  return csvDownload(`balance_transactions-${mode}.csv`, csv);
}
