import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
import { getApiHandler, getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import type { Services } from '@/server/context';
import { createTestDatabase } from '../support/database';
import { createStore, uniqueSku } from '../support/factories';

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

const saved = { ...process.env };
let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let services: Services;
let keys: { sk_test: string };
let storeId = '';

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'hosted-page-load-'));
  // The app singleton proxy.ts and the pages share: on PostgreSQL a database of its own.
  if (process.env.DATABASE_URL) database = await createTestDatabase();
  Object.assign(process.env, { DATA_DIR: dataDir, AUTH_SECRET: 'test-auth-secret', BACKGROUND_WORK: 'false', SUBSCRIPTIONS_ENABLED: 'true' });
  if (database) process.env.DATABASE_URL = database.url;
  services = await getAppServices();
  ({ keys, id: storeId } = await createStore(services, { subscriptions: true }));
}, 120_000);

afterAll(async () => {
  await closeAppServices();
  process.env = saved;
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function post(route: string, body: unknown) {
  const response = await (await getApiHandler())(
    new Request(`http://localhost/api/v1${route}`, { method: 'POST', headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
  const created = await response.json();
  expect(response.status, JSON.stringify(created)).toBe(201);
  return created;
}

/** The request headers Next renders the page with after the proxy's response. */
function pageRequestHeaders(request: NextRequest, proxied: Response): Headers {
  const overridden = proxied.headers.get('x-middleware-override-headers');
  if (overridden === null) return new Headers(request.headers);
  const headers = new Headers();
  for (const name of overridden.split(',')) headers.set(name, proxied.headers.get(`x-middleware-request-${name}`) ?? '');
  return headers;
}

/**
 * proxy.ts, then a change to the row (as a payment or an expiry landing between the two), then
 * the page: answers the CSP, the page's HTML and how many statements the page itself read.
 */
async function view(url: string, render: (params: { id: string; query: Record<string, string> }) => Promise<React.ReactElement>, between: () => Promise<unknown>) {
  const request = new NextRequest(url);
  const proxied = await proxy(request);
  requestScope.headers = pageRequestHeaders(request, proxied);
  await between();
  const selects = vi.spyOn(services.db, 'select');
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
    const product = await post('/products', { name: 'Ebook', amount: 1500, sku: uniqueSku() });
    const session = await post('/checkout/sessions', { price_id: product.price_id, success_url: 'https://shop.example/thanks' });
    const seen = await view(
      session.url,
      ({ id, query }) => CheckoutPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
      () => services.db.update(checkoutSessions).set({ successUrl: 'https://elsewhere.example/thanks', status: 'complete', paymentStatus: 'paid' }).where(eq(checkoutSessions.id, session.id)),
    );
    expect(seen.pageReads).toBe(0);
    expect(seen.csp).toContain("form-action 'self' https://shop.example");
    expect(seen.html).toContain('Payment details');
    expect(seen.html).not.toContain('Already paid');
  });

  it('an open page: the CSP allows its one script by hash, the script the page carries', async () => {
    const product = await post('/products', { name: 'Map', amount: 900, sku: uniqueSku() });
    const session = await post('/checkout/sessions', { price_id: product.price_id });
    const seen = await view(
      session.url,
      ({ id, query }) => CheckoutPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
      async () => {},
    );
    expect(seen.csp).toContain(`script-src ${hashSource(PAYMENT_FORM_SCRIPT)};`);
    expect(seen.html).toContain(`<script>${PAYMENT_FORM_SCRIPT}</script>`);
  });

  it('the receipt: proxy.ts loads it (its CSP names the store’s logo, and no script), the page renders it without reading again', async () => {
    await updateStore(services.db, storeId, { logoUrl: 'https://cdn.example/moths/logo.png' });
    try {
      const product = await post('/products', { name: 'Poster', amount: 700, sku: uniqueSku() });
      const session = await post('/checkout/sessions', { price_id: product.price_id });
      await payCheckoutSession(services, { sessionId: session.id, card: { number: '4242424242424242', expiry: '12/30', cvc: '123' }, email: 'buyer@example.com' });
      const seen = await view(
        receiptUrl(services.config, session.id),
        ({ id, query }) => ReceiptPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) }),
        async () => {},
      );
      expect(seen.pageReads).toBe(0);
      expect(seen.csp).toContain("img-src 'self' data: https://cdn.example;");
      expect(seen.csp).toContain("script-src 'none';");
      expect(seen.html).toContain('src="https://cdn.example/moths/logo.png"');
      expect(seen.html).toContain('Payment received');
    } finally {
      await updateStore(services.db, storeId, { logoUrl: null });
    }
  });

  it('subscription checkout: the same', async () => {
    const checkout = await post('/subscriptions', {
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
      () => services.db.update(subscriptionCheckouts).set({ status: 'expired' }).where(eq(subscriptionCheckouts.id, checkout.id)),
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
