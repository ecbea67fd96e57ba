import { describe, expect, it } from 'vitest';
import { submitHostedSubscription } from '@/server/subscriptions/hosted';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { CARDS, cardForm, createCheckout, PLAN, SUBSCRIPTIONS } from '../subscriptions/support';
import { fetchPdf, pdfPages, storeCodeOf } from './support';

/**
 * Invoices of subscription charges: the first payment on the hosted page and every renewal the
 * test clock brings due, each in the transaction that records it; none for a declined charge.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const INVOICES = '/api/v1/invoices';
const DAY = 24 * 3600;

async function subscribed(card: string, language?: 'de' | 'en') {
  api.clock.set(T0);
  const store = await createStore(api.services, { subscriptions: true, name: 'Cloud Notes' });
  const key = store.keys.sk_test;
  const checkout = await createCheckout(api, key, { ...PLAN, customer_name: 'Ada Lovelace' });
  await submitHostedSubscription(api.services, { ...checkout.link, form: cardForm(card), language });
  const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key });
  return { store, key, subscriptionId: read.body.subscription as string, code: await storeCodeOf(api.services.db, store.id) };
}

const advance = (key: string, seconds: number) => api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } });

describe('invoices of subscription charges', () => {
  it('the first payment: every field, one line for the plan, the period it pays for; invoice.issued', async () => {
    const { store, key, subscriptionId, code } = await subscribed(CARDS.approved, 'de');
    const subscription = (await api.request('GET', `${SUBSCRIPTIONS}/${subscriptionId}`, { key })).body;
    const list = await listOf(api, INVOICES, key, `subscription_id=${subscriptionId}`);
    expect(list.body.data).toEqual([
      {
        id: expect.stringMatching(/^in_test_[0-9A-Za-z]{24}$/),
        object: 'invoice',
        number: `TEST-INV-${code}-000001`,
        livemode: false,
        order_id: expect.stringMatching(/^ord_test_[0-9A-Za-z]{24}$/),
        subscription_id: subscriptionId,
        customer_id: subscription.customer_id,
        customer_email: 'ada@example.com',
        customer_name: 'Ada Lovelace',
        buyer_vat_id: null,
        customer_details: null,
        tax_country: null,
        tax_treatment: null,
        tax_note: null,
        seller: { name: 'Example Payments GmbH (demo)', address: 'Musterstraße 1, 10115 Berlin, Germany (demo)', vat_id: 'DE123456789 (demo)' },
        currency: 'eur',
        lines: [{ description: 'Pro plan', quantity: 1, unit_amount: 990, amount_discount: 0, amount_subtotal: 990, tax_rate: 0, amount_tax: 0, amount_total: 990 }],
        tax_breakdown: [{ rate: 0, amount_net: 990, amount_tax: 0 }],
        discount: null,
        amount_discount: 0,
        amount_subtotal: 990,
        amount_tax: 0,
        amount_total: 990,
        language: 'de',
        withdrawal_waiver: null,
        issued_at: epoch(T0),
      },
    ]);
    expect((await listOf(api, INVOICES, key, `customer_id=${subscription.customer_id}`)).body.data).toEqual(list.body.data);
    const events = await api.request('GET', `/api/v1/events?type=invoice.issued&object_id=${list.body.data[0].id}`, { key });
    expect(events.body.data.map((event: { data: unknown }) => event.data)).toEqual([{ object: list.body.data[0] }]);
    const [page] = await pdfPages((await fetchPdf(api, `${INVOICES}/${list.body.data[0].id}/pdf`, key)).bytes);
    expect(page).toContain('KÄUFER Ada Lovelace ada@example.com');
    expect(page).toContain(`Abonnement ${subscriptionId}`);
    expect(page).toContain('Leistungszeitraum 1. März 2026 – 1. April 2026');
    expect(page).toContain('Verkauft im Auftrag von Cloud Notes');
    expect(store.id).toBeTruthy();
  });

  it('each renewal the clock brings due is invoiced in turn; a declined renewal is not', async () => {
    const { key, subscriptionId, code } = await subscribed(CARDS.declinesFirstRecurring);
    // Renewal 1 is declined (this card), its first retry a day later succeeds.
    expect((await advance(key, 31 * DAY)).status).toBe(200);
    let invoices = (await listOf(api, INVOICES, key, `subscription_id=${subscriptionId}`)).body.data;
    expect(invoices.map((invoice: { number: string }) => invoice.number)).toEqual([`TEST-INV-${code}-000001`]);
    expect((await advance(key, DAY)).status).toBe(200);
    expect((await advance(key, 31 * DAY)).status).toBe(200);
    invoices = (await listOf(api, INVOICES, key, `subscription_id=${subscriptionId}`)).body.data;
    expect(invoices.map((invoice: { number: string }) => invoice.number)).toEqual([3, 2, 1].map((n) => `TEST-INV-${code}-00000${n}`));
    // A renewal's invoice is the first payment's in every field but its id, number, order and time.
    const [, second, first] = invoices;
    expect(second).toEqual({
      ...first,
      id: expect.stringMatching(/^in_test_[0-9A-Za-z]{24}$/),
      number: `TEST-INV-${code}-000002`,
      order_id: expect.stringMatching(/^ord_test_[0-9A-Za-z]{24}$/),
      issued_at: first.issued_at + 32 * DAY,
    });
    expect(second.order_id).not.toBe(first.order_id);
    expect(second.id).not.toBe(first.id);
    const issued = await api.request('GET', `/api/v1/events?type=invoice.issued&object_id=${second.id}`, { key });
    expect(issued.body.data.map((event: { data: unknown }) => event.data)).toEqual([{ object: second }]);
    const [page] = await pdfPages((await fetchPdf(api, `${INVOICES}/${invoices[1].id}/pdf`, key)).bytes);
    // The second payment covers the second period, whenever it was taken.
    expect(page).toContain('Period of supply 1 April 2026 – 1 May 2026');
  });

  it('a declined first payment issues nothing', async () => {
    const { key, subscriptionId } = await subscribed(CARDS.declined);
    expect((await listOf(api, INVOICES, key, `subscription_id=${subscriptionId}`)).body.data).toEqual([]);
  });
});
