import { getApiHandler } from '@/server/app';

export const dynamic = 'force-dynamic';

/**
 * The one endpoint merchant pages call from the browser (CheckoutForm): the rest of
 * /api/v1 answers server-to-server only. Publishable key and client secret travel in the
 * request, never in cookies, so any origin may call it (no credentials); the client library
 * reads Retry-After on a 429.
 */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After',
};

/** POST /api/v1/checkout/sessions/{id}/confirm: the API's own answer, readable cross-origin. */
export async function POST(request: Request): Promise<Response> {
  const response = await (await getApiHandler())(request);
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The CORS preflight of that POST (it sends Authorization and a JSON body). */
export function OPTIONS(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Authorization, Content-Type',
      'access-control-max-age': '600',
    },
  });
}
