import { isSafeRedirectUrl } from '@/packages/client/urls';
import { hashSource } from '@/server/kit/hosted-page/headers';
import { CARD_FRAME_SCRIPT } from './card-frame-script';

// The embedding origin comes from each request's address.
export const dynamic = 'force-dynamic';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.4 system-ui,sans-serif;color:#1a1a1a;background:transparent}
form{display:grid;gap:.75rem;padding:2px}
label{display:block;font-weight:600;margin-bottom:.25rem}
input{width:100%;padding:.6rem .7rem;font:inherit;border:1px solid #8a8a8a;border-radius:6px}
input:focus{outline:3px solid #2f6fdf;outline-offset:1px}
input[aria-invalid=true]{border-color:#b00020}
.error{color:#b00020;margin:.25rem 0 0}
button{padding:.7rem 1rem;font:inherit;font-weight:600;color:#fff;background:#1f4fbf;border:0;border-radius:6px;cursor:pointer}
button:disabled{opacity:.6;cursor:default}
button:focus-visible{outline:3px solid #2f6fdf;outline-offset:2px}
`;

function field(id: string, label: string, attributes: string): string {
  return `<div${id === 'email' ? ' hidden' : ''}><label for="${id}">${label}</label><input id="${id}" name="${id}" ${attributes}><p id="${id}-error" class="error" hidden></p></div>`;
}

const BODY = [
  '<form novalidate>',
  field('email', 'Email', 'type="email" autocomplete="email" inputmode="email" disabled'),
  field('card_number', 'Card number', 'type="text" autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234" required'),
  field('expiry', 'Expiry', 'type="text" autocomplete="cc-exp" inputmode="numeric" placeholder="MM/YY" required'),
  field('cvc', 'CVC', 'type="text" autocomplete="cc-csc" inputmode="numeric" placeholder="123" required'),
  // Enabled by the script once the embedding page has sent the key and client secret.
  '<button type="submit" disabled>Pay</button>',
  '</form>',
].join('');

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Card details</title><style>${STYLE}</style></head><body>${BODY}<script>${CARD_FRAME_SCRIPT}</script></body></html>`;

/**
 * The frame's own policy (the hosted pages' strict one, proxy.ts, forbids framing): exactly this
 * page's script and style, requests only to this origin, no form posts anywhere, and only the
 * origin named in `?origin=` may frame it, so the origin the script trusts is the real parent.
 */
function framePolicy(parentOrigin: string | null): string {
  return [
    "default-src 'none'",
    `script-src ${hashSource(CARD_FRAME_SCRIPT)}`,
    `style-src ${hashSource(STYLE)}`,
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${parentOrigin ?? "'none'"}`,
  ].join('; ');
}

const COMMON_HEADERS = {
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-robots-tag': 'noindex, noarchive',
};

function embeddingOrigin(value: string | null): string | null {
  return value !== null && isSafeRedirectUrl(value) && new URL(value).origin === value ? value : null;
}

/** GET /embed/card?origin=<embedding page's origin>: the card inputs of SecureCheckoutForm, framed from the service origin. */
export function GET(request: Request): Response {
  const origin = embeddingOrigin(new URL(request.url).searchParams.get('origin'));
  if (!origin) {
    return new Response('The card frame needs ?origin=<the embedding page’s origin>, as SecureCheckoutForm sends it.\n', {
      status: 400,
      headers: { ...COMMON_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'content-security-policy': framePolicy(null) },
    });
  }
  return new Response(PAGE, {
    headers: { ...COMMON_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': framePolicy(origin) },
  });
}
