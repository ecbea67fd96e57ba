import { createHash } from 'node:crypto';

/**
 * Response headers of the hosted checkout, subscription and portal pages (strict CSP, no framing,
 * no caching), applied by proxy.ts.
 */

/** What a hosted page may use beyond its own origin's styles and images, as CSP sources. */
export interface HostedPagePolicy {
  /** Origins the payment form's POST may redirect to (the merchant's success_url, a bank's 3-D Secure page). */
  formTargets?: readonly string[];
  /** The hashes (`'sha256-…'`) of the page's own inline scripts; none means no script at all. */
  scripts?: readonly string[];
  /** The hashes of the page's own inline stylesheets. */
  styles?: readonly string[];
  /** Origins of images the page shows (the store's logo). */
  images?: readonly string[];
}

/**
 * No framework code runs on a page that takes card numbers: the pages are plain HTML forms that
 * work without JavaScript, and the only script a page may carry is its own small one, allowed by
 * its hash (server/checkout/hosted/payment-form.browser.ts). That leaves no room for a skimmer (an
 * injected or compromised script) and keeps Next's client runtime, and its route announcer (a
 * second role=alert element), off these pages; the front sends them without Next's scripts
 * (server/host/page-scripts.ts). `form-action` lists the origins a payment may redirect to after
 * the POST, because browsers check a form submission's redirects against it (Chromium 156 stops a
 * 303 to another origin under `form-action 'self'`: the page just stays put).
 */
export function hostedContentSecurityPolicy(policy: HostedPagePolicy = {}): string {
  const { formTargets = [], scripts = [], styles = [], images = [] } = policy;
  return [
    "default-src 'self'",
    ['script-src', ...(scripts.length > 0 ? scripts : ["'none'"])].join(' '),
    ['style-src', "'self'", ...styles].join(' '),
    ['img-src', "'self'", 'data:', ...images].join(' '),
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    ['form-action', "'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The CSP source (`'sha256-…'`) that allows exactly this inline script or stylesheet. */
export function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The origin of an absolute http(s) URL, as a CSP source; none for anything else. */
export function originOf(url: string | null | undefined): string[] {
  if (!url) return [];
  try {
    const { origin, protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? [origin] : [];
  } catch {
    return [];
  }
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
