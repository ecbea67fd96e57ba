import { getAppServices } from '@/server/app';
import { answerCardUpdateReturn } from '@/server/billing/card-update-page';

export const dynamic = 'force-dynamic';

/** GET /payment-method/{id}/return?expires&signature&update: back from a 3-D Secure challenge (answerCardUpdateReturn). */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerCardUpdateReturn(await getAppServices(), request, id);
}
