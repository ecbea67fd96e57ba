import { loadConfig } from '@/server/config';
import { getOpenApiDocument } from '@/server/openapi/document';

// Read PUBLIC_BASE_URL when serving, not when `next build` runs; the document itself is cached.
export const dynamic = 'force-dynamic';

/** GET /api/v1/openapi.json: the public API description, no key needed. A static segment, so it wins over [...path]. */
export function GET(): Response {
  const document = getOpenApiDocument(loadConfig().publicBaseUrl);
  return new Response(JSON.stringify(document), {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      // Changes only with a deploy; short enough that a new release is picked up soon.
      'cache-control': 'public, max-age=300',
      // Editors and client generators on other origins may fetch it.
      'access-control-allow-origin': '*',
    },
  });
}
