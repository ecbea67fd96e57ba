import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { coupons, orders, promotionCodes, subscriptionCheckouts } from '@/db/schema';
import { answerSubscriptionPromotionCode } from '@/server/subscriptions/hosted';
import { advanceClock, chargesOf, DAY, retrieveSubscription } from '../billing/support';
import { createProduct, epoch, expectError } from '../support/api';
import { listEmails } from '../mail/support';
import { createCoupon, createPromotionCode, type CouponSpec } from '../support/coupons';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { CARDS, createCheckout, eventsOf, PLAN, SUBSCRIPTIONS, submitCard, type CreatedCheckout } from './support';

/**
 * Discounts on subscription checkouts over HTTP against a real database: given at creation or
 * typed on the page, the first charge less the discount, `discount_end` fixed by the first charged
 * period and the renewals it reaches (once, repeating, forever) over a year of the test clock, the
 * invoices' lines, and one redemption per subscription, however two customers race for the last.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true });

const scopeOf = (s: { id: string }, livemode = false) => ({ storeId: s.id, livemode });
/** 1999 a month: 15 % off is 300. */
const PLAN_1999 = { ...PLAN, amount: 1999 };

/** A store of its own, for a test that moves the store's test clock (it stays moved). */
async function clockStore() {
  const created = await createStore(api.services, { subscriptions: true });
  return { ...created, key: created.keys.sk_test };
}

async function counts(coupon: { id: string }, code?: { id: string }) {
  const [c] = await api.services.db.select().from(coupons).where(eq(coupons.id, coupon.id));
  const [p] = code ? await api.services.db.select().from(promotionCodes).where(eq(promotionCodes.id, code.id)) : [];
  return { coupon: { redeemed: c!.timesRedeemed, held: c!.redemptionsHeld }, ...(p ? { code: { redeemed: p.timesRedeemed, held: p.redemptionsHeld } } : {}) };
}

async function subscriptionOf(key: string, checkout: CreatedCheckout) {
  const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key });
  return read.body.subscription === null ? null : retrieveSubscription(api, key, read.body.subscription);
}

const chargedAmounts = async (subscriptionId: string) => (await chargesOf(api.services.db, subscriptionId)).filter((charge) => charge.status === 'succeeded').map((charge) => charge.amount);
const ordersOf = (subscriptionId: string) => api.services.db.select().from(orders).where(eq(orders.subscriptionId, subscriptionId)).orderBy(asc(orders.createdAt));

/** The page's promotion code form, posted as the browser posts it. */
function postCode(checkout: CreatedCheckout, fields: Record<string, string>) {
  const { id, expires, signature } = checkout.link;
  const request = new Request(`http://localhost/subscribe/${id}/discount?expires=${expires}&signature=${signature}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.20' },
    body: new URLSearchParams(fields),
  });
  return answerSubscriptionPromotionCode(api.services, request, id);
}

describe('POST /api/v1/subscriptions: discounts and allow_promotion_codes', () => {
  it('a coupon or a promotion code is echoed as `discount`; allow_promotion_codes is echoed', async () => {
    const coupon = await createCoupon(api.services.db, scopeOf(store), { percentOff: 15, duration: 'repeating', durationInMonths: 3 });
    const code = await createPromotionCode(api.services.db, coupon, `SPRING${Date.now()}`);
    const terms = { coupon: coupon.id, percent_off: 15, amount_off: null, duration: 'repeating', duration_in_months: 3 };
    expect(await createCheckout(api, store.key, { ...PLAN, discounts: [{ coupon: coupon.id }] })).toMatchObject({ discount: { ...terms, promotion_code: null }, allow_promotion_codes: false });
    expect(await createCheckout(api, store.key, { ...PLAN, discounts: [{ promotion_code: code.id }] })).toMatchObject({ discount: { ...terms, promotion_code: code.id } });
    expect(await createCheckout(api, store.key, { ...PLAN, allow_promotion_codes: true })).toMatchObject({ discount: null, allow_promotion_codes: true });
  });

  it('both: 400 parameter_invalid; unknown, foreign or other-environment ids: 404; unusable now or bound to products in plan mode: 400 discount_invalid', async () => {
    const coupon = await createCoupon(api.services.db, scopeOf(store));
    expectError(
      await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...PLAN, discounts: [{ coupon: coupon.id }], allow_promotion_codes: true } }),
      400,
      'parameter_invalid',
      'allow_promotion_codes',
    );
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...PLAN, discounts: [{ coupon: 'cpn_test_unknown' }] } }), 404, 'resource_missing', 'discounts[0].coupon');
    const other = await createStore(api.services, { subscriptions: true });
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: other.keys.sk_test, body: { ...PLAN, discounts: [{ coupon: coupon.id }] } }), 404, 'resource_missing', 'discounts[0].coupon');
    expectError(
      await api.request('POST', SUBSCRIPTIONS, { key: store.keys.sk_live, body: { ...PLAN, success_url: 'https://merchant.example/done', discounts: [{ coupon: coupon.id }] } }),
      404,
      'resource_missing',
      'discounts[0].coupon',
    );
    const exhausted = await createCoupon(api.services.db, scopeOf(store), { maxRedemptions: 1 });
    await api.services.db.update(coupons).set({ timesRedeemed: 1 }).where(eq(coupons.id, exhausted.id));
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...PLAN, discounts: [{ coupon: exhausted.id }] } }), 400, 'discount_invalid', 'discounts[0].coupon');
    const product = await createProduct(api, store.key, { name: 'Club', amount: 1999, mode: 'recurring', interval: 'month' });
    const bound = await createCoupon(api.services.db, scopeOf(store), { appliesTo: [product.id] });
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { ...PLAN, discounts: [{ coupon: bound.id }] } }), 400, 'discount_invalid', 'discounts[0].coupon');
    // Its own product in price mode: usable.
    expect(
      (await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { price_id: product.price_id, total_payments: 12, customer_email: 'ada@example.com', discounts: [{ coupon: bound.id }] } }))
        .status,
    ).toBe(201);
    const otherProduct = await createProduct(api, store.key, { name: 'Other club', amount: 999, mode: 'recurring', interval: 'month' });
    expectError(
      await api.request('POST', SUBSCRIPTIONS, { key: store.key, body: { price_id: otherProduct.price_id, total_payments: 12, customer_email: 'ada@example.com', discounts: [{ coupon: bound.id }] } }),
      400,
      'discount_invalid',
      'discounts[0].coupon',
    );
  });

  it('a live-mode coupon works with a live key in another store', async () => {
    const other = await createStore(api.services, { subscriptions: true });
    const coupon = await createCoupon(api.services.db, scopeOf(other, true), { amountOff: 300 });
    const created = await api.request('POST', SUBSCRIPTIONS, { key: other.keys.sk_live, body: { ...PLAN, success_url: 'https://merchant.example/done', discounts: [{ coupon: coupon.id }] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ livemode: true, discount: { coupon: coupon.id, amount_off: 300, percent_off: null, duration: 'once' } });
  });
});

describe('the first charge less the discount, and the renewals it reaches', () => {
  it('15 % off 1999, once: 1699 charged; discount_end the first period’s end; the invoice line 1999 less 300; the renewals of the year at 1999', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { percentOff: 15, duration: 'once' });
    const checkout = await createCheckout(api, own.key, { ...PLAN_1999, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const subscription = (await subscriptionOf(own.key, checkout))!;
    const periodEnd = epoch(new Date('2026-04-01T12:00:00Z'));
    expect(subscription).toMatchObject({
      status: 'active',
      amount: 1999,
      discount: { coupon: coupon.id, promotion_code: null, percent_off: 15, amount_off: null, duration: 'once', duration_in_months: null, end: periodEnd },
    });
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    const [order] = await ordersOf(subscription.id);
    const invoice = (await api.request('GET', `/api/v1/invoices/${order!.invoiceId}`, { key: own.key })).body;
    expect(invoice).toMatchObject({ amount_total: 1699, amount_discount: 300, discount: { coupon: coupon.id, percent_off: 15 } });
    expect(invoice.lines).toEqual([
      { description: expect.stringContaining('Pro plan'), quantity: 1, unit_amount: 1999, amount_discount: 300, amount_subtotal: 1699, tax_rate: 0, amount_tax: 0, amount_total: 1699 },
    ]);
    await advanceClock(api, own.key, 366 * DAY);
    expect(await chargedAmounts(subscription.id)).toEqual([1699, ...Array(11).fill(1999)]);
    const renewal = (await ordersOf(subscription.id))[1]!;
    const renewalInvoice = (await api.request('GET', `/api/v1/invoices/${renewal.invoiceId}`, { key: own.key })).body;
    expect(renewalInvoice).toMatchObject({ amount_total: 1999, amount_discount: 0, discount: null });
    // Redeemed once per subscription: renewals take none.
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
  });

  it('repeating 3 months, monthly: charges 1–3 discounted', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { percentOff: 15, duration: 'repeating', durationInMonths: 3 });
    const checkout = await createCheckout(api, own.key, { ...PLAN_1999, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const subscription = (await subscriptionOf(own.key, checkout))!;
    expect(subscription.discount.end).toBe(epoch(new Date('2026-06-01T12:00:00Z')));
    // A week at a time, so that each renewal's reminder falls due on its way.
    for (let week = 0; week < 53; week++) await advanceClock(api, own.key, 7 * DAY);
    expect(await chargedAmounts(subscription.id)).toEqual([1699, 1699, 1699, ...Array(9).fill(1999)]);
    // Each renewal's reminder announces what it charges: renewals 2 and 3 discounted, the rest in full.
    const reminders = (await listEmails(api, own.key, '?template=renewal_reminder&limit=100')).reverse();
    expect(reminders.map((email) => /: (€[\d.]+) will be charged/.exec(email.text)?.[1])).toEqual(['€16.99', '€16.99', ...Array(9).fill('€19.99')]);
  });

  it('repeating 3 months, yearly: charge 1 only', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { amountOff: 1000, duration: 'repeating', durationInMonths: 3 });
    const checkout = await createCheckout(api, own.key, { ...PLAN_1999, interval: 'year', total_payments: 3, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const subscription = (await subscriptionOf(own.key, checkout))!;
    await advanceClock(api, own.key, 2 * 366 * DAY);
    expect(await chargedAmounts(subscription.id)).toEqual([999, 1999, 1999]);
  });

  it('forever: a year of monthly renewals, all 12 charges discounted and invoiced so', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { percentOff: 50, duration: 'forever' });
    const checkout = await createCheckout(api, own.key, { ...PLAN, amount: 333, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const subscription = (await subscriptionOf(own.key, checkout))!;
    expect(subscription.discount).toMatchObject({ duration: 'forever', end: null });
    await advanceClock(api, own.key, 366 * DAY);
    // 50 % of 333 rounds half up: 167 off, 166 charged, each month of the year.
    expect(await chargedAmounts(subscription.id)).toEqual(Array(12).fill(166));
    const invoices = await Promise.all((await ordersOf(subscription.id)).map(async (order) => (await api.request('GET', `/api/v1/invoices/${order.invoiceId}`, { key: own.key })).body));
    expect(invoices.map((invoice) => [invoice.amount_subtotal, invoice.amount_discount, invoice.amount_total, invoice.discount?.coupon])).toEqual(Array(12).fill([166, 167, 166, coupon.id]));
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ status: 'expired', discount: { duration: 'forever', end: null } });
    // Redeemed once per subscription: renewals take none.
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
  });

  it('a coupon deleted after it was granted: the subscription keeps its discount on the renewals it reaches; a new checkout with it: 400 discount_invalid', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { percentOff: 15, duration: 'repeating', durationInMonths: 2 });
    const checkout = await createCheckout(api, own.key, { ...PLAN_1999, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const subscription = (await subscriptionOf(own.key, checkout))!;
    const deleted = await api.request('DELETE', `/api/v1/coupons/${coupon.id}`, { key: own.key });
    expect(deleted.status).toBe(200);
    await advanceClock(api, own.key, 95 * DAY);
    expect(await chargedAmounts(subscription.id)).toEqual([1699, 1699, 1999, 1999]);
    expect(await retrieveSubscription(api, own.key, subscription.id)).toMatchObject({ discount: { coupon: coupon.id, duration: 'repeating', end: subscription.discount.end } });
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: own.key, body: { ...PLAN_1999, discounts: [{ coupon: coupon.id }] } }), 400, 'discount_invalid', 'discounts[0].coupon');
  });

  it('100 % off: a first charge of 0 still checks the card, is invoiced at 0; the renewal is full', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { percentOff: 100 });
    const checkout = await createCheckout(api, own.key, { ...PLAN, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const subscription = (await subscriptionOf(own.key, checkout))!;
    expect(subscription).toMatchObject({ status: 'active', card: { brand: 'visa', last4: '4242' }, recurring_id: expect.stringMatching(/^sim_rec_/) });
    const [order] = await ordersOf(subscription.id);
    expect(order).toMatchObject({ amountTotal: 0, amountDiscount: 990, status: 'paid' });
    await advanceClock(api, own.key, 31 * DAY);
    expect(await chargedAmounts(subscription.id)).toEqual([0, 990]);
  });

  it('a declined first charge gives the held redemption back', async () => {
    const coupon = await createCoupon(api.services.db, scopeOf(store), { maxRedemptions: 1 });
    const checkout = await createCheckout(api, store.key, { ...PLAN, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout, CARDS.declined);
    expect((await subscriptionOf(store.key, checkout))!.status).toBe('incomplete');
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 0, held: 0 } });
  });
});

describe('a trial with a discount', () => {
  it('redeemed as the trial begins; the first charge at its end discounted; discount_end counted from there', async () => {
    const own = await clockStore();
    const coupon = await createCoupon(api.services.db, scopeOf(own), { percentOff: 15, duration: 'repeating', durationInMonths: 2 });
    const checkout = await createCheckout(api, own.key, { ...PLAN_1999, trial_days: 14, discounts: [{ coupon: coupon.id }] });
    await submitCard(api, checkout);
    const trialing = (await subscriptionOf(own.key, checkout))!;
    expect(trialing).toMatchObject({ status: 'trialing', discount: { coupon: coupon.id, end: null } });
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    await advanceClock(api, own.key, 14 * DAY);
    const active = await retrieveSubscription(api, own.key, trialing.id);
    expect(active).toMatchObject({ status: 'active', discount: { end: epoch(new Date('2026-05-15T12:00:00Z')) } });
    await advanceClock(api, own.key, 70 * DAY);
    expect(await chargedAmounts(trialing.id)).toEqual([0, 1699, 1699, 1999]);
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    // The notice named the discounted first charge.
    expect((await eventsOf(api.services.db, trialing.id)).map((event) => event.type)).toContain('subscription.trial_will_end');
    const [notice] = await listEmails(api, own.key, '?template=trial_ending');
    expect(notice.text).toContain('Then €16.99 will be charged to your card.');
  });
});

describe('the promotion code field on the subscription page', () => {
  it('a code in any case applies (303 back to the page); Remove takes it off; an unknown or unusable code: code_invalid, nothing changes', async () => {
    const coupon = await createCoupon(api.services.db, scopeOf(store), { percentOff: 15 });
    const code = await createPromotionCode(api.services.db, coupon, `WELCOME${Date.now()}`);
    const inactive = await createPromotionCode(api.services.db, coupon, `OLD${Date.now()}`, { active: false });
    const checkout = await createCheckout(api, store.key, { ...PLAN_1999, allow_promotion_codes: true });
    const page = `/subscribe/${checkout.id}?expires=${checkout.link.expires}&signature=${checkout.link.signature}`;
    const applied = await postCode(checkout, { promotion_code: code.code.toLowerCase() });
    expect({ status: applied.status, location: applied.headers.get('location') }).toEqual({ status: 303, location: page });
    const read = async () => (await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key: store.key })).body.discount;
    expect(await read()).toMatchObject({ coupon: coupon.id, promotion_code: code.id });
    expect((await postCode(checkout, { remove: '1' })).headers.get('location')).toBe(page);
    expect(await read()).toBeNull();
    for (const typed of ['NOPE-NOPE', inactive.code, 'x']) {
      expect((await postCode(checkout, { promotion_code: typed })).headers.get('location')).toBe(`${page}&error=code_invalid#promotion-code`);
      expect(await read()).toBeNull();
    }
    // A checkout without the field takes no code.
    const plain = await createCheckout(api, store.key, PLAN_1999);
    await postCode(plain, { promotion_code: code.code });
    expect((await api.request('GET', `${SUBSCRIPTIONS}/checkout/${plain.id}`, { key: store.key })).body.discount).toBeNull();
  });

  it('the applied code is charged; one left and used up by then: dropped, code_invalid, nothing charged, the link still usable at full price', async () => {
    const coupon = await createCoupon(api.services.db, scopeOf(store), { percentOff: 15 });
    const code = await createPromotionCode(api.services.db, coupon, `LAST${Date.now()}`, { maxRedemptions: 1 });
    const first = await createCheckout(api, store.key, { ...PLAN_1999, allow_promotion_codes: true, customer_email: 'one@example.com' });
    const second = await createCheckout(api, store.key, { ...PLAN_1999, allow_promotion_codes: true, customer_email: 'two@example.com' });
    await postCode(first, { promotion_code: code.code });
    await postCode(second, { promotion_code: code.code });
    await submitCard(api, first);
    expect(await chargedAmounts((await subscriptionOf(store.key, first))!.id)).toEqual([1699]);
    const refused = await submitCard(api, second);
    expect(refused).toMatchObject({ kind: 'redirect', location: expect.stringContaining('error=code_invalid') });
    const [row] = await api.services.db.select().from(subscriptionCheckouts).where(eq(subscriptionCheckouts.id, second.id));
    expect(row).toMatchObject({ status: 'open', discount: null, subscriptionId: null });
    await submitCard(api, second);
    expect(await chargedAmounts((await subscriptionOf(store.key, second))!.id)).toEqual([1999]);
    expect(await counts(coupon, code)).toEqual({ coupon: { redeemed: 1, held: 0 }, code: { redeemed: 1, held: 0 } });
  });
});

describe('one redemption per subscription, however customers race', () => {
  it('max_redemptions 1, two checkouts paying at once: one is charged with the discount, the other nothing and told', async () => {
    const coupon = await createCoupon(api.services.db, scopeOf(store), { percentOff: 15, maxRedemptions: 1 } satisfies CouponSpec);
    const checkouts = await Promise.all(['a@example.com', 'b@example.com'].map((email) => createCheckout(api, store.key, { ...PLAN_1999, customer_email: email, discounts: [{ coupon: coupon.id }] })));
    const outcomes = await Promise.all(checkouts.map((checkout) => submitCard(api, checkout)));
    const refused = outcomes.filter((outcome) => outcome.kind === 'redirect' && outcome.location.includes('error=discount_unavailable'));
    expect(refused).toHaveLength(1);
    const subscriptions = await Promise.all(checkouts.map((checkout) => subscriptionOf(store.key, checkout)));
    const started = subscriptions.filter((subscription) => subscription !== null);
    expect(started).toHaveLength(1);
    expect(await chargedAmounts(started[0]!.id)).toEqual([1699]);
    expect(await counts(coupon)).toEqual({ coupon: { redeemed: 1, held: 0 } });
    // The refused one stays unpaid: each attempt is told again, and nothing is charged.
    const loser = checkouts[subscriptions.indexOf(null)]!;
    expect(await submitCard(api, loser)).toMatchObject({ location: expect.stringContaining('error=discount_unavailable') });
    expect(await subscriptionOf(store.key, loser)).toBeNull();
  });
});
