import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { payoutStatementPdf } from '@/server/payouts/statement';
import { requireDashboard, type DashboardMode } from '../access';
import { pdfResponse, plainTextResponse } from '../files';

/** payouts/{id}/statement.pdf: a paid payout's statement, for the roles that see the balance. */
export async function payoutStatementResponse(mode: DashboardMode, payoutId: string): Promise<Response> {
  const access = await requireDashboard('balance');
  if (!access.current) return plainTextResponse('Your role may not see the balance.', 403);
  const services = await getAppServices();
  try {
    return pdfResponse(await payoutStatementPdf(services, { storeId: access.current.storeId, livemode: mode === 'live' }, payoutId));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_missing') return plainTextResponse('No such payout.', error.status);
    if (error instanceof ApiError && error.code === 'payout_not_paid') return plainTextResponse(error.message, error.status);
    throw error;
  }
}
