import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import CheckoutPage from '@/app/checkout/[id]/page';
import SubscribePage from '@/app/subscribe/[id]/page';
import { coupons, simulatorCharges } from '@/db/schema';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { payCheckoutSession } from '@/server/payments/service';
import { submitHostedSubscription } from '@/server/subscriptions/hosted';
import { proxy } from '@/proxy';
import { getApiHandler, getAppServices } from '@/server/app';
import { closeAppServices } from '@/server/app-singleton';
import type { Services } from '@/server/context';
import { createTestDatabase } from '../support/database';
import { createCoupon } from '../support/coupons';
import { createStore, uniqueSku } from '../support/factories';
import { cardForm, PLAN } from './support';

/**
 * What the hosted pages say after a refusal that charged nothing: the form's POST redirects back
 * to the page with a code, and the page the browser then GETs (proxy.ts, then the page, as Next
 * serves it) shows the words. Outside Next there is no request scope for next/headers, so the
 * test supplies the headers proxy.ts left.
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
let store: { id: string; keys: { sk_test: string } };

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'refusal-pages-'));
  // The app singleton proxy.ts and the pages share: on PostgreSQL a database of its own.
  if (process.env.DATABASE_URL) database = await createTestDatabase();
  Object.assign(process.env, { DATA_DIR: dataDir, AUTH_SECRET: 'test-auth-secret', BACKGROUND_WORK: 'false', SUBSCRIPTIONS_ENABLED: 'true' });
  if (database) process.env.DATABASE_URL = database.url;
  services = await getAppServices();
  store = await createStore(services, { subscriptions: true });
}, 120_000);

afterAll(async () => {
  await closeAppServices();
  process.env = saved;
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function post(route: string, body: unknown) {
  const response = await (await getApiHandler())(
    new Request(`http://localhost/api/v1${route}`, { method: 'POST', headers: { authorization: `Bearer ${store.keys.sk_test}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
  const created = await response.json();
  expect(response.status, JSON.stringify(created)).toBe(201);
  return created;
}

/** The signed link's parts of a created checkout's `url`. */
function linkOf(url: string) {
  const { pathname, searchParams } = new URL(url);
  return { id: pathname.split('/')[2]!, expires: searchParams.get('expires')!, signature: searchParams.get('signature')! };
}

/** The request headers Next renders the page with after the proxy's response. */
function pageRequestHeaders(request: NextRequest, proxied: Response): Headers {
  const overridden = proxied.headers.get('x-middleware-override-headers');
  if (overridden === null) return new Headers(request.headers);
  const headers = new Headers();
  for (const name of overridden.split(',')) headers.set(name, proxied.headers.get(`x-middleware-request-${name}`) ?? '');
  return headers;
}

type Page = typeof SubscribePage | typeof CheckoutPage;

/** GET of the page a redirect points to: its HTML. */
async function pageAt(location: string, page: Page): Promise<string> {
  const request = new NextRequest(new URL(location, services.config.publicBaseUrl));
  const proxied = await proxy(request);
  expect(proxied.status).toBe(200);
  requestScope.headers = pageRequestHeaders(request, proxied);
  const { pathname, searchParams } = new URL(request.url);
  return renderToStaticMarkup(await page({ params: Promise.resolve({ id: pathname.split('/')[2]! }), searchParams: Promise.resolve(Object.fromEntries(searchParams)) }));
}

/** The text of each alert on the page. */
const alertsOf = (html: string) => [...html.matchAll(/<div role="alert" class="co-alert"[^>]*><p>(.*?)<\/p><\/div>/g)].map(([, text]) => text);

/** Where a submission sent the browser back to. */
function redirectOf(outcome: { kind: string; location?: string }): string {
  expect(outcome.kind).toBe('redirect');
  return outcome.location!;
}

const chargeCount = async () => (await services.db.select().from(simulatorCharges)).length;

describe('the hosted pages’ words for a refusal that charged nothing', () => {
  it('a trial begun meanwhile: the subscription page says the free trial was used, and still offers it', async () => {
    const trial = { ...PLAN, customer_email: 'twice@example.com', trial_days: 14 };
    const first = await post('/subscriptions', trial);
    const second = await post('/subscriptions', trial);
    redirectOf(await submitHostedSubscription(services, { ...linkOf(first.url), form: cardForm() }));
    const before = await chargeCount();
    const location = redirectOf(await submitHostedSubscription(services, { ...linkOf(second.url), form: cardForm() }));
    expect(location).toMatch(/&error=trial_already_used#form-error$/);
    expect(await chargeCount()).toBe(before);
    const html = await pageAt(location, SubscribePage);
    expect(alertsOf(html)).toEqual(['You have already used the free trial for this plan. Nothing was charged.']);
    expect(html).toContain('>Subscribe: free for 14 days</button>');
  });

  it('a discount used up meanwhile: the subscription page and the checkout page say it is no longer available', async () => {
    const coupon = await createCoupon(services.db, { storeId: store.id, livemode: false }, { percentOff: 15, maxRedemptions: 1 });
    const checkout = await post('/subscriptions', { ...PLAN, discounts: [{ coupon: coupon.id }] });
    const product = await post('/products', { name: 'Ebook', amount: 1999, sku: uniqueSku() });
    const session = await post('/checkout/sessions', { price_id: product.price_id, customer_email: 'ada@example.com', discounts: [{ coupon: coupon.id }] });
    await services.db.update(coupons).set({ timesRedeemed: 1 }).where(eq(coupons.id, coupon.id));
    const before = await chargeCount();

    const subscribed = redirectOf(await submitHostedSubscription(services, { ...linkOf(checkout.url), form: cardForm() }));
    expect(subscribed).toMatch(/&error=discount_unavailable#form-error$/);
    const subscribePage = await pageAt(subscribed, SubscribePage);
    expect(alertsOf(subscribePage)).toEqual(['This discount is no longer available. Nothing was charged.']);

    const form = new FormData();
    for (const [name, value] of Object.entries({ card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' })) form.set(name, value);
    const paid = redirectOf(await submitHostedPayment(services, payCheckoutSession, { ...linkOf(session.url), form }));
    expect(paid).toMatch(/&error=discount_unavailable#form-error$/);
    // The session cannot be paid any more: its page says why.
    const checkoutPage = await pageAt(paid, CheckoutPage);
    expect(alertsOf(checkoutPage)).toEqual(['This discount is no longer available. Nothing was charged.']);
    expect(checkoutPage).toContain('Payment failed');
    expect(await chargeCount()).toBe(before);
  });
});
