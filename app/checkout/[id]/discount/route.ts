import { getAppServices } from '@/server/app';
import { answerPromotionCode } from '@/server/checkout/hosted/discount';

export const dynamic = 'force-dynamic';

/** POST /checkout/{id}/discount?expires&signature: the promotion code form (answerPromotionCode says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerPromotionCode(await getAppServices(), request, id);
}
