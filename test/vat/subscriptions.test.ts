import { readFileSync } from 'node:fs';
import { and, asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { subscriptionCharges, subscriptionCheckouts } from '@/db/schema';
import { TotalChangedError } from '@/server/checkout/buyer-tax';
import { parseRateTable, SHIPPED_RATES_FILE } from '@/server/kit/vat-rates';
import { updateSubscriptionCheckoutBilling } from '@/server/subscriptions/buyer-tax';
import { paySubscriptionCheckout } from '@/server/subscriptions/first-charge';
import { checkBilling, type BillingForm } from '@/server/vat/billing';
import { createProduct } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createCheckout, PLAN, SUBSCRIPTIONS } from '../subscriptions/support';
import { createCoupon } from '../support/coupons';

/**
 * Subscriptions of a store that taxes by the buyer's country: the country and treatment are fixed
 * at the checkout, and each charge is taxed at the rate of its own date (here Austria's standard
 * rate rises from 20% to 22% on 15 April 2026, between two renewals), charging its invoice's total.
 */
const RATES = parseRateTable('rates.csv', `${readFileSync(SHIPPED_RATES_FILE, 'utf8').trimEnd()}\nAT,standard,22,2026-04-15\n`);
const api = useTestApi({ subscriptionsEnabled: true, taxRates: RATES });
const DAY = 86_400;
// Before the change: the first charge on 1 March, renewals on 1 April and 1 May.
beforeAll(() => api.clock.set(new Date('2026-03-01T12:00:00Z')));

const form = (fields: Partial<BillingForm> & { country: string }): BillingForm => ({ name: '', company: '', line1: '', postalCode: '', city: '', vatId: '', ...fields });

const buyerCountryStore = () => createStore(api.services, { subscriptions: true, taxMode: 'buyer_country' });

async function subscribe(checkoutId: string, billing: BillingForm, shownTotal: number, card = '4000000400000008') {
  const checked = await checkBilling(api.services.config, false, billing);
  if (!checked.ok) throw new Error('billing refused');
  return paySubscriptionCheckout(api.services, { checkoutId, card: { number: card, expiry: '12/34', cvc: '123' }, billing: { checked: checked.billing, shownTotal } });
}

const advance = async (key: string, seconds: number) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } })).status).toBe(200);

describe('a subscription taxed by the buyer’s country', () => {
  it('an exclusive price: the first charge and each renewal carry VAT at the rate of their date; the amount stays the price', async () => {
    const store = await buyerCountryStore();
    const key = store.keys.sk_test;
    const product = await createProduct(api, key, { name: 'Pro', amount: 1000, tax_inclusive: false, mode: 'recurring', interval: 'month' });
    const checkout = await createCheckout(api, key, { price_id: product.price_id, total_payments: 12, customer_email: 'anna@example.at' });
    expect(checkout).toMatchObject({ customer_details: null, tax_country: null, tax_treatment: null });

    const taxed = await updateSubscriptionCheckoutBilling(api.services, checkout.id, form({ country: 'AT', name: 'Anna' }));
    expect(taxed).toMatchObject({ kind: 'taxed', charge: { amount: 1200, amountTax: 200, taxRate: 20 } });
    const read = (await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key })).body;
    expect(read).toMatchObject({
      tax_country: 'AT',
      tax_treatment: 'vat',
      customer_details: { name: 'Anna', company: null, address: { line1: null, postal_code: null, city: null, country: 'AT' }, vat_id: null },
    });

    const { subscription } = await subscribe(checkout.id, form({ country: 'AT', name: 'Anna' }), 1200);
    expect(subscription.status).toBe('active');
    const sub = (await api.request('GET', `${SUBSCRIPTIONS}/${subscription.id}`, { key })).body;
    expect(sub).toMatchObject({
      amount: 1000,
      tax_country: 'AT',
      tax_treatment: 'vat',
      tax_evidence: [
        { type: 'billing_country', country: 'AT' },
        { type: 'card_country', country: 'AT' },
      ],
      evidence_conflict: false,
    });

    // 1 April: still 20%; 1 May: 22%.
    await advance(key, 31 * DAY);
    await advance(key, 30 * DAY);
    const charges = await api.services.db
      .select({
        cycle: subscriptionCharges.cycle,
        amount: subscriptionCharges.amount,
        amountTax: subscriptionCharges.amountTax,
        taxRate: subscriptionCharges.taxRate,
        status: subscriptionCharges.status,
      })
      .from(subscriptionCharges)
      .where(eq(subscriptionCharges.subscriptionId, subscription.id))
      .orderBy(asc(subscriptionCharges.cycle));
    expect(charges).toEqual([
      { cycle: 1, amount: 1200, amountTax: 200, taxRate: 20, status: 'succeeded' },
      { cycle: 2, amount: 1200, amountTax: 200, taxRate: 20, status: 'succeeded' },
      { cycle: 3, amount: 1220, amountTax: 220, taxRate: 22, status: 'succeeded' },
    ]);

    const invoices = (await api.request('GET', `/api/v1/invoices?subscription_id=${subscription.id}`, { key })).body.data.reverse();
    expect(invoices.map((invoice: any) => [invoice.amount_subtotal, invoice.amount_tax, invoice.amount_total, invoice.tax_country, invoice.tax_treatment])).toEqual([
      [1000, 200, 1200, 'AT', 'vat'],
      [1000, 200, 1200, 'AT', 'vat'],
      [1000, 220, 1220, 'AT', 'vat'],
    ]);
    expect(invoices[2].tax_breakdown).toEqual([{ rate: 22, amount_net: 1000, amount_tax: 220 }]);
    expect(invoices[2].customer_name).toBe('Anna');
    const orders = await Promise.all(invoices.map(async (invoice: any) => (await api.request('GET', `/api/v1/orders/${invoice.order_id}`, { key })).body));
    expect(orders.map((order) => order.amount_total)).toEqual([1200, 1200, 1220]);
    expect(orders[2]).toMatchObject({ tax_country: 'AT', tax_treatment: 'vat', lines: [{ tax_rate: 22, amount_subtotal: 1000, amount_tax: 220, amount_total: 1220 }] });
  });

  it('a plan includes VAT: a German buyer pays the amount, VAT inside it; reverse charge keeps the gross', async () => {
    const store = await buyerCountryStore();
    const key = store.keys.sk_test;
    const german = await createCheckout(api, key, PLAN);
    const { subscription } = await subscribe(german.id, form({ country: 'DE' }), 990, '4000002760000016');
    const [charge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscription.id));
    expect(charge).toMatchObject({ amount: 990, amountTax: 158, taxRate: 19 });

    const company = await createCheckout(api, key, PLAN);
    const austrian = form({ country: 'AT', company: 'Huber GmbH', line1: 'Ringstraße 1', postalCode: '1010', city: 'Wien', vatId: 'ATU13585627' });
    const reverse = await subscribe(company.id, austrian, 990);
    const [reverseCharge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, reverse.subscription.id));
    expect(reverseCharge).toMatchObject({ amount: 990, amountTax: 0, taxRate: 0 });
    const sub = (await api.request('GET', `${SUBSCRIPTIONS}/${reverse.subscription.id}`, { key })).body;
    expect(sub).toMatchObject({ tax_treatment: 'reverse_charge', customer_details: { company: 'Huber GmbH', vat_id: 'ATU13585627' } });
  });

  it('a first charge whose total differs from the one shown charges nothing and leaves the link usable with the new details', async () => {
    const store = await buyerCountryStore();
    const key = store.keys.sk_test;
    const product = await createProduct(api, key, { name: 'Pro', amount: 1000, tax_inclusive: false, mode: 'recurring', interval: 'month' });
    const checkout = await createCheckout(api, key, { price_id: product.price_id, total_payments: 12, customer_email: 'ada@example.com' });
    await updateSubscriptionCheckoutBilling(api.services, checkout.id, form({ country: 'DE' }));
    await expect(subscribe(checkout.id, form({ country: 'AT' }), 1190)).rejects.toEqual(new TotalChangedError(1200));
    const [row] = await api.services.db
      .select()
      .from(subscriptionCheckouts)
      .where(and(eq(subscriptionCheckouts.id, checkout.id)));
    expect(row).toMatchObject({ status: 'open', consumedAt: null, taxCountry: 'AT' });
    expect((await subscribe(checkout.id, form({ country: 'AT' }), 1200)).subscription.status).toBe('active');
  });
});

describe('a trial with a discount, taxed by the buyer’s country', () => {
  it('the total the page shows is the discounted first charge with its VAT; nothing is charged until the trial ends, then that', async () => {
    const store = await buyerCountryStore();
    const key = store.keys.sk_test;
    const coupon = await createCoupon(api.services.db, { storeId: store.id, livemode: false }, { percentOff: 15 });
    const product = await createProduct(api, key, { name: 'Pro', amount: 1000, tax_inclusive: false, mode: 'recurring', interval: 'month' });
    const checkout = await createCheckout(api, key, { price_id: product.price_id, total_payments: 12, customer_email: 'trial@example.at', trial_days: 14, discounts: [{ coupon: coupon.id }] });
    // 1000 less 150, then Austria's 20 %.
    const taxed = await updateSubscriptionCheckoutBilling(api.services, checkout.id, form({ country: 'AT', name: 'Anna' }));
    expect(taxed).toMatchObject({ kind: 'taxed', charge: { amount: 1020, amountTax: 170, amountDiscount: 150, taxRate: 20 } });
    const { subscription } = await subscribe(checkout.id, form({ country: 'AT', name: 'Anna' }), 1020);
    expect(subscription.status).toBe('trialing');
    await advance(key, 14 * DAY);
    const charges = await api.services.db
      .select({ cycle: subscriptionCharges.cycle, amount: subscriptionCharges.amount, amountTax: subscriptionCharges.amountTax, status: subscriptionCharges.status })
      .from(subscriptionCharges)
      .where(eq(subscriptionCharges.subscriptionId, subscription.id))
      .orderBy(asc(subscriptionCharges.cycle));
    expect(charges).toEqual([
      { cycle: 0, amount: 0, amountTax: 0, status: 'succeeded' },
      { cycle: 1, amount: 1020, amountTax: 170, status: 'succeeded' },
    ]);
  });
});
