import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import CheckoutPage from '@/app/checkout/[id]/page';
import SubscribePage from '@/app/subscribe/[id]/page';
import { coupons, simulatorCharges } from '@/db/schema';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { payCheckoutSession } from '@/server/payments/service';
import { submitHostedSubscription } from '@/server/subscriptions/hosted';
import { proxy } from '@/proxy';
import { pageRequestHeaders, useAppPages } from '../support/app-pages';
import { createCoupon } from '../support/coupons';
import { uniqueSku } from '../support/factories';
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

const app = useAppPages('refusal-pages');

/** The signed link's parts of a created checkout's `url`. */
function linkOf(url: string) {
  const { pathname, searchParams } = new URL(url);
  return { id: pathname.split('/')[2]!, expires: searchParams.get('expires')!, signature: searchParams.get('signature')! };
}

type Page = typeof SubscribePage | typeof CheckoutPage;

/** GET of the page a redirect points to: its HTML. */
async function pageAt(location: string, page: Page): Promise<string> {
  const request = new NextRequest(new URL(location, app.services.config.publicBaseUrl));
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

const chargeCount = async () => (await app.services.db.select().from(simulatorCharges)).length;

describe('the hosted pages’ words for a refusal that charged nothing', () => {
  it('a trial begun meanwhile: the subscription page says the free trial was used, and still offers it', async () => {
    const trial = { ...PLAN, customer_email: 'twice@example.com', trial_days: 14 };
    const first = await app.post('/subscriptions', trial);
    const second = await app.post('/subscriptions', trial);
    redirectOf(await submitHostedSubscription(app.services, { ...linkOf(first.url), form: cardForm() }));
    const before = await chargeCount();
    const location = redirectOf(await submitHostedSubscription(app.services, { ...linkOf(second.url), form: cardForm() }));
    expect(location).toMatch(/&error=trial_already_used#form-error$/);
    expect(await chargeCount()).toBe(before);
    const html = await pageAt(location, SubscribePage);
    expect(alertsOf(html)).toEqual(['You have already used the free trial for this plan. Nothing was charged.']);
    expect(html).toContain('>Subscribe: free for 14 days</button>');
  });

  it('a discount used up meanwhile: the subscription page and the checkout page say it is no longer available', async () => {
    const coupon = await createCoupon(app.services.db, { storeId: app.store.id, livemode: false }, { percentOff: 15, maxRedemptions: 1 });
    const checkout = await app.post('/subscriptions', { ...PLAN, discounts: [{ coupon: coupon.id }] });
    const product = await app.post('/products', { name: 'Ebook', amount: 1999, sku: uniqueSku() });
    const session = await app.post('/checkout/sessions', { price_id: product.price_id, customer_email: 'ada@example.com', discounts: [{ coupon: coupon.id }] });
    await app.services.db.update(coupons).set({ timesRedeemed: 1 }).where(eq(coupons.id, coupon.id));
    const before = await chargeCount();

    const subscribed = redirectOf(await submitHostedSubscription(app.services, { ...linkOf(checkout.url), form: cardForm() }));
    expect(subscribed).toMatch(/&error=discount_unavailable#form-error$/);
    const subscribePage = await pageAt(subscribed, SubscribePage);
    expect(alertsOf(subscribePage)).toEqual(['This discount is no longer available. Nothing was charged.']);

    const form = new FormData();
    for (const [name, value] of Object.entries({ card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' })) form.set(name, value);
    const paid = redirectOf(await submitHostedPayment(app.services, payCheckoutSession, { ...linkOf(session.url), form }));
    expect(paid).toMatch(/&error=discount_unavailable#form-error$/);
    // The session cannot be paid any more: its page says why.
    const checkoutPage = await pageAt(paid, CheckoutPage);
    expect(alertsOf(checkoutPage)).toEqual(['This discount is no longer available. Nothing was charged.']);
    expect(checkoutPage).toContain('Payment failed');
    expect(await chargeCount()).toBe(before);
  });
});
