import { getAppServices } from '@/server/app';
import { invalidLinkResponse } from '@/server/kit/hosted-page/invalid-link';
import { hostedCheckoutUrl } from '@/server/checkout/hosted/page';
import { HOSTED_ERROR_CODES } from '@/server/kit/hosted-page/messages';
import { ApiError } from '@/server/errors';
import { isCheckoutSessionId } from '@/server/ids';
import { receiptSignatureValid } from '@/server/kit/links';
import { completeThreeDSecureReturn } from '@/server/payments/service';

export const dynamic = 'force-dynamic';

/**
 * GET /checkout/{id}/return?signature: the acquirer sends the customer back here after a
 * 3-D Secure challenge (live mode). Settles the attempt, then 303 to the merchant or receipt;
 * on a failure, back to the hosted page, which shows the outcome. Safe to reload.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const services = await getAppServices();
  const signature = new URL(request.url).searchParams.get('signature') ?? undefined;
  if (!isCheckoutSessionId(id) || !receiptSignatureValid(services.config, id, signature)) {
    return invalidLinkResponse();
  }
  let location: string | undefined;
  try {
    location = (await completeThreeDSecureReturn(services, id)).redirectUrl;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const code = (HOSTED_ERROR_CODES as readonly string[]).includes(error.code) ? error.code : 'internal_error';
    location = await hostedCheckoutUrl(services, id, code === 'card_declined' ? {} : { error: code });
  }
  if (!location) return invalidLinkResponse();
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
}
