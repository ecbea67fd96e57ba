import { getAppServices } from '@/server/app';
import { answerCardUpdate } from '@/server/billing/card-update-page';

export const dynamic = 'force-dynamic';

/** POST /payment-method/{id}/update?expires&signature: the form's target (answerCardUpdate says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerCardUpdate(await getAppServices(), request, id);
}
