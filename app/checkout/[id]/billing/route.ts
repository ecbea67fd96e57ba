import { getAppServices } from '@/server/app';
import { answerCheckoutBilling } from '@/server/checkout/hosted/submit';

export const dynamic = 'force-dynamic';

/** POST /checkout/{id}/billing?expires&signature: the form's script sends the billing details as they change (answerCheckoutBilling says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerCheckoutBilling(await getAppServices(), request, id);
}
