import { getAppServices } from '@/server/app';
import { invalidLinkResponse } from '@/server/kit/hosted-page/invalid-link';
import { receiptSignatureValid } from '@/server/kit/links';
import { subscriptionChallengeReturn } from '@/server/subscriptions/hosted';

export const dynamic = 'force-dynamic';

/**
 * GET /subscribe/{id}/return?signature: the acquirer sends the customer back here after a 3-D
 * Secure challenge (live mode). Settles the first charge, then 303 to the merchant's success_url
 * (or the receipt) when subscribed, else back to the hosted page, which shows the outcome. Safe
 * to reload.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const services = await getAppServices();
  const signature = new URL(request.url).searchParams.get('signature') ?? undefined;
  if (!receiptSignatureValid(services.config, id, signature)) return invalidLinkResponse();
  const location = await subscriptionChallengeReturn(services, id);
  if (!location) return invalidLinkResponse();
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
}
