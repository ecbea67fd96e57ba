import { getAppServices } from '@/server/app';
import { answerHostedSubscription } from '@/server/subscriptions/hosted';

export const dynamic = 'force-dynamic';

/** POST /subscribe/{id}/pay?expires&signature: the hosted subscription form's target (answerHostedSubscription says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerHostedSubscription(await getAppServices(), request, id);
}
