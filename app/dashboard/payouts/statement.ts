import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { payoutStatementPdf } from '@/server/payouts/statement';
import { requireDashboard, type DashboardMode } from '../access';

const plainText = (text: string, status: number) => new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/** payouts/{id}/statement.pdf: a paid payout's statement, for the roles that see the balance. */
export async function payoutStatementResponse(mode: DashboardMode, payoutId: string): Promise<Response> {
  const access = await requireDashboard('balance');
  if (!access.current) return plainText('Your role may not see the balance.', 403);
  const services = await getAppServices();
  try {
    const file = await payoutStatementPdf(services, { storeId: access.current.storeId, livemode: mode === 'live' }, payoutId);
    return new Response(Buffer.from(file.content_base64, 'base64'), {
      headers: { 'content-type': file.content_type, 'content-disposition': `inline; filename="${file.filename}"`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_missing') return plainText('No such payout.', 404);
    if (error instanceof ApiError && error.code === 'payout_not_paid') return plainText(error.message, 409);
    throw error;
  }
}
