import { getAppServices } from '@/server/app';
import { answerSubscriptionBilling } from '@/server/subscriptions/hosted';

export const dynamic = 'force-dynamic';

/** POST /subscribe/{id}/billing?expires&signature: the form's script sends the billing details as they change (answerSubscriptionBilling says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerSubscriptionBilling(await getAppServices(), request, id);
}
