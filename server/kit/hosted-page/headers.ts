/**
 * Response headers of the hosted checkout, subscription and portal pages (strict CSP, no framing,
 * no caching), applied by proxy.ts.
 */

/**
 * No script runs on a page that takes card numbers: the pages are plain HTML forms that work
 * without JavaScript, so `script-src 'none'` costs nothing and leaves no room for a skimmer
 * (an injected or compromised script). It also keeps Next's client runtime, and its route
 * announcer (a second role=alert element), off these pages. `form-action` lists the origins
 * a payment may redirect to after the POST, because browsers check a form submission's
 * redirects against it (Chromium 156 stops a 303 to another origin under `form-action 'self'`:
 * the page just stays put).
 */
export function hostedContentSecurityPolicy(formTargets: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    ['form-action', "'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
  ].join('; ');
}

export function hostedPageHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy,
    // The URL carries the link's signature: never send it onward, never keep the page.
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'x-robots-tag': 'noindex, noarchive',
  };
}
