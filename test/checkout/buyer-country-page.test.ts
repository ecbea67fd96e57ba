import { asc, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions, orderLines, paymentAttempts, products, stores, subscriptionCharges, subscriptionCheckouts } from '@/db/schema';
import { answerCheckoutBilling, answerHostedPayment } from '@/server/checkout/hosted/submit';
import { loadHostedCheckout } from '@/server/checkout/hosted/page';
import { loadHostedReceipt } from '@/server/checkout/hosted/receipt';
import { receiptUrl } from '@/server/kit/links';
import { taxLineLabel } from '@/server/kit/hosted-page/tax-label';
import { payCheckoutSession } from '@/server/payments/service';
import { answerHostedSubscription, answerSubscriptionBilling, loadHostedSubscriptionCheckout } from '@/server/subscriptions/hosted';
import { createProduct } from '../support/api';
import { createStore } from '../support/factories';
import { serveFetchHandler, useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { SUBSCRIPTIONS } from '../subscriptions/support';

/**
 * The hosted pages of a store taxing by the buyer's country, their forms posted over HTTP as a
 * browser without script posts them (`Update total`, `Pay`, `Subscribe`), and the endpoint the
 * form's script sends the billing details to. What they write is read back from the session, its
 * order lines and the subscription checkout. test/browser/buyer-country.test.ts drives the pages.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const store = useTestStore(api, { subscriptions: true, liveApi: true });
let forms: Awaited<ReturnType<typeof serveFetchHandler>>;
let standard: { price_id: string };

const GERMAN_BUYER = { country: 'DE', name: 'Ada Lovelace', company: '', vat_id: '', address_line1: '', postal_code: '', city: '' };
const AUSTRIAN_COMPANY = { country: 'AT', name: 'Ada Lovelace', company: 'Analytical Engines GmbH', vat_id: 'ATU13585627', address_line1: 'Ringstraße 1', postal_code: '1010', city: 'Wien' };
const CARD = { card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' };

beforeAll(async () => {
  await api.services.db.update(stores).set({ taxMode: 'buyer_country' }).where(eq(stores.id, store.id));
  standard = await createProduct(api, store.key, { name: 'Field guide', amount: 1999 });
  forms = await serveFetchHandler(async (request) => {
    const [, page, id = '', action] = new URL(request.url).pathname.split('/');
    if (page === 'checkout' && action === 'pay') return answerHostedPayment(api.services, payCheckoutSession, request, id);
    if (page === 'checkout' && action === 'billing') return answerCheckoutBilling(api.services, request, id);
    if (page === 'subscribe' && action === 'pay') return answerHostedSubscription(api.services, request, id);
    if (page === 'subscribe' && action === 'billing') return answerSubscriptionBilling(api.services, request, id);
    return new Response('not found', { status: 404 });
  });
});
afterAll(() => forms.close());

async function createSession(body: Record<string, unknown> = { price_id: standard.price_id }, key = store.key) {
  const created = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { customer_email: 'ada@example.com', success_url: 'https://shop.example/thanks', ...body } });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; order_id: string };
}

/** The form posted below the page (`/pay`, `/billing`) as the browser posts it, with the page's signed query. */
function post(pageUrl: string, below: '/pay' | '/billing', fields: Record<string, string>, query = new URL(pageUrl).search) {
  return fetch(`${forms.baseUrl}${new URL(pageUrl).pathname}${below}${query}`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
}

/** Where a 303 sends the browser back to the page: its path and the query beyond the signed link's. */
function backTo(response: Response) {
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location')!, forms.baseUrl);
  const query = Object.fromEntries([...location.searchParams].filter(([name]) => name !== 'expires' && name !== 'signature'));
  return { path: location.pathname, query, fragment: location.hash };
}

/** The billing details the page's cookie keeps, as typed. */
function rememberedBilling(response: Response) {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('billing_details='));
  if (!cookie) return undefined;
  const [pair, ...attributes] = cookie.split('; ');
  return { form: JSON.parse(Buffer.from(decodeURIComponent(pair!.slice('billing_details='.length)), 'base64url').toString('utf8')), attributes };
}

async function sessionRow(id: string) {
  const [row] = await api.services.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  const lines = await api.services.db
    .select({ taxRate: orderLines.taxRate, amountTax: orderLines.amountTax })
    .from(orderLines)
    .where(eq(orderLines.orderId, row!.orderId))
    .orderBy(asc(orderLines.position));
  const [attempts] = await api.services.db.select({ n: count() }).from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, id));
  return { ...row!, lines, attempts: attempts!.n };
}

const amountsOf = (row: { amountSubtotal: number; amountTax: number; amountTotal: number; taxCountry: string | null; taxTreatment: string | null }) => ({
  subtotal: row.amountSubtotal,
  tax: row.amountTax,
  total: row.amountTotal,
  country: row.taxCountry,
  treatment: row.taxTreatment,
});

describe('the checkout page without script: Update total and Pay', () => {
  it('Update total without a country: back to the page with country_required, nothing written; what was typed kept in a cookie of the page alone', async () => {
    const session = await createSession();
    const response = await post(session.url, '/pay', { ...GERMAN_BUYER, country: '', email: 'x', update_total: '1' });
    expect(backTo(response)).toEqual({ path: `/checkout/${session.id}`, query: { billing_errors: 'country:country_required' }, fragment: '' });
    expect(rememberedBilling(response)).toEqual({
      form: { country: '', name: 'Ada Lovelace', company: '', line1: '', postalCode: '', city: '', vatId: '' },
      attributes: [`Path=/checkout/${session.id}`, 'Max-Age=900', 'HttpOnly', 'SameSite=Lax'],
    });
    const row = await sessionRow(session.id);
    expect(amountsOf(row)).toEqual({ subtotal: 1999, tax: 0, total: 1999, country: null, treatment: null });
    expect(row.customerDetails).toBeNull();
    expect(row.lines).toEqual([{ taxRate: null, amountTax: 0 }]);
  });

  it('Update total for Germany: back with total_updated; the session, its order lines and details taxed at 19 % (1999 + 380 = 2379); no payment attempted', async () => {
    const session = await createSession();
    const response = await post(session.url, '/pay', { ...GERMAN_BUYER, ...CARD, update_total: '1', shown_total: '1999' });
    expect(backTo(response)).toEqual({ path: `/checkout/${session.id}`, query: { notice: 'total_updated' }, fragment: '' });
    expect(rememberedBilling(response)?.form).toMatchObject({ country: 'DE', name: 'Ada Lovelace' });
    const row = await sessionRow(session.id);
    expect(amountsOf(row)).toEqual({ subtotal: 1999, tax: 380, total: 2379, country: 'DE', treatment: 'vat' });
    expect(row.customerDetails).toEqual({ name: 'Ada Lovelace', company: null, address: { line1: null, postal_code: null, city: null, country: 'DE' }, vat_id: null });
    expect(row.lines).toEqual([{ taxRate: 19, amountTax: 380 }]);
    expect(row.attempts).toBe(0);
  });

  it('a VAT ID of another country, a VAT ID without the company’s name and address, text over its limit: each field refused with its code; nothing charged, the session untouched', async () => {
    const session = await createSession();
    const otherCountry = await post(session.url, '/pay', { ...AUSTRIAN_COMPANY, country: 'DE', ...CARD, shown_total: '1999' });
    expect(backTo(otherCountry).query).toEqual({ billing_errors: 'vat_id:vat_id_other_country' });
    expect(rememberedBilling(otherCountry)?.form).toEqual({
      country: 'DE',
      name: 'Ada Lovelace',
      company: 'Analytical Engines GmbH',
      line1: 'Ringstraße 1',
      postalCode: '1010',
      city: 'Wien',
      vatId: 'ATU13585627',
    });

    const alone = await post(session.url, '/pay', { ...GERMAN_BUYER, country: 'AT', vat_id: 'ATU13585627', ...CARD, shown_total: '1999' });
    expect(backTo(alone).query).toEqual({ billing_errors: 'company:field_required,address_line1:field_required,postal_code:field_required,city:field_required' });

    const long = await post(session.url, '/pay', { ...GERMAN_BUYER, name: 'n'.repeat(201), postal_code: '1'.repeat(21), city: 'c'.repeat(101), ...CARD, shown_total: '2379' });
    expect(backTo(long).query).toEqual({ billing_errors: 'name:field_too_long,postal_code:field_too_long,city:field_too_long' });
    // The cookie keeps each field at its limit (a longer one is refused anyway).
    expect(rememberedBilling(long)?.form).toMatchObject({ name: 'n'.repeat(200), postalCode: '1'.repeat(20), city: 'c'.repeat(100) });

    // Without customer_email the page asks for one: a bad one and the billing fields are refused together.
    const noEmail = await createSession({ price_id: standard.price_id, customer_email: undefined });
    const badEmail = await post(noEmail.url, '/pay', { ...GERMAN_BUYER, country: '', email: 'ada@', ...CARD });
    expect(backTo(badEmail)).toEqual({ path: `/checkout/${noEmail.id}`, query: { error: 'email_invalid', billing_errors: 'country:country_required' }, fragment: '' });
    expect(badEmail.headers.getSetCookie().find((cookie) => cookie.startsWith('checkout_email='))).toMatch(/^checkout_email=ada%40;/);

    const row = await sessionRow(session.id);
    expect(row.attempts).toBe(0);
    expect(amountsOf(row)).toEqual({ subtotal: 1999, tax: 0, total: 1999, country: null, treatment: null });
  });

  it('Pay with the total shown for Germany after the country became Austria: nothing charged, back with total_changed and the session at 2399; Pay again with it: paid 2399', async () => {
    const session = await createSession();
    await post(session.url, '/pay', { ...GERMAN_BUYER, update_total: '1' });
    expect(amountsOf(await sessionRow(session.id))).toMatchObject({ total: 2379, country: 'DE' });

    const changed = await post(session.url, '/pay', { ...GERMAN_BUYER, country: 'AT', ...CARD, shown_total: '2379' });
    expect(backTo(changed)).toEqual({ path: `/checkout/${session.id}`, query: { notice: 'total_changed' }, fragment: '' });
    expect(rememberedBilling(changed)?.form).toMatchObject({ country: 'AT' });
    let row = await sessionRow(session.id);
    expect(row.attempts).toBe(0);
    expect(amountsOf(row)).toEqual({ subtotal: 1999, tax: 400, total: 2399, country: 'AT', treatment: 'vat' });
    expect(row.paymentStatus).toBe('unpaid');

    // A form that carries no total never matches one.
    expect(backTo(await post(session.url, '/pay', { ...GERMAN_BUYER, country: 'AT', ...CARD })).query).toEqual({ notice: 'total_changed' });

    const paid = await post(session.url, '/pay', { ...GERMAN_BUYER, country: 'AT', ...CARD, card_number: '4000 0004 0000 0008', shown_total: '2399' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`https://shop.example/thanks?session_id=${session.id}`);
    row = await sessionRow(session.id);
    expect(row).toMatchObject({ status: 'complete', paymentStatus: 'paid', amountTotal: 2399, attempts: 1 });
    const order = await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.key });
    expect(order.body).toMatchObject({ status: 'paid', amount_subtotal: 1999, amount_tax: 400, amount_total: 2399 });
    expect(order.body.lines).toEqual([expect.objectContaining({ tax_rate: 20, amount_tax: 400, amount_total: 2399 })]);
    const receipt = await loadHostedReceipt(api.services, { id: session.id, signature: new URL(receiptUrl(api.services.config, session.id)).searchParams.get('signature')! });
    expect(receipt.state === 'paid' && taxLineLabel(receipt.receipt.tax)).toBe('VAT 20% (Austria)');
  });

  it('reverse charge: ATU13585627 for an Austrian company is taxed at 0 % (1999); a buyer in the United States pays no EU VAT (1999)', async () => {
    const company = await createSession();
    expect(backTo(await post(company.url, '/pay', { ...AUSTRIAN_COMPANY, update_total: '1' })).query).toEqual({ notice: 'total_updated' });
    const row = await sessionRow(company.id);
    expect(amountsOf(row)).toEqual({ subtotal: 1999, tax: 0, total: 1999, country: 'AT', treatment: 'reverse_charge' });
    expect(row.customerDetails).toEqual({
      name: 'Ada Lovelace',
      company: 'Analytical Engines GmbH',
      address: { line1: 'Ringstraße 1', postal_code: '1010', city: 'Wien', country: 'AT' },
      vat_id: 'ATU13585627',
    });
    expect(row.lines).toEqual([{ taxRate: 0, amountTax: 0 }]);

    const american = await createSession();
    await post(american.url, '/pay', { ...GERMAN_BUYER, country: 'US', update_total: '1' });
    expect(amountsOf(await sessionRow(american.id))).toEqual({ subtotal: 1999, tax: 0, total: 1999, country: 'US', treatment: 'outside_eu' });
  });
});

describe('what the pages show before and after the details', () => {
  const linkOf = (url: string, id: string) => ({ id, expires: new URL(url).searchParams.get('expires')!, signature: new URL(url).searchParams.get('signature')! });

  it('a session: no VAT and the VAT row asks for the country until one is given; then the form is filled from the details the session holds', async () => {
    const session = await createSession();
    const before = await loadHostedCheckout(api.services, linkOf(session.url, session.id));
    if (before.state !== 'open') throw new Error(before.state);
    expect(before.view).toMatchObject({
      amountSubtotal: 1999,
      amountTax: 0,
      amountTotal: 1999,
      buyer: { form: { country: '', name: '', company: '', line1: '', postalCode: '', city: '', vatId: '' }, vatIdUnconfirmed: false },
    });
    expect(taxLineLabel(before.view.tax)).toBe('VAT (select your country)');

    await post(session.url, '/pay', { ...AUSTRIAN_COMPANY, update_total: '1' });
    const after = await loadHostedCheckout(api.services, linkOf(session.url, session.id));
    if (after.state !== 'open') throw new Error(after.state);
    expect(after.view.buyer).toEqual({
      form: { country: 'AT', name: 'Ada Lovelace', company: 'Analytical Engines GmbH', line1: 'Ringstraße 1', postalCode: '1010', city: 'Wien', vatId: 'ATU13585627' },
      vatIdUnconfirmed: false,
    });
    expect(taxLineLabel(after.view.tax)).toBe('VAT 0% (reverse charge)');
  });

  it('a subscription checkout: the Name is the customer_name it was created with, the first charge the plan’s amount untaxed until a country is given', async () => {
    const created = await api.request('POST', SUBSCRIPTIONS, {
      key: store.key,
      body: { amount: 990, interval: 'month', plan_name: 'Pro plan', total_payments: 12, customer_email: 'ada@example.com', customer_name: 'Ada' },
    });
    const hosted = await loadHostedSubscriptionCheckout(api.services, linkOf(created.body.url, created.body.id));
    if (hosted.state !== 'open') throw new Error(hosted.state);
    expect(hosted.view.buyer).toEqual({
      form: { country: '', name: 'Ada', company: '', line1: '', postalCode: '', city: '', vatId: '' },
      vatIdUnconfirmed: false,
      amountSubtotal: 990,
      amountTax: 0,
      amountTotal: 990,
      tax: { rates: [], inclusive: true, buyer: { taxCountry: null, treatment: null } },
    });
    // A plan's amount includes VAT: the total stays, the VAT is taken out of it.
    expect(await (await post(created.body.url, '/billing', { ...GERMAN_BUYER, name: '' })).json()).toMatchObject({
      shownTotal: 990,
      texts: { subtotal: '€8.32', 'tax-label': 'VAT 19% (Germany, included)', tax: '€1.58', total: '€9.90', pay: 'Subscribe: €9.90 every month' },
    });
    const taxed = await loadHostedSubscriptionCheckout(api.services, linkOf(created.body.url, created.body.id));
    // The name the buyer cleared stays cleared.
    expect(taxed.state === 'open' && taxed.view.buyer?.form.name).toBe('');
  });
});

describe('the endpoint the form’s script sends the billing details to', () => {
  it('taxed: the page’s texts for the new amounts, written to the session as Update total writes them', async () => {
    const session = await createSession();
    const response = await post(session.url, '/billing', { ...GERMAN_BUYER, ...CARD });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      status: 'taxed',
      shownTotal: 2379,
      texts: { title: `Pay €23.79 to ${store.name}`, heading: '€23.79', subtotal: '€19.99', 'tax-label': 'VAT 19% (Germany)', tax: '€3.80', total: '€23.79', pay: 'Pay €23.79' },
      vatIdUnconfirmed: false,
    });
    expect(amountsOf(await sessionRow(session.id))).toEqual({ subtotal: 1999, tax: 380, total: 2379, country: 'DE', treatment: 'vat' });

    const reverse = await (await post(session.url, '/billing', AUSTRIAN_COMPANY)).json();
    expect(reverse).toMatchObject({ status: 'taxed', shownTotal: 1999, texts: { 'tax-label': 'VAT 0% (reverse charge)', tax: '€0.00', total: '€19.99', pay: 'Pay €19.99' } });
    const outside = await (await post(session.url, '/billing', { ...GERMAN_BUYER, country: 'US' })).json();
    expect(outside).toMatchObject({ status: 'taxed', shownTotal: 1999, texts: { 'tax-label': 'No EU VAT' } });
  });

  it('refused: each field with its message and the alert naming them; the session keeps its amounts', async () => {
    const session = await createSession();
    await post(session.url, '/billing', GERMAN_BUYER);
    const response = await post(session.url, '/billing', { ...GERMAN_BUYER, vat_id: 'ATU13585627', company: 'Analytical Engines GmbH' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'refused',
      alert: 'Please correct the VAT ID, address, postal code and city below.',
      errors: [
        { field: 'vat_id', message: 'This VAT ID belongs to another country than the billing country.' },
        { field: 'address_line1', message: "Enter the address: a VAT ID needs the company's name and address on the invoice." },
        { field: 'postal_code', message: "Enter the postal code: a VAT ID needs the company's name and address on the invoice." },
        { field: 'city', message: "Enter the city: a VAT ID needs the company's name and address on the invoice." },
      ],
    });
    expect(amountsOf(await sessionRow(session.id))).toMatchObject({ total: 2379, country: 'DE' });
  });

  it('a link that does not verify: 404; a session of a store taxing by product rate, or one paid: closed, nothing written', async () => {
    const session = await createSession();
    const tampered = new URL(session.url);
    const signature = tampered.searchParams.get('signature')!;
    tampered.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const notFound = await post(session.url, '/billing', GERMAN_BUYER, tampered.search);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ status: 'not_found' });

    const other = await createStore(api.services);
    const product = await createProduct(api, other.keys.sk_test);
    const byRate = await createSession({ price_id: product.price_id }, other.keys.sk_test);
    expect(await (await post(byRate.url, '/billing', GERMAN_BUYER)).json()).toEqual({ status: 'closed' });
    expect((await sessionRow(byRate.id)).taxCountry).toBeNull();

    await post(session.url, '/billing', GERMAN_BUYER);
    await post(session.url, '/pay', { ...GERMAN_BUYER, ...CARD, shown_total: '2379' });
    expect(await (await post(session.url, '/billing', { ...GERMAN_BUYER, country: 'AT' })).json()).toEqual({ status: 'closed' });
    expect(amountsOf(await sessionRow(session.id))).toMatchObject({ total: 2379, country: 'DE' });
  });

  it('the VAT row: prices that include VAT, an ebook at France’s 5.5 %, an order at two German rates', async () => {
    const inclusive = await createProduct(api, store.key, { name: 'Course', amount: 1999, tax_inclusive: true });
    const ebook = await createProduct(api, store.key, { name: 'Novel', amount: 1999 });
    await api.services.db.update(products).set({ taxCategory: 'ebook' }).where(eq(products.id, ebook.id));

    const included = await createSession({ price_id: inclusive.price_id });
    expect(await (await post(included.url, '/billing', GERMAN_BUYER)).json()).toMatchObject({
      shownTotal: 1999,
      texts: { subtotal: '€16.80', 'tax-label': 'VAT 19% (Germany, included)', tax: '€3.19', total: '€19.99' },
    });
    expect(await (await post(included.url, '/billing', { ...GERMAN_BUYER, country: 'AT' })).json()).toMatchObject({
      texts: { subtotal: '€16.66', 'tax-label': 'VAT 20% (Austria, included)', tax: '€3.33' },
    });

    const french = await createSession({ price_id: ebook.price_id });
    expect(await (await post(french.url, '/billing', { ...GERMAN_BUYER, country: 'FR' })).json()).toMatchObject({ shownTotal: 2109, texts: { 'tax-label': 'VAT 5.5% (France)', tax: '€1.10' } });
    // Monaco is taxed as France.
    expect(await (await post(french.url, '/billing', { ...GERMAN_BUYER, country: 'MC' })).json()).toMatchObject({ shownTotal: 2109, texts: { 'tax-label': 'VAT 5.5% (France)' } });

    const both = await createSession({ line_items: [{ price_id: standard.price_id }, { price_id: ebook.price_id }] });
    expect(await (await post(both.url, '/billing', GERMAN_BUYER)).json()).toMatchObject({ shownTotal: 2379 + 2139, texts: { 'tax-label': 'VAT 7% and 19% (Germany)', tax: '€5.20' } });
  });

  it('live mode with VIES off: a VAT ID of another member state is charged VAT, and the answer says it could not be confirmed', async () => {
    const product = await createProduct(api, store.keys.sk_live);
    const session = await createSession({ price_id: product.price_id }, store.keys.sk_live);
    expect(await (await post(session.url, '/billing', AUSTRIAN_COMPANY)).json()).toMatchObject({
      status: 'taxed',
      shownTotal: 2399,
      vatIdUnconfirmed: true,
      texts: { 'tax-label': 'VAT 20% (Austria)' },
    });
    expect(amountsOf(await sessionRow(session.id))).toEqual({ subtotal: 1999, tax: 400, total: 2399, country: 'AT', treatment: 'vat' });
    // Without a VAT ID there is nothing to confirm.
    expect(await (await post(session.url, '/billing', { ...AUSTRIAN_COMPANY, vat_id: '' })).json()).toMatchObject({ vatIdUnconfirmed: false });
  });
});

describe('the subscription page', () => {
  const checkoutRow = async (id: string) => (await api.services.db.select().from(subscriptionCheckouts).where(eq(subscriptionCheckouts.id, id)))[0]!;

  it('Update total and the script’s endpoint tax the first charge; a Subscribe with a total no longer right burns nothing; with it, subscribed at 2379', async () => {
    const monthly = await createProduct(api, store.key, { name: 'Field guide', amount: 1999, mode: 'recurring', interval: 'month' });
    const created = await api.request('POST', SUBSCRIPTIONS, {
      key: store.key,
      body: { price_id: monthly.price_id, total_payments: 12, customer_email: 'ada@example.com', customer_name: 'Ada Lovelace' },
    });
    expect(created.status).toBe(201);
    const checkout = created.body as { id: string; url: string };

    const refused = await post(checkout.url, '/pay', { ...GERMAN_BUYER, country: '', update_total: '1' });
    expect(backTo(refused)).toEqual({ path: `/subscribe/${checkout.id}`, query: { billing_errors: 'country:country_required' }, fragment: '' });
    expect(rememberedBilling(refused)?.attributes[0]).toBe(`Path=/subscribe/${checkout.id}`);

    expect(backTo(await post(checkout.url, '/pay', { ...GERMAN_BUYER, update_total: '1' })).query).toEqual({ notice: 'total_updated' });
    expect(await checkoutRow(checkout.id)).toMatchObject({ taxCountry: 'DE', taxTreatment: 'vat', customerDetails: { name: 'Ada Lovelace', address: { country: 'DE' } }, consumedAt: null });

    expect(await (await post(checkout.url, '/billing', { ...GERMAN_BUYER, country: 'AT' })).json()).toEqual({
      status: 'taxed',
      shownTotal: 2399,
      texts: {
        title: `Subscribe to Field guide: €23.99 every month · ${store.name}`,
        heading: '€23.99 every month',
        subtotal: '€19.99',
        'tax-label': 'VAT 20% (Austria)',
        tax: '€4.00',
        total: '€23.99',
        pay: 'Subscribe: €23.99 every month',
      },
      vatIdUnconfirmed: false,
    });

    const changed = await post(checkout.url, '/pay', { ...GERMAN_BUYER, ...CARD, shown_total: '2399' });
    expect(backTo(changed).query).toEqual({ notice: 'total_changed' });
    expect(await checkoutRow(checkout.id)).toMatchObject({ status: 'open', consumedAt: null, subscriptionId: null, taxCountry: 'DE' });

    const paid = await post(checkout.url, '/pay', { ...GERMAN_BUYER, ...CARD, card_number: '4000 0027 6000 0016', shown_total: '2379' });
    expect(paid.status).toBe(303);
    const row = await checkoutRow(checkout.id);
    expect(row).toMatchObject({ status: 'complete', taxCountry: 'DE' });
    const subscription = await api.request('GET', `${SUBSCRIPTIONS}/${row.subscriptionId}`, { key: store.key });
    expect(subscription.body).toMatchObject({ status: 'active' });
    const charges = await api.services.db
      .select({ amount: subscriptionCharges.amount, status: subscriptionCharges.status })
      .from(subscriptionCharges)
      .where(eq(subscriptionCharges.subscriptionId, row.subscriptionId!));
    expect(charges).toEqual([{ amount: 2379, status: 'succeeded' }]);
  });
});
