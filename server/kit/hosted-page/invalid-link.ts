/**
 * The answer to a tampered or unknown hosted link: a 404 with a small self-contained page, whose
 * footer keeps the ways to withdraw and to cancel that every hosted page has.
 *
 * Served by proxy.ts rather than by Next's notFound(): with that, Next 16 sends an empty HTML
 * shell and draws the not-found UI with client-side JavaScript, which these pages never run
 * (script-src 'none'). The inline stylesheet is allowed by its hash, nothing else inline is.
 */
import { CANCEL_LINK_TEXT, cancelPageUrl } from './cancel-link';
import { hashSource, hostedContentSecurityPolicy, hostedPageHeaders } from './headers';

const STYLE = `body{margin:0;background:#f4f5f7;color:#16191d;font:1rem/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}
header{background:#fff;border-bottom:1px solid #c9ced6}header p{max-width:60rem;margin:0 auto;padding:.85rem 1.25rem;font-weight:600}
main{max-width:36rem;margin:2.5rem auto;padding:0 1.25rem}section{background:#fff;border:1px solid #c9ced6;border-radius:12px;padding:1.5rem}
h1{margin:0 0 1rem;font-size:1.35rem;line-height:1.25;color:#a3161b}p{margin:0 0 .9rem}
footer p{display:flex;flex-wrap:wrap;justify-content:center;gap:.25rem 1.25rem;margin:0 auto 1.5rem;padding:0 1.25rem;font-size:.9rem}a{color:#1d4ed8}
@media (prefers-color-scheme:dark){body{background:#111418;color:#eceff3}header,section{background:#1b1f25;border-color:#3a414b}h1{color:#ffb4b0}a{color:#93b4ff}}`;

const STYLE_HASH = hashSource(STYLE);

/** What the 404 page says; fixed texts only (nothing of the request is echoed). */
export interface InvalidLinkNotice {
  site: string;
  title: string;
  paragraphs: readonly string[];
  /** Announced at once by a screen reader (a refusal the person must act on). */
  alert?: boolean;
  /** The language the texts are in (English unless given). */
  language?: 'en' | 'de';
}

const CHECKOUT_NOTICE: InvalidLinkNotice = {
  site: 'Checkout',
  title: 'This checkout link is not valid',
  paragraphs: ['The link may have been copied incompletely or changed. Nothing was charged.', 'Go back to the shop and start the checkout again to get a new link.'],
};

function html(notice: InvalidLinkNotice): string {
  const language = notice.language ?? 'en';
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, noarchive">
<title>${notice.title}</title>
<style>${STYLE}</style>
</head>
<body>
<header><p>${notice.site}</p></header>
<main>
<section aria-labelledby="notice-heading"${notice.alert ? ' role="alert"' : ''}>
<h1 id="notice-heading">${notice.title}</h1>
${notice.paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n')}
</section>
</main>
<footer><p><a href="/withdraw"${language === 'en' ? '' : ' lang="en"'}>Withdraw from contract here</a><a href="${cancelPageUrl({ language })}">${CANCEL_LINK_TEXT[language]}</a></p></footer>
</body>
</html>
`;
}

export function invalidLinkResponse(notice: InvalidLinkNotice = CHECKOUT_NOTICE): Response {
  return noticeResponse(notice, 404);
}

/** The same small page with another status: a refusal that is not about a link (403, 429). */
export function noticeResponse(notice: InvalidLinkNotice, status: number, extraHeaders: Record<string, string> = {}): Response {
  const policy = hostedContentSecurityPolicy({ styles: [STYLE_HASH] });
  return new Response(html(notice), { status, headers: { ...hostedPageHeaders(policy), 'content-type': 'text/html; charset=utf-8', ...extraHeaders } });
}
