import { getAppServices } from '@/server/app';
import { answerSubscriptionPromotionCode } from '@/server/subscriptions/hosted';

export const dynamic = 'force-dynamic';

/** POST /subscribe/{id}/discount?expires&signature: `Apply` or `Remove` a promotion code (answerSubscriptionPromotionCode says how it answers). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerSubscriptionPromotionCode(await getAppServices(), request, id);
}
