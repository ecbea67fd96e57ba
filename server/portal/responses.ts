/**
 * What proxy.ts answers for portal links before the page renders: the headers of every portal
 * response, and small self-contained pages for a link that no longer resolves (404)
 * and for too many lookups from one address (429 with Retry-After).
 *
 * Served by the proxy rather than by Next's notFound(): Next 16 sends the not-found UI as an
 * empty shell drawn by client-side JavaScript, which portal pages never run (script-src 'none',
 * as on the hosted checkout: server/kit/hosted-page/invalid-link.ts). The inline stylesheet is
 * allowed by its hash, nothing else inline is.
 */
import { ApiError } from '../errors';
import { hashSource, hostedContentSecurityPolicy, hostedPageHeaders, type HostedPagePolicy } from '../kit/hosted-page/headers';

/** No index, no archive; and, as on checkout, no caching, no referrer, no script (`policy`: the store's logo). */
export function portalHeaders(policy: HostedPagePolicy = {}): Record<string, string> {
  return hostedPageHeaders(hostedContentSecurityPolicy(policy));
}

const STYLE = `body{margin:0;background:#f4f5f7;color:#16191d;font:1rem/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}
header{background:#fff;border-bottom:1px solid #c9ced6}header p{max-width:60rem;margin:0 auto;padding:.85rem 1.25rem;font-weight:600}
main{max-width:36rem;margin:2.5rem auto;padding:0 1.25rem}section{background:#fff;border:1px solid #c9ced6;border-radius:12px;padding:1.5rem}
h1{margin:0 0 1rem;font-size:1.35rem;line-height:1.25}p{margin:0 0 .9rem}
@media (prefers-color-scheme:dark){body{background:#111418;color:#eceff3}header,section{background:#1b1f25;border-color:#3a414b}}`;

const STYLE_HASH = hashSource(STYLE);

function noticePage(title: string, paragraphs: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, noarchive">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<header aria-label="Payment history"><p>Payment history</p></header>
<main aria-labelledby="notice-heading">
<section aria-labelledby="notice-heading">
<h1 id="notice-heading">${title}</h1>
${paragraphs.map((text) => `<p>${text}</p>`).join('\n')}
</section>
</main>
</body>
</html>
`;
}

function htmlResponse(status: number, html: string, extra: Record<string, string> = {}): Response {
  const policy = hostedContentSecurityPolicy({ styles: [STYLE_HASH] });
  return new Response(html, { status, headers: { ...hostedPageHeaders(policy), 'content-type': 'text/html; charset=utf-8', ...extra } });
}

const NO_LONGER_VALID = noticePage('This link is no longer valid', [
  'Links to your payment history expire after a while, and the shop can withdraw them.',
  'Ask the shop for a new link to see your orders and subscriptions.',
]);

/** Unknown, expired and revoked links alike: the answer never tells which. */
export function portalLinkInvalidResponse(): Response {
  return htmlResponse(404, NO_LONGER_VALID);
}

/** The `Retry-After` of a `rate_limited` refusal, or undefined for any other error. */
export function rateLimitedRetryAfter(error: unknown): number | undefined {
  if (!(error instanceof ApiError) || error.code !== 'rate_limited') return undefined;
  return error.retryAfter ?? 1;
}

export function portalRateLimitedResponse(retryAfterSeconds: number): Response {
  const html = noticePage('Too many requests', ['This page was requested too often from your network. Please wait a moment and reload it.']);
  return htmlResponse(429, html, { 'retry-after': String(retryAfterSeconds) });
}

/**
 * A document downloaded through a portal link: the PDF with the portal's headers, shown in the
 * browser (its name is the document's number: letters, digits and hyphens only).
 */
export function portalDocumentResponse(document: { filename: string; bytes: Buffer }): Response {
  return new Response(new Uint8Array(document.bytes), {
    status: 200,
    headers: { ...portalHeaders(), 'content-type': 'application/pdf', 'content-disposition': `inline; filename="${document.filename}"`, 'x-content-type-options': 'nosniff' },
  });
}
