import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { coupons } from '@/db/schema';
import { updateSessionBilling } from '@/server/checkout/buyer-tax';
import { createBuyerCountryStore, createTaxedProduct } from '../support/buyer-country';
import { createCoupon, createPromotionCode } from '../support/coupons';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, HOUR, SESSIONS, T0 } from './api-support';

/**
 * Checkout sessions created with a discount (`discounts`) or offering a code field
 * (`allow_promotion_codes`): the amounts to the cent, per line and before tax, in both tax modes,
 * what is refused, and the discount on the session and its order as the API reads them.
 */
const api = useTestApi();
const store = useTestStore(api);
const taxStore = useTestStore(api, { taxCalculation: true, liveApi: true });
const scope = () => ({ storeId: store.id, livemode: false });

const create = (body: Record<string, unknown>, key = store.key) => api.request('POST', SESSIONS, { key, body });
const created = async (body: Record<string, unknown>, key = store.key) => {
  const response = await create(body, key);
  expect(response.status).toBe(201);
  return response.body;
};
const orderOf = async (session: { order_id: string }, key = store.key) => (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key })).body;
const linesOf = async (session: { order_id: string }, key = store.key) =>
  (await orderOf(session, key)).lines.map((line: any) => ({ discount: line.amount_discount, subtotal: line.amount_subtotal, tax: line.amount_tax, total: line.amount_total }));

let ebook: any;
let odd: any;
let cart: any[];

beforeAll(async () => {
  ebook = await createProduct(api, store.key, { name: 'Ebook', amount: 1999 });
  odd = await createProduct(api, store.key, { name: 'Sticker', amount: 333 });
  cart = [ebook, await createProduct(api, store.key, { name: 'Poster', amount: 999 }), await createProduct(api, store.key, { name: 'Card', amount: 502 })];
});

describe('the amounts: per line, before tax, to the cent', () => {
  it('15 % of 1999 is 300; 50 % of 333 is 167 (half up)', async () => {
    const fifteen = await createCoupon(api.services.db, scope(), { percentOff: 15 });
    const session = await created({ price_id: ebook.price_id, discounts: [{ coupon: fifteen.id }] });
    expect(session).toMatchObject({ amount_discount: 300, amount_subtotal: 1699, amount_tax: 0, amount_total: 1699 });
    expect(await linesOf(session)).toEqual([{ discount: 300, subtotal: 1699, tax: 0, total: 1699 }]);

    const half = await createCoupon(api.services.db, scope(), { percentOff: 50 });
    const sticker = await created({ price_id: odd.price_id, discounts: [{ coupon: half.id }] });
    expect(sticker).toMatchObject({ amount_discount: 167, amount_subtotal: 166, amount_total: 166 });
  });

  it('1000 off 1999, 999 and 502 is spread 571, 286, 143 (largest remainder)', async () => {
    const thousand = await createCoupon(api.services.db, scope(), { amountOff: 1000 });
    const session = await created({ line_items: cart.map((product) => ({ price_id: product.price_id })), discounts: [{ coupon: thousand.id }] });
    expect(session).toMatchObject({ amount_discount: 1000, amount_subtotal: 2500, amount_total: 2500 });
    expect(await linesOf(session)).toEqual([
      { discount: 571, subtotal: 1428, tax: 0, total: 1428 },
      { discount: 286, subtotal: 713, tax: 0, total: 713 },
      { discount: 143, subtotal: 359, tax: 0, total: 359 },
    ]);
  });

  it('an amount above the lines takes them to 0, not below', async () => {
    const big = await createCoupon(api.services.db, scope(), { amountOff: 5000 });
    const session = await created({ price_id: ebook.price_id, discounts: [{ coupon: big.id }] });
    expect(session).toMatchObject({ amount_discount: 1999, amount_subtotal: 0, amount_total: 0 });
  });

  it('lines outside applies_to get 0', async () => {
    const posterOnly = await createCoupon(api.services.db, scope(), { percentOff: 15, appliesTo: [cart[1].id] });
    const session = await created({ line_items: cart.map((product) => ({ price_id: product.price_id })), discounts: [{ coupon: posterOnly.id }] });
    expect(await linesOf(session)).toEqual([
      { discount: 0, subtotal: 1999, tax: 0, total: 1999 },
      { discount: 150, subtotal: 849, tax: 0, total: 849 },
      { discount: 0, subtotal: 502, tax: 0, total: 502 },
    ]);
    expect(session).toMatchObject({ amount_discount: 150, amount_total: 3350 });
  });

  it('tax on what is left: 1999 less 300 at 19 % is 1699 + 323 = 2022; VAT included, 1699 of which 271', async () => {
    const fifteen = await createCoupon(api.services.db, { storeId: taxStore.id, livemode: false }, { percentOff: 15 });
    const exclusive = await createProduct(api, taxStore.key, { amount: 1999, tax_rate: 19 });
    const inclusive = await createProduct(api, taxStore.key, { amount: 1999, tax_rate: 19, tax_inclusive: true });
    const added = await created({ price_id: exclusive.price_id, discounts: [{ coupon: fifteen.id }] }, taxStore.key);
    expect(added).toMatchObject({ amount_discount: 300, amount_subtotal: 1699, amount_tax: 323, amount_total: 2022 });
    expect(await linesOf(added, taxStore.key)).toEqual([{ discount: 300, subtotal: 1699, tax: 323, total: 2022 }]);
    const included = await created({ price_id: inclusive.price_id, discounts: [{ coupon: fifteen.id }] }, taxStore.key);
    expect(included).toMatchObject({ amount_discount: 300, amount_subtotal: 1428, amount_tax: 271, amount_total: 1699 });
    expect(await linesOf(included, taxStore.key)).toEqual([{ discount: 300, subtotal: 1428, tax: 271, total: 1699 }]);
  });

  it('taxed by the buyer’s country: the discount stays in when the country is learnt', async () => {
    const buyerStore = await createBuyerCountryStore(api);
    const price = await createTaxedProduct(api, buyerStore.key, { name: 'Field guide', amount: 1999 });
    const fifteen = await createCoupon(api.services.db, { storeId: buyerStore.id, livemode: false }, { percentOff: 15 });
    const session = await created({ price_id: price, discounts: [{ coupon: fifteen.id }] }, buyerStore.key);
    expect(session).toMatchObject({ amount_discount: 300, amount_subtotal: 1699, amount_tax: 0, amount_total: 1699 });
    const taxed = await updateSessionBilling(api.services, session.id, { country: 'DE', name: 'Ada', company: '', vatId: '', line1: '', postalCode: '', city: '' });
    expect(taxed.kind).toBe('taxed');
    const read = await api.request('GET', `${SESSIONS}/${session.id}`, { key: buyerStore.key });
    expect(read.body).toMatchObject({ amount_discount: 300, amount_subtotal: 1699, amount_tax: 323, amount_total: 2022, tax_country: 'DE' });
    expect(await linesOf(session, buyerStore.key)).toEqual([{ discount: 300, subtotal: 1699, tax: 323, total: 2022 }]);
  });
});

describe('the session, its order and the list as the API reads them', () => {
  it('a session created with a promotion code: every field, in order; its order and its line', async () => {
    api.clock.set(T0);
    const coupon = await createCoupon(api.services.db, scope(), { name: 'Summer sale', percentOff: 15, duration: 'repeating', durationInMonths: 3 });
    const code = await createPromotionCode(api.services.db, coupon, 'SUMMER25');
    const session = await created({ price_id: ebook.price_id, discounts: [{ promotion_code: code.id }] });
    const discount = { coupon: coupon.id, promotion_code: code.id, percent_off: 15, amount_off: null, duration: 'repeating', duration_in_months: 3 };
    expect(Object.keys(session).slice(7, 14)).toEqual(['currency', 'allow_promotion_codes', 'discount', 'amount_discount', 'amount_subtotal', 'amount_tax', 'amount_total']);
    expect(session).toEqual({
      id: expect.stringMatching(/^cs_test_/),
      object: 'checkout.session',
      url: expect.any(String),
      client_secret: expect.any(String),
      status: 'open',
      payment_status: 'unpaid',
      livemode: false,
      currency: 'eur',
      allow_promotion_codes: false,
      discount,
      amount_discount: 300,
      amount_subtotal: 1699,
      amount_tax: 0,
      amount_total: 1699,
      quantity: 1,
      price_id: ebook.price_id,
      product_id: ebook.id,
      description: null,
      order_id: expect.stringMatching(/^ord_test_/),
      customer_email: null,
      success_url: null,
      cancel_url: null,
      metadata: {},
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      created: epoch(T0),
      expires_at: epoch(T0) + 24 * HOUR,
    });
    const read = await api.request('GET', `${SESSIONS}/${session.id}`, { key: store.key });
    expect(read.body).toEqual({ ...session, client_secret: null });
    const listed = await api.request('GET', `${SESSIONS}?limit=100`, { key: store.key });
    expect(listed.body.data.find((item: { id: string }) => item.id === session.id)).toEqual({ ...session, client_secret: null });

    const order = await orderOf(session);
    expect(Object.keys(order).slice(4, 9)).toEqual(['currency', 'discount', 'amount_discount', 'amount_subtotal', 'amount_tax']);
    expect(order).toMatchObject({ status: 'pending', discount, amount_discount: 300, amount_subtotal: 1699, amount_tax: 0, amount_total: 1699 });
    expect(order.lines).toEqual([
      {
        object: 'order_line',
        product_id: ebook.id,
        price_id: ebook.price_id,
        description: 'Ebook',
        quantity: 1,
        unit_amount: 1999,
        amount_discount: 300,
        amount_subtotal: 1699,
        amount_tax: 0,
        amount_total: 1699,
        tax_rate: null,
        tax_inclusive: false,
      },
    ]);
  });

  it('without a discount: the fields are there, null and 0, and allow_promotion_codes is echoed', async () => {
    const plain = await created({ price_id: ebook.price_id });
    expect(plain).toMatchObject({ allow_promotion_codes: false, discount: null, amount_discount: 0, amount_total: 1999 });
    const offering = await created({ price_id: ebook.price_id, allow_promotion_codes: true });
    expect(offering).toMatchObject({ allow_promotion_codes: true, discount: null, amount_discount: 0, amount_total: 1999 });
    expect(await orderOf(offering)).toMatchObject({ discount: null, amount_discount: 0 });
  });

  it('a live session with a live coupon; each environment and store sees only its own coupons', async () => {
    const liveCoupon = await createCoupon(api.services.db, { storeId: taxStore.id, livemode: true }, { amountOff: 500 });
    const product = await createProduct(api, taxStore.keys.sk_live, { amount: 1999, tax_rate: 19 });
    const live = await created({ price_id: product.price_id, discounts: [{ coupon: liveCoupon.id }] }, taxStore.keys.sk_live);
    expect(live).toMatchObject({ livemode: true, discount: { coupon: liveCoupon.id, amount_off: 500, percent_off: null }, amount_discount: 500, amount_subtotal: 1499, amount_tax: 285, amount_total: 1784 });
    expect(liveCoupon.id).toMatch(/^cpn_live_/);
    // The live coupon in test mode, and another store's coupon: unknown.
    expectError(await create({ price_id: ebook.price_id, discounts: [{ coupon: liveCoupon.id }] }), 404, 'resource_missing', 'discounts[0].coupon');
    const foreign = await createCoupon(api.services.db, { storeId: taxStore.id, livemode: false });
    expectError(await create({ price_id: ebook.price_id, discounts: [{ coupon: foreign.id }] }), 404, 'resource_missing', 'discounts[0].coupon');
  });
});

describe('what is refused', () => {
  it('discounts and allow_promotion_codes together, two discounts, a malformed entry: parameter_invalid', async () => {
    const coupon = await createCoupon(api.services.db, scope());
    expectError(await create({ price_id: ebook.price_id, discounts: [{ coupon: coupon.id }], allow_promotion_codes: true }), 400, 'parameter_invalid', 'allow_promotion_codes');
    expectError(await create({ price_id: ebook.price_id, discounts: [{ coupon: coupon.id }, { coupon: coupon.id }] }), 400, 'parameter_invalid', 'discounts');
    expectError(await create({ price_id: ebook.price_id, discounts: [{ coupon: coupon.id, promotion_code: 'promo_test_x' }] }), 400, 'parameter_invalid', 'discounts[0]');
    // A session that asks for none may still say so.
    expect((await create({ price_id: ebook.price_id, discounts: [], allow_promotion_codes: true })).status).toBe(201);
  });

  it('unknown coupon or promotion code: 404', async () => {
    expectError(await create({ price_id: ebook.price_id, discounts: [{ coupon: 'cpn_test_unknown' }] }), 404, 'resource_missing', 'discounts[0].coupon');
    expectError(await create({ price_id: ebook.price_id, discounts: [{ promotion_code: 'promo_test_unknown' }] }), 404, 'resource_missing', 'discounts[0].promotion_code');
  });

  it('deleted, used up, past redeem_by, inactive, expired, reaching no line: 400 discount_invalid', async () => {
    api.clock.set(T0);
    const db = api.services.db;
    const refused = async (entry: Record<string, string>, param: string, body: Record<string, unknown> = { price_id: ebook.price_id }) =>
      expectError(await create({ ...body, discounts: [entry] }), 400, 'discount_invalid', param);
    await refused({ coupon: (await createCoupon(db, scope(), { deleted: true })).id }, 'discounts[0].coupon');
    const usedUp = await createCoupon(db, scope(), { maxRedemptions: 1 });
    await db.update(coupons).set({ timesRedeemed: 1 }).where(eq(coupons.id, usedUp.id));
    await refused({ coupon: usedUp.id }, 'discounts[0].coupon');
    await refused({ coupon: (await createCoupon(db, scope(), { redeemBy: new Date(T0.getTime() - 1000) })).id }, 'discounts[0].coupon');
    await refused({ coupon: (await createCoupon(db, scope(), { appliesTo: [odd.id] })).id }, 'discounts[0].coupon');
    const coupon = await createCoupon(db, scope());
    await refused({ promotion_code: (await createPromotionCode(db, coupon, 'OFFNOW', { active: false })).id }, 'discounts[0].promotion_code');
    await refused({ promotion_code: (await createPromotionCode(db, coupon, 'LATE', { expiresAt: new Date(T0.getTime() - 1000) })).id }, 'discounts[0].promotion_code');
    const usedCode = await createPromotionCode(db, coupon, 'ONCEONLY', { maxRedemptions: 1 });
    await db.execute(`update promotion_codes set times_redeemed = 1 where id = '${usedCode.id}'`);
    await refused({ promotion_code: usedCode.id }, 'discounts[0].promotion_code');
    await refused({ promotion_code: (await createPromotionCode(db, await createCoupon(db, scope(), { deleted: true }), 'GONE')).id }, 'discounts[0].promotion_code');
    // Amount mode has no product: a coupon for products reaches nothing.
    const amountStore = await createStore(api.services, { amountMode: true });
    const productCoupon = await createCoupon(db, { storeId: amountStore.id, livemode: false }, { appliesTo: [ebook.id] });
    expectError(await create({ amount: 1000, description: 'Consulting', discounts: [{ coupon: productCoupon.id }] }, amountStore.keys.sk_test), 400, 'discount_invalid', 'discounts[0].coupon');
    const anyCoupon = await createCoupon(db, { storeId: amountStore.id, livemode: false }, { percentOff: 10 });
    expect(await created({ amount: 1000, description: 'Consulting', discounts: [{ coupon: anyCoupon.id }] }, amountStore.keys.sk_test)).toMatchObject({ amount_discount: 100, amount_total: 900 });
  });
});
