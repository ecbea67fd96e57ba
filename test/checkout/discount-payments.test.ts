import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions, coupons, paymentAttempts, promotionCodes, simulatorCharges } from '@/db/schema';
import { answerHostedPayment } from '@/server/checkout/hosted/submit';
import { answerPromotionCode } from '@/server/checkout/hosted/discount';
import { loadHostedCheckout } from '@/server/checkout/hosted/page';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { reconcilePaymentAttempts } from '@/server/payments/reconcile';
import { payCheckoutSession } from '@/server/payments/service';
import { pdfPages } from '../invoices/support';
import { createCoupon, createPromotionCode } from '../support/coupons';
import { serveFetchHandler, useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, SESSIONS } from './api-support';

/**
 * Discounts on the hosted checkout page, its forms posted over HTTP as a browser without script
 * posts them: a promotion code applied and removed (`/discount`), paying the discounted total
 * (`/pay`), a total of 0 without a card, and the redemptions each payment takes, holds and gives
 * back, the last one raced for. The order, invoice, its PDF and the receipt show the discount.
 * test/browser/checkout-discounts.test.ts drives the page itself.
 */
const api = useTestApi();
const store = useTestStore(api, { taxCalculation: true });
const scope = () => ({ storeId: store.id, livemode: false });
let forms: Awaited<ReturnType<typeof serveFetchHandler>>;
let ebook: { id: string; price_id: string };

const CARD = { card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' };
const DECLINED = { ...CARD, card_number: '4000 0000 0000 0002' };

beforeAll(async () => {
  ebook = await createProduct(api, store.key, { name: 'Ebook', amount: 1999, tax_rate: 19 });
  forms = await serveFetchHandler(async (request) => {
    const [, , id = '', action] = new URL(request.url).pathname.split('/');
    if (action === 'pay') return answerHostedPayment(api.services, payCheckoutSession, request, id);
    if (action === 'discount') return answerPromotionCode(api.services, request, id);
    return new Response('not found', { status: 404 });
  });
});
afterAll(() => forms.close());

async function createSession(body: Record<string, unknown>) {
  const created = await api.request('POST', SESSIONS, { key: store.key, body: { price_id: ebook.price_id, customer_email: 'ada@example.com', ...body } });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; order_id: string };
}

/** A form posted below the page as the browser posts it, with the page's signed query. */
function post(pageUrl: string, below: '/pay' | '/discount', fields: Record<string, string>) {
  const url = new URL(pageUrl);
  return fetch(`${forms.baseUrl}${url.pathname}${below}${url.search}`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
}

/** Where a 303 sends the browser: path, the query beyond the signed link's, and the fragment. */
function landing(response: Response) {
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location')!, forms.baseUrl);
  return { path: location.pathname, query: Object.fromEntries([...location.searchParams].filter(([name]) => name !== 'expires' && name !== 'signature')), fragment: location.hash };
}

async function pageView(session: { url: string }) {
  const url = new URL(session.url);
  const hosted = await loadHostedCheckout(api.services, { id: url.pathname.split('/')[2]!, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! });
  if (hosted.state === 'invalid' || hosted.state === 'expired') throw new Error(`page is ${hosted.state}`);
  return hosted;
}

const readSession = async (session: { id: string }) => (await api.request('GET', `${SESSIONS}/${session.id}`, { key: store.key })).body;
const counts = async (coupon: { id: string }, code?: { id: string }) => {
  const [c] = await api.services.db.select({ redeemed: coupons.timesRedeemed, held: coupons.redemptionsHeld }).from(coupons).where(eq(coupons.id, coupon.id));
  if (!code) return { coupon: c };
  const [p] = await api.services.db.select({ redeemed: promotionCodes.timesRedeemed, held: promotionCodes.redemptionsHeld }).from(promotionCodes).where(eq(promotionCodes.id, code.id));
  return { coupon: c, code: p };
};
const chargesOf = async (sessionId: string) => (await api.services.db.select().from(simulatorCharges)).filter((row) => row.idempotencyKey.startsWith(`charge:${sessionId}:`));

describe('the promotion code field', () => {
  it('a code in any case applies: the row, the new amounts; Remove takes it off again', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { percentOff: 15 });
    const code = await createPromotionCode(api.services.db, coupon, 'SUMMER25');
    const session = await createSession({ allow_promotion_codes: true });

    expect(landing(await post(session.url, '/discount', { promotion_code: ' summer25 ' }))).toEqual({ path: `/checkout/${session.id}`, query: {}, fragment: '' });
    const applied = await pageView(session);
    expect(applied.view).toMatchObject({ discount: { label: 'SUMMER25', amount: 300, removable: true }, allowPromotionCodes: true, amountSubtotal: 1699, amountTax: 323, amountTotal: 2022 });
    expect(await readSession(session)).toMatchObject({
      allow_promotion_codes: true,
      discount: { coupon: coupon.id, promotion_code: code.id, percent_off: 15, amount_off: null, duration: 'once', duration_in_months: null },
      amount_discount: 300,
      amount_subtotal: 1699,
      amount_tax: 323,
      amount_total: 2022,
    });
    // Nothing is redeemed by applying a code: only a payment redeems.
    expect(await counts(coupon, code)).toEqual({ coupon: { redeemed: 0, held: 0 }, code: { redeemed: 0, held: 0 } });

    expect(landing(await post(session.url, '/discount', { remove: '1' })).query).toEqual({});
    expect((await pageView(session)).view).toMatchObject({ discount: null, amountSubtotal: 1999, amountTax: 380, amountTotal: 2379 });
    expect(await readSession(session)).toMatchObject({ discount: null, amount_discount: 0, amount_total: 2379 });
  });

  it('an unknown, inactive or foreign code: code_invalid, nothing changes', async () => {
    const coupon = await createCoupon(api.services.db, scope());
    await createPromotionCode(api.services.db, coupon, 'RESTING', { active: false });
    const session = await createSession({ allow_promotion_codes: true });
    for (const typed of ['NOPE', 'RESTING', '', 'x']) {
      expect(landing(await post(session.url, '/discount', { promotion_code: typed }))).toEqual({ path: `/checkout/${session.id}`, query: { error: 'code_invalid' }, fragment: '#promotion-code' });
    }
    expect(await readSession(session)).toMatchObject({ discount: null, amount_discount: 0, amount_total: 2379 });
  });

  it('a session without the field, or given its discount at creation, takes no code and keeps its discount', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { name: 'Launch week', amountOff: 500 });
    await createPromotionCode(api.services.db, coupon, 'LAUNCH');
    const plain = await createSession({});
    expect(landing(await post(plain.url, '/discount', { promotion_code: 'LAUNCH' })).query).toEqual({});
    expect(await readSession(plain)).toMatchObject({ discount: null, amount_total: 2379 });
    const given = await createSession({ discounts: [{ coupon: coupon.id }] });
    expect((await pageView(given)).view.discount).toEqual({ label: 'Launch week', amount: 500, removable: false });
    await post(given.url, '/discount', { remove: '1' });
    expect(await readSession(given)).toMatchObject({ amount_discount: 500, amount_subtotal: 1499, amount_tax: 285, amount_total: 1784 });
  });

  it('a tampered link: 404', async () => {
    const session = await createSession({ allow_promotion_codes: true });
    const response = await post(session.url.replace(/signature=[^&]+/, 'signature=AAAA'), '/discount', { promotion_code: 'SUMMER25' });
    expect(response.status).toBe(404);
  });
});

describe('paying with a discount', () => {
  it('the discounted total is charged; one redemption; order, invoice, PDF and receipt show the discount', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { percentOff: 15 });
    const code = await createPromotionCode(api.services.db, coupon, 'SPRING15');
    const session = await createSession({ allow_promotion_codes: true });
    await post(session.url, '/discount', { promotion_code: 'spring15' });
    expect(landing(await post(session.url, '/pay', CARD)).path).toBe(`/checkout/${session.id}/receipt`);

    const charges = await chargesOf(session.id);
    expect(charges.map((charge) => charge.amount)).toEqual([2022]);
    expect(await counts(coupon, code)).toEqual({ coupon: { redeemed: 1, held: 0 }, code: { redeemed: 1, held: 0 } });
    const discount = { coupon: coupon.id, promotion_code: code.id, percent_off: 15, amount_off: null, duration: 'once', duration_in_months: null };
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.key })).body;
    expect(order).toMatchObject({ status: 'paid', discount, amount_discount: 300, amount_subtotal: 1699, amount_tax: 323, amount_total: 2022 });

    const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key: store.key })).body;
    expect(Object.keys(invoice).slice(16, 22)).toEqual(['lines', 'tax_breakdown', 'discount', 'amount_discount', 'amount_subtotal', 'amount_tax']);
    expect(invoice).toMatchObject({
      lines: [{ description: 'Ebook', quantity: 1, unit_amount: 1999, amount_discount: 300, amount_subtotal: 1699, tax_rate: 19, amount_tax: 323, amount_total: 2022 }],
      tax_breakdown: [{ rate: 19, amount_net: 1699, amount_tax: 323 }],
      discount,
      amount_discount: 300,
      amount_subtotal: 1699,
      amount_tax: 323,
      amount_total: 2022,
    });
    const pdf = await fetch(`${api.baseUrl}/api/v1/invoices/${invoice.id}/pdf`, { headers: { authorization: `Bearer ${store.key}` } });
    const [page] = await pdfPages(new Uint8Array(await pdf.arrayBuffer()));
    expect(page).toContain('Ebook 1 €19.99 19 % €16.99 €20.22 Discount (SPRING15): −€3.00 VAT BY RATE');

    const emails = (await api.request('GET', `/api/v1/test_helpers/emails?to=ada@example.com`, { key: store.key })).body.data;
    const receipt = emails.find((email: { related: { order_id: string } }) => email.related.order_id === session.order_id);
    expect(receipt.text).toContain(
      ['Ebook                 €19.99', 'Discount (SPRING15)   −€3.00', 'Subtotal              €16.99', 'VAT                   €3.23', 'Total paid            €20.22'].join('\n'),
    );

    // A refund gives no redemption back.
    const refund = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: session.order_id } });
    expect(refund.status).toBe(201);
    expect(await counts(coupon, code)).toEqual({ coupon: { redeemed: 1, held: 0 }, code: { redeemed: 1, held: 0 } });
  });

  it('a declined card gives the held redemption back', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { percentOff: 15, maxRedemptions: 1 });
    const session = await createSession({ discounts: [{ coupon: coupon.id }] });
    expect(landing(await post(session.url, '/pay', DECLINED)).query).toEqual({ error: 'card_declined' });
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 0, held: 0 } });
    const [attempt] = await api.services.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, session.id));
    expect(attempt).toMatchObject({ status: 'declined', redemptionHeld: true, amount: 2022 });
  });

  it('an attempt whose answer was lost holds its redemption until the reconciler finds it paid', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { amountOff: 1000, maxRedemptions: 1 });
    const session = await createSession({ discounts: [{ coupon: coupon.id }] });
    const real = api.services.gateways.test;
    // The charge happens, its answer is lost.
    const charge = async (request: Parameters<typeof real.charge>[0]) => {
      await real.charge(request);
      throw new GatewayTimeoutError();
    };
    const losing = { ...api.services, gateways: { ...api.services.gateways, test: { ...real, charge } } };
    await expect(payCheckoutSession(losing, { sessionId: session.id, card: { number: '4242424242424242', expiry: '12/30', cvc: '123' } })).rejects.toMatchObject({ code: 'payment_outcome_unknown' });
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 0, held: 1 } });
    // Another buyer finds none left while it is held.
    const other = await createSession({ allow_promotion_codes: true });
    await createPromotionCode(api.services.db, coupon, 'HELDBACK');
    expect(landing(await post(other.url, '/discount', { promotion_code: 'HELDBACK' })).query).toEqual({});
    expect(landing(await post(other.url, '/pay', CARD)).query).toEqual({ error: 'code_invalid' });
    expect(await readSession(other)).toMatchObject({ status: 'open', payment_status: 'unpaid', discount: null, amount_discount: 0, amount_total: 2379 });
    expect(await chargesOf(other.id)).toEqual([]);

    expect(await reconcilePaymentAttempts({ ...api.services, settings: { staleAfterSeconds: 0 } }, { sessionId: session.id })).toBe(1);
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    expect(await readSession(session)).toMatchObject({ status: 'complete', amount_discount: 1000, amount_total: 1189 });
  });

  it('a total of 0: no card fields, paid without the gateway, invoiced and receipted, the redemption taken at once', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { name: 'Free copy', percentOff: 100, maxRedemptions: 1 });
    const session = await createSession({ discounts: [{ coupon: coupon.id }] });
    expect((await pageView(session)).view).toMatchObject({ amountTotal: 0, discount: { label: 'Free copy', amount: 1999, removable: false } });
    expect(landing(await post(session.url, '/pay', {})).path).toBe(`/checkout/${session.id}/receipt`);
    expect(await chargesOf(session.id)).toEqual([]);
    expect(await api.services.db.select().from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, session.id))).toEqual([]);
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.key })).body;
    expect(order).toMatchObject({ status: 'paid', amount_discount: 1999, amount_subtotal: 0, amount_tax: 0, amount_total: 0, invoice_id: expect.stringMatching(/^in_test_/) });
    const events = (await api.request('GET', '/api/v1/events?limit=100', { key: store.key })).body.data.filter(
      (event: any) => event.data.object.id === session.id || event.data.object.order_id === session.order_id || event.data.object.id === session.order_id,
    );
    expect(events.map((event: { type: string }) => event.type).sort()).toEqual(['checkout.session.completed', 'invoice.issued', 'order.paid']);
    // Its invoice says nothing was charged, not that a card paid it.
    const pdf = await fetch(`${api.baseUrl}/api/v1/invoices/${order.invoice_id}/pdf`, { headers: { authorization: `Bearer ${store.key}` } });
    const [page] = await pdfPages(new Uint8Array(await pdf.arrayBuffer()));
    expect(page).toContain('Nothing was charged. Nothing is due.');
    expect(page).not.toContain('Paid in full by card');
  });

  it('a discount given at creation and used up by the time of paying: nothing charged, the session cannot be paid', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { percentOff: 15, maxRedemptions: 1 });
    const session = await createSession({ discounts: [{ coupon: coupon.id }] });
    await api.services.db.update(coupons).set({ timesRedeemed: 1 }).where(eq(coupons.id, coupon.id));
    expect(landing(await post(session.url, '/pay', CARD))).toEqual({ path: `/checkout/${session.id}`, query: { error: 'discount_unavailable' }, fragment: '#form-error' });
    expect(await chargesOf(session.id)).toEqual([]);
    expect(await readSession(session)).toMatchObject({ status: 'open', payment_status: 'failed', amount_discount: 300, amount_total: 2022 });
    const failed = await pageView(session);
    expect(failed.state).toBe('failed');
    await expect(payCheckoutSession(api.services, { sessionId: session.id, card: { number: '4242424242424242', expiry: '12/30', cvc: '123' } })).rejects.toMatchObject({
      code: 'session_payment_failed',
    });
  });
});

describe('the last redemption, raced for', () => {
  it('two sessions paying at once under max_redemptions 1: exactly one is charged with the discount, the other nothing', async () => {
    const coupon = await createCoupon(api.services.db, scope(), { percentOff: 15, maxRedemptions: 1 });
    const sessions = [await createSession({ discounts: [{ coupon: coupon.id }] }), await createSession({ discounts: [{ coupon: coupon.id }] })];
    const outcomes = await Promise.all(sessions.map(async (session) => landing(await post(session.url, '/pay', CARD))));
    const paid = outcomes.filter((outcome) => outcome.path.endsWith('/receipt'));
    const refused = outcomes.filter((outcome) => outcome.query.error === 'discount_unavailable');
    expect([paid.length, refused.length]).toEqual([1, 1]);
    const charged = (await Promise.all(sessions.map((session) => chargesOf(session.id)))).map((charges) => charges.map((charge) => charge.amount));
    expect(charged.sort()).toEqual([[], [2022]]);
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    const rows = await Promise.all(sessions.map(async (session) => (await api.services.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.id)))[0]!.paymentStatus));
    expect(rows.sort()).toEqual(['failed', 'paid']);
  });
});
