import { NextResponse, type NextRequest } from 'next/server';
import { getAppServices } from '@/server/app';
import { hostedCheckoutHandoff, hostedPagePolicy, loadHostedCheckout } from '@/server/checkout/hosted/page';
import { hostedReceiptHandoff, loadHostedReceipt, RECEIPT_LINK_NOTICE } from '@/server/checkout/hosted/receipt';
import { hostedContentSecurityPolicy, hostedPageHeaders, originOf, type HostedPagePolicy } from '@/server/kit/hosted-page/headers';
import { invalidLinkResponse } from '@/server/kit/hosted-page/invalid-link';
import { isServiceOrigin } from '@/server/kit/origin';
import { hostedSubscriptionHandoff, hostedSubscriptionReceiptHandoff, loadHostedSubscriptionCheckout, loadHostedSubscriptionReceipt } from '@/server/subscriptions/hosted';
import { loadPaymentMethodPage, PAYMENT_METHOD_LINK_NOTICE, paymentMethodHandoff } from '@/server/subscriptions/payment-method';
import { clientIp } from '@/server/context';
import { portalLinkStore } from '@/server/portal/page';
import { describeLink } from '@/server/users/service';
import { portalHeaders, portalLinkInvalidResponse, portalRateLimitedResponse, rateLimitedRetryAfter } from '@/server/portal/responses';
import { handRevealedToPage, REVEAL_COOKIE } from '@/app/dashboard/reveal';
import { PAGE_LANGUAGE_HEADER, requestedPageLanguage } from '@/server/kit/language';
import { KEEP_LINK_NOTICE, keepFromLink, keepPageHandoff } from '@/server/subscriptions/cancel-page';

/**
 * Security headers of the hosted checkout pages, and the 404 of a link that does not
 * verify (server/kit/hosted-page/invalid-link.ts says why that is answered here). Proxy runs in the
 * server's own process (Node runtime), so it shares the app's database client.
 */
export async function proxy(request: NextRequest) {
  if (request.nextUrl.pathname === '/dashboard' || request.nextUrl.pathname.startsWith('/dashboard/')) return dashboardProxy(request);
  if (request.nextUrl.pathname.startsWith('/portal/')) return portalProxy(request);
  if (request.nextUrl.pathname.startsWith('/subscribe/')) return subscribeProxy(request);
  if (request.nextUrl.pathname.startsWith('/payment-method/')) return paymentMethodProxy(request);
  // The declaration forms' posts answer with headers of their own: the page of a refused one allows
  // its stylesheet by hash, which the pages' policy set here would replace.
  if (request.method === 'POST' && /^\/(withdraw|cancel)\/(check|declare)$/.test(request.nextUrl.pathname)) return NextResponse.next();
  // The withdrawal forms check the Origin of their posts themselves (server/orders/withdrawals/hosted.ts).
  if (request.nextUrl.pathname === '/withdraw' || request.nextUrl.pathname.startsWith('/withdraw/')) return withSameOriginReferrer(withHostedPageHeaders({}, undefined));
  if (request.nextUrl.pathname === '/cancel' || request.nextUrl.pathname.startsWith('/cancel/')) return cancelProxy(request);
  const [, , id = '', below, extra] = request.nextUrl.pathname.split('/');
  let policy: HostedPagePolicy = {};
  let pageRequestHeaders: Headers | undefined;
  if (request.method === 'GET' && below === undefined) {
    const services = await getAppServices();
    const params = request.nextUrl.searchParams;
    const hosted = await loadHostedCheckout(services, { id, expires: params.get('expires') ?? undefined, signature: params.get('signature') ?? undefined });
    if (hosted.state === 'invalid') return invalidLinkResponse();
    // Only the payment form's redirect may leave the service.
    policy = hostedPagePolicy(services.gateways, hosted.state === 'expired' ? hosted.storeLinks : hosted.view.storeLinks, hosted.state === 'open' ? hosted.view : undefined);
    pageRequestHeaders = hostedCheckoutHandoff.give(hosted, request.headers);
  } else if (request.method === 'GET' && below === 'receipt' && extra === undefined) {
    const services = await getAppServices();
    const receipt = await loadHostedReceipt(services, { id, signature: request.nextUrl.searchParams.get('signature') ?? undefined });
    if (receipt.state === 'invalid') return invalidLinkResponse(RECEIPT_LINK_NOTICE);
    policy = hostedPagePolicy(services.gateways, receipt.state === 'paid' ? receipt.receipt.storeLinks : receipt.storeLinks);
    pageRequestHeaders = hostedReceiptHandoff.give(receipt, request.headers);
  }
  return withHostedPageHeaders(policy, pageRequestHeaders);
}

/**
 * The cancellation pages (whose forms check the Origin of their posts themselves,
 * server/subscriptions/cancel-page.ts), in the language asked for: the root layout's `<html lang>`
 * reads it from the request. The e-mail's keep link acts here, so one that does not verify is the
 * 404 page, and its page shows the outcome handed on, in the subscription's language.
 */
async function cancelProxy(request: NextRequest) {
  const [, , below, id, extra] = request.nextUrl.pathname.split('/');
  const params = request.nextUrl.searchParams;
  if (request.method === 'GET' && below === 'keep' && id && extra === undefined) {
    const link = { id, expires: params.get('expires') ?? undefined, signature: params.get('signature') ?? undefined };
    const kept = await keepFromLink(await getAppServices(), link, clientIp(request.headers));
    if (!kept) return invalidLinkResponse(KEEP_LINK_NOTICE);
    const pageRequestHeaders = keepPageHandoff.give(kept, request.headers);
    pageRequestHeaders.set(PAGE_LANGUAGE_HEADER, kept.language);
    return withSameOriginReferrer(withHostedPageHeaders({}, pageRequestHeaders));
  }
  const pageRequestHeaders = new Headers(request.headers);
  pageRequestHeaders.set(PAGE_LANGUAGE_HEADER, requestedPageLanguage(request));
  return withSameOriginReferrer(withHostedPageHeaders({}, pageRequestHeaders));
}

/** Continues to the page (with the request headers given, if any), or gives `answer`, under the hosted pages' headers. */
function withHostedPageHeaders(policy: HostedPagePolicy, pageRequestHeaders: Headers | undefined, answer?: NextResponse) {
  const response = answer ?? NextResponse.next(pageRequestHeaders ? { request: { headers: pageRequestHeaders } } : undefined);
  for (const [name, value] of Object.entries(hostedPageHeaders(hostedContentSecurityPolicy(policy)))) response.headers.set(name, value);
  return response;
}

/**
 * The customer portal: lookups are limited per IP (429 with Retry-After), and a link
 * that does not resolve now (unknown, expired, revoked) is a 404 page. The page itself counts
 * the view in one atomic statement and re-checks the link there. Every answer carries the
 * portal's headers (noindex, noarchive, no-store, no referrer, no script).
 */
async function portalProxy(request: NextRequest) {
  const [, , token = '', below, id, extra] = request.nextUrl.pathname.split('/');
  let policy: HostedPagePolicy = {};
  // Every method: Next renders the page for a POST as well, so each is a lookup of the link. A
  // document download is a lookup too, under the same limit.
  if (below === undefined || ((below === 'invoices' || below === 'credit_notes') && id !== undefined && extra === undefined)) {
    const services = await getAppServices();
    try {
      await services.rateLimits.consume('portalIp', clientIp(request.headers));
    } catch (error) {
      const retryAfter = rateLimitedRetryAfter(error);
      if (retryAfter === undefined) throw error;
      return portalRateLimitedResponse(retryAfter);
    }
    const resolved = await portalLinkStore(services, token);
    if (!resolved) return portalLinkInvalidResponse();
    policy = { images: originOf(resolved.storeLinks.logoUrl) };
  }
  const response = NextResponse.next();
  for (const [name, value] of Object.entries(portalHeaders(policy))) response.headers.set(name, value);
  return response;
}

/**
 * The hosted subscription checkout (/subscribe/*): the checkout pages' headers and their 404 for
 * a link or receipt signature that does not verify, for its own link purpose.
 */
async function subscribeProxy(request: NextRequest) {
  const [, , id = '', below, extra] = request.nextUrl.pathname.split('/');
  const services = await getAppServices();
  const params = request.nextUrl.searchParams;
  let policy: HostedPagePolicy = {};
  let pageRequestHeaders: Headers | undefined;
  if (request.method === 'GET' && below === undefined) {
    const hosted = await loadHostedSubscriptionCheckout(services, { id, expires: params.get('expires') ?? undefined, signature: params.get('signature') ?? undefined });
    if (hosted.state === 'invalid') return invalidLinkResponse();
    policy = hostedPagePolicy(services.gateways, hosted.state === 'expired' ? hosted.storeLinks : hosted.view.storeLinks, hosted.state === 'open' ? hosted.view : undefined);
    pageRequestHeaders = hostedSubscriptionHandoff.give(hosted, request.headers);
  } else if (request.method === 'GET' && below === 'receipt' && extra === undefined) {
    const receipt = await loadHostedSubscriptionReceipt(services, { id, signature: params.get('signature') ?? undefined });
    if (!receipt) return invalidLinkResponse(RECEIPT_LINK_NOTICE);
    policy = hostedPagePolicy(services.gateways, receipt.view.storeLinks);
    pageRequestHeaders = hostedSubscriptionReceiptHandoff.give(receipt, request.headers);
  }
  return withHostedPageHeaders(policy, pageRequestHeaders);
}

/**
 * The update-payment-method page (/payment-method/*): the payment page's headers, and the 404 for a
 * link that does not verify or is past its 7 days (its posts check the link themselves), in the
 * page's language, which the root layout's `<html lang>` reads from the request.
 */
async function paymentMethodProxy(request: NextRequest) {
  const [, , id = '', below] = request.nextUrl.pathname.split('/');
  let policy: HostedPagePolicy = {};
  let pageRequestHeaders: Headers | undefined;
  if (below === undefined) {
    const language = requestedPageLanguage(request);
    if (request.method === 'GET') {
      const services = await getAppServices();
      const params = request.nextUrl.searchParams;
      const page = await loadPaymentMethodPage(services, { id, expires: params.get('expires') ?? undefined, signature: params.get('signature') ?? undefined });
      if (page.state === 'invalid') return invalidLinkResponse(PAYMENT_METHOD_LINK_NOTICE[language]);
      policy = hostedPagePolicy(services.gateways, page.view.storeLinks, page.view.ended ? undefined : { successUrl: null, livemode: page.view.livemode });
      pageRequestHeaders = paymentMethodHandoff.give(page, request.headers);
    }
    pageRequestHeaders ??= new Headers(request.headers);
    pageRequestHeaders.set(PAGE_LANGUAGE_HEADER, language);
  }
  return withHostedPageHeaders(policy, pageRequestHeaders);
}

const DASHBOARD_LINK_NOTICE = {
  site: 'Payments dashboard',
  title: 'This link is no longer valid',
  paragraphs: ['It was used already, it expired (links last 24 hours), or it was copied incompletely.', 'Ask for a new link to set your password.'],
};

/** Any chunk of next-auth's session cookie (secure or not). */
const SESSION_COOKIE = /^(__Secure-)?authjs\.session-token(\.\d+)?$/;

/**
 * The dashboard: its pages' headers (no script, no framing, no caching), the deletion of a
 * one-time secret cookie its page has read, the 404 page of an
 * accept link that is no longer valid, and sign-in for visitors without a session cookie. This is
 * a convenience only: every page checks the session, membership and role itself.
 */
async function dashboardProxy(request: NextRequest) {
  const [, , section = '', token, below] = request.nextUrl.pathname.split('/');
  // Every dashboard post is a form of its own pages: a cross-site one is refused before any page
  // or Server Action runs (which would otherwise fail it as a server error).
  if (request.method !== 'GET' && request.method !== 'HEAD' && !isServiceOrigin(request.headers.get('origin'), (await getAppServices()).config.publicBaseUrl)) {
    return withDashboardHeaders(new NextResponse('Cross-site request refused: post this form from the dashboard itself.\n', { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } }));
  }
  if (section === 'accept') {
    if (request.method === 'GET' && below === undefined && (await describeLink(await getAppServices(), token ?? '')).kind === 'invalid') {
      return invalidLinkResponse(DASHBOARD_LINK_NOTICE);
    }
  } else if (section !== 'sign-in' && !request.cookies.getAll().some((cookie) => SESSION_COOKIE.test(cookie.name))) {
    const signIn = request.nextUrl.clone();
    signIn.pathname = '/dashboard/sign-in';
    signIn.search = '';
    return withDashboardHeaders(NextResponse.redirect(signIn, 303));
  }
  // A secret shown once (app/dashboard/reveal.ts): handed to this rendering, deleted in its response.
  const revealed = request.method === 'GET' ? request.cookies.get(REVEAL_COOKIE)?.value : undefined;
  const pageHeaders = revealed === undefined ? undefined : handRevealedToPage(await getAppServices(), revealed, request.nextUrl.pathname, request.headers);
  if (revealed === undefined) return withDashboardHeaders();
  const response = withDashboardHeaders(NextResponse.next(pageHeaders ? { request: { headers: pageHeaders } } : undefined));
  response.cookies.set({ name: REVEAL_COOKIE, value: '', path: request.nextUrl.pathname, maxAge: 0 });
  return response;
}

/** The hosted pages' headers, and the referrer kept for same-origin requests. */
function withDashboardHeaders(answer?: NextResponse) {
  return withSameOriginReferrer(withHostedPageHeaders({}, undefined, answer));
}

/**
 * For pages whose forms post to the service (dashboard, /withdraw, /cancel): under no-referrer Chromium
 * sends `Origin: null` with a form's POST, and the Origin check then refuses every form.
 */
function withSameOriginReferrer(response: NextResponse) {
  response.headers.set('referrer-policy', 'same-origin');
  return response;
}

export const config = {
  matcher: ['/checkout/:path*', '/portal/:path*', '/subscribe/:path*', '/payment-method/:path*', '/dashboard', '/dashboard/:path*', '/withdraw', '/withdraw/:path*', '/cancel', '/cancel/:path*'],
};
