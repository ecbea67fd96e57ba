import { getAppServices } from '@/server/app';
import { scopeClock } from '@/server/dashboard/service';
import { disputeEvidencePdf } from '@/server/disputes/evidence';
import { ApiError } from '@/server/errors';
import { requireDashboard, type DashboardMode } from '../access';
import { pdfResponse, plainTextResponse } from '../files';

/** disputes/{id}/evidence.pdf: a dispute's evidence pack, for the roles that answer disputes. */
export async function disputeEvidenceResponse(mode: DashboardMode, disputeId: string): Promise<Response> {
  const access = await requireDashboard('disputes');
  if (!access.current) return plainTextResponse('Your role may not answer disputes.', 403);
  const services = await getAppServices();
  const scope = { storeId: access.current.storeId, livemode: mode === 'live' };
  try {
    return pdfResponse(await disputeEvidencePdf({ ...services, clock: await scopeClock(services, scope) }, scope, disputeId));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_missing') return plainTextResponse('No such dispute.', error.status);
    throw error;
  }
}
