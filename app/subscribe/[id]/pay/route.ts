import { getAppServices } from '@/server/app';
import { invalidLinkResponse } from '@/server/kit/hosted-page/invalid-link';
import { readHostedSubmission } from '@/server/kit/hosted-page/request';
import { submitHostedSubscription } from '@/server/subscriptions/hosted';

export const dynamic = 'force-dynamic';

/**
 * POST /subscribe/{id}/pay?expires&signature: the hosted subscription form's target. Always 303
 * (to the merchant, the receipt, or back to the page) so a reload never resubmits. The body is
 * form-encoded card data: read once here, never logged.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const services = await getAppServices();
  const outcome = await submitHostedSubscription(services, await readHostedSubmission(request, id));
  if (outcome.kind === 'not_found') return invalidLinkResponse();
  return new Response(null, { status: 303, headers: { location: outcome.location, 'cache-control': 'no-store' } });
}
