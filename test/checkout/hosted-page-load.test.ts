import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import CheckoutPage from '@/app/checkout/[id]/page';
import ReceiptPage from '@/app/checkout/[id]/receipt/page';
import SubscribePage from '@/app/subscribe/[id]/page';
import { checkoutSessions, subscriptionCheckouts } from '@/db/schema';
import { hostedCheckoutHandoff, type HostedCheckout } from '@/server/checkout/hosted/page';
import { PAYMENT_FORM_SCRIPT } from '@/server/checkout/hosted/payment-form-script';
import { hashSource } from '@/server/kit/hosted-page/headers';
import { receiptUrl } from '@/server/kit/links';
import { payCheckoutSession } from '@/server/payments/service';
import { updateStore } from '@/server/stores/service';
import { hostedSubscriptionHandoff } from '@/server/subscriptions/hosted';
import { proxy } from '@/proxy';
import { pageRequestHeaders, useAppPages } from '../support/app-pages';
import { uniqueSku } from '../support/factories';

/**
 * One view of a hosted page, as Next serves it: proxy.ts (its checks and the CSP), then the page
 * with the request headers proxy.ts left. Outside Next there is no request scope for
 * next/headers, so the test supplies those headers.
 */
const requestScope = vi.hoisted(() => ({ headers: new Headers() }));
vi.mock('next/headers', () => ({
  headers: async () => requestScope.headers,
  cookies: async () => ({ get: () => undefined }),
}));

const app = useAppPages('hosted-page-load');

/**
 * proxy.ts, then a change to the row (as a payment or an expiry landing between the two), then
 * the page: answers the CSP, the page's HTML and how many statements the page itself read.
 */
async function view(url: string, render: (params: { id: string; query: Record<string, string> }) => Promise<React.ReactElement>, between: () => Promise<unknown>) {
  const request = new NextRequest(url);
  const proxied = await proxy(request);
  requestScope.headers = pageRequestHeaders(request, proxied);
  await between();
  const selects = vi.spyOn(app.services.db, 'select');
  try {
    const { pathname, searchParams } = new URL(url);
    const page = await render({ id: pathname.split('/')[2]!, query: Object.fromEntries(searchParams) });
    return { csp: proxied.headers.get('content-security-policy')!, html: renderToStaticMarkup(page), pageReads: selects.mock.calls.length };
  } finally {
    selects.mockRestore();
  }
}

describe('a hosted page is loaded once per view', () => {
  it('checkout: the page renders what proxy.ts loaded and built the CSP for, and reads the database no second time', async () => {
    const product = await app.post('/products', { name: 'Ebook', amount: 1500, sku: uniqueSku() });
    const session = await app.post('/checkout/sessions', { price_id: product.price_id, success_url: 'https://shop.example/thanks' });
    const seen = await view(
      session.url,
      ({ id, query }) => CheckoutPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
      () => app.services.db.update(checkoutSessions).set({ successUrl: 'https://elsewhere.example/thanks', status: 'complete', paymentStatus: 'paid' }).where(eq(checkoutSessions.id, session.id)),
    );
    expect(seen.pageReads).toBe(0);
    expect(seen.csp).toContain("form-action 'self' https://shop.example");
    expect(seen.html).toContain('Payment details');
    expect(seen.html).not.toContain('Already paid');
  });

  it('an open page: the CSP allows its one script by hash, the script the page carries', async () => {
    const product = await app.post('/products', { name: 'Map', amount: 900, sku: uniqueSku() });
    const session = await app.post('/checkout/sessions', { price_id: product.price_id });
    const seen = await view(
      session.url,
      ({ id, query }) => CheckoutPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
      async () => {},
    );
    expect(seen.csp).toContain(`script-src ${hashSource(PAYMENT_FORM_SCRIPT)};`);
    expect(seen.html).toContain(`<script>${PAYMENT_FORM_SCRIPT}</script>`);
  });

  it('the receipt: proxy.ts loads it (its CSP names the store’s logo, and no script), the page renders it without reading again', async () => {
    await updateStore(app.services.db, app.store.id, { logoUrl: 'https://cdn.example/moths/logo.png' });
    try {
      const product = await app.post('/products', { name: 'Poster', amount: 700, sku: uniqueSku() });
      const session = await app.post('/checkout/sessions', { price_id: product.price_id });
      await payCheckoutSession(app.services, { sessionId: session.id, card: { number: '4242424242424242', expiry: '12/30', cvc: '123' }, email: 'buyer@example.com' });
      const seen = await view(
        receiptUrl(app.services.config, session.id),
        ({ id, query }) => ReceiptPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
        async () => {},
      );
      expect(seen.pageReads).toBe(0);
      expect(seen.csp).toContain("img-src 'self' data: https://cdn.example;");
      expect(seen.csp).toContain("script-src 'none';");
      expect(seen.html).toContain('src="https://cdn.example/moths/logo.png"');
      expect(seen.html).toContain('Payment received');
    } finally {
      await updateStore(app.services.db, app.store.id, { logoUrl: null });
    }
  });

  it('subscription checkout: the same', async () => {
    const checkout = await app.post('/subscriptions', {
      amount: 990,
      interval: 'month',
      plan_name: 'Pro plan',
      total_payments: 12,
      customer_email: 'ada@example.com',
      success_url: 'https://shop.example/welcome',
    });
    const seen = await view(
      checkout.url,
      ({ id, query }) => SubscribePage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
      () => app.services.db.update(subscriptionCheckouts).set({ status: 'expired' }).where(eq(subscriptionCheckouts.id, checkout.id)),
    );
    expect(seen.pageReads).toBe(0);
    expect(seen.csp).toContain("form-action 'self' https://shop.example");
    expect(seen.html).toContain('Subscribe to Pro plan');
  });

  it('a hand-off is taken once, by its own kind of page; a token a client makes up finds nothing', () => {
    const loaded: HostedCheckout = { state: 'expired', storeName: 'Shop', storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null }, cancelUrl: null };
    const given = hostedCheckoutHandoff.give(loaded, new Headers({ accept: 'text/html' }));
    expect(given.get('accept')).toBe('text/html');
    expect(hostedSubscriptionHandoff.take(given)).toBeUndefined();
    expect(hostedCheckoutHandoff.take(given)).toBe(loaded);
    expect(hostedCheckoutHandoff.take(given)).toBeUndefined();
    const madeUp = new Headers(given);
    madeUp.set('x-hosted-page-handoff', crypto.randomUUID());
    expect(hostedCheckoutHandoff.take(madeUp)).toBeUndefined();
  });

  it('a hand-off its page never takes is dropped by a later one after a minute, without a timer per view', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const loaded: HostedCheckout = { state: 'expired', storeName: 'Shop', storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null }, cancelUrl: null };
      const abandoned = hostedCheckoutHandoff.give(loaded, new Headers());
      vi.advanceTimersByTime(61_000);
      const later = hostedCheckoutHandoff.give(loaded, new Headers());
      expect(hostedCheckoutHandoff.take(abandoned)).toBeUndefined();
      expect(hostedCheckoutHandoff.take(later)).toBe(loaded);
    } finally {
      vi.useRealTimers();
    }
  });
});
