import { getAppServices } from '@/server/app';
import { answerHostedPayment } from '@/server/checkout/hosted/submit';
import { payCheckoutSession } from '@/server/payments/service';

export const dynamic = 'force-dynamic';

/** POST /checkout/{id}/pay?expires&signature: the hosted form's target (answerHostedPayment says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerHostedPayment(await getAppServices(), payCheckoutSession, request, id);
}
