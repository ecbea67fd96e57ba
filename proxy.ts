import { NextResponse, type NextRequest } from 'next/server';
import { getAppServices } from '@/server/app';
import { hostedFormTargets, loadHostedCheckout } from '@/server/checkout/hosted';
import { hostedContentSecurityPolicy, hostedPageHeaders } from '@/server/checkout/hosted-headers';
import { invalidLinkResponse } from '@/server/checkout/hosted-invalid';
import { receiptSignatureValid } from '@/server/payments/receipt';

const SESSION_ID = /^cs_(test|live)_[0-9A-Za-z]{1,64}$/;

/**
 * Security headers of the hosted checkout pages (issue 3), and the 404 of a link that does not
 * verify (server/checkout/hosted-invalid.ts says why that is answered here). Proxy runs in the
 * server's own process (Node runtime), so it shares the app's database client.
 */
export async function proxy(request: NextRequest) {
  const [, , id = '', below, extra] = request.nextUrl.pathname.split('/');
  let formTargets: string[] = [];
  if (request.method === 'GET' && below === undefined) {
    const services = await getAppServices();
    const params = request.nextUrl.searchParams;
    const hosted = await loadHostedCheckout(services, { id, expires: params.get('expires') ?? undefined, signature: params.get('signature') ?? undefined });
    if (hosted.state === 'invalid') return invalidLinkResponse();
    // Only the payment form's redirect may leave the service.
    if (hosted.state === 'open') formTargets = hostedFormTargets(hosted.view);
  } else if (request.method === 'GET' && below === 'receipt' && extra === undefined) {
    const { config } = await getAppServices();
    if (!SESSION_ID.test(id) || !receiptSignatureValid(config, id, request.nextUrl.searchParams.get('signature') ?? undefined)) return invalidLinkResponse();
  }
  const response = NextResponse.next();
  for (const [name, value] of Object.entries(hostedPageHeaders(hostedContentSecurityPolicy(formTargets)))) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: ['/checkout/:path*'],
};
