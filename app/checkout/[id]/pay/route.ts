import { getAppServices } from '@/server/app';
import { invalidLinkResponse } from '@/server/kit/hosted-page/invalid-link';
import { rememberedEmailCookie, rememberedVatIdCookie } from '@/server/checkout/hosted/email';
import { readHostedSubmission } from '@/server/kit/hosted-page/request';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { payCheckoutSession } from '@/server/payments/service';

export const dynamic = 'force-dynamic';

/**
 * POST /checkout/{id}/pay?expires&signature: the hosted form's target. Always 303 (to the
 * merchant, the receipt, or back to the page with an error code) so a reload never resubmits.
 * The body is form-encoded card data: it is read once here and never logged.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const services = await getAppServices();
  const outcome = await submitHostedPayment(services, payCheckoutSession, await readHostedSubmission(request, id));
  if (outcome.kind === 'not_found') {
    return invalidLinkResponse();
  }
  const headers = new Headers({ location: outcome.location, 'cache-control': 'no-store' });
  const secure = new URL(request.url).protocol === 'https:';
  if (outcome.email) headers.append('set-cookie', rememberedEmailCookie(id, outcome.email, secure));
  if (outcome.vatId) headers.append('set-cookie', rememberedVatIdCookie(id, outcome.vatId, secure));
  return new Response(null, { status: 303, headers });
}
