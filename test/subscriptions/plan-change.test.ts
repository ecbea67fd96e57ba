import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditEvents, invoices, planChanges, simulatorCharges, subscriptionCharges, subscriptions } from '@/db/schema';
import { verifyLedger } from '@/server/balance/verify';
import { reconcilePlanChanges } from '@/server/billing/plan-change';
import { GatewayTimeoutError } from '@/server/gateway/types';
import { updateSubscriptionCheckoutBilling } from '@/server/subscriptions/buyer-tax';
import { paySubscriptionCheckout } from '@/server/subscriptions/first-charge';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { checkBilling, type BillingForm } from '@/server/vat/billing';
import { createStore } from '../support/factories';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { CARD_OF } from '../support/buyer-country';
import { useTestApi } from '../support/server';
import { CARDS, createSubscription, type SubscriptionOptions } from '../support/subscriptions';
import { fetchPdf, pdfPages } from '../invoices/support';
import { listEmails } from '../mail/support';
import { createCheckout, eventsOf, SUBSCRIPTIONS } from './support';

/**
 * POST /subscriptions/{id}/change over HTTP against a real database: the proration to the cent,
 * the charge on the card on file with its invoice, the credit balance and the renewals it pays,
 * changes at the next renewal, and the refusals.
 */
const api = useTestApi({ subscriptionsEnabled: true });
const DAY = 86_400;
/** A 30-day plan: the worked examples' period. */
const THIRTY_DAYS: SubscriptionOptions = { interval: 'day', intervalCount: 30 };

let store: Awaited<ReturnType<typeof createStore>>;
let key = '';

beforeEach(async () => {
  api.clock.set(T0);
  store = await createStore(api.services, { subscriptions: true });
  key = store.keys.sk_test;
});
afterEach(() => vi.restoreAllMocks());

const read = async (id: string, withKey = key) => (await api.request('GET', `${SUBSCRIPTIONS}/${id}`, { key: withKey })).body;
const change = (id: string, body: Record<string, unknown>, options: { key?: string; idempotencyKey?: string } = {}) =>
  api.request('POST', `${SUBSCRIPTIONS}/${id}/change`, { key: options.key ?? key, body, headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {} });
const advance = async (seconds: number, withKey = key) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: withKey, body: { seconds } })).status).toBe(200);
const subscription = (options: SubscriptionOptions = {}) => createSubscription(api.services, store.id, { ...THIRTY_DAYS, ...options });
const recurringCharges = async (subscriptionId: string) =>
  (await api.services.db.select().from(simulatorCharges).where(eq(simulatorCharges.kind, 'recurring'))).filter((charge) => charge.description.includes(subscriptionId));
const updateOrders = async (subscriptionId: string) => (await api.request('GET', `/api/v1/orders?subscription_id=${subscriptionId}&billing_reason=subscription_update`, { key })).body.data as any[];
const invoiceOf = async (orderId: string) => (await api.request('GET', `/api/v1/invoices?order_id=${orderId}`, { key })).body.data[0];
const planName = async (id: string) => (await api.services.db.select({ planName: subscriptions.planName }).from(subscriptions).where(eq(subscriptions.id, id)))[0]!.planName;
const invoicePdfPages = async (invoiceId: string) => pdfPages((await fetchPdf(api, `/api/v1/invoices/${invoiceId}/pdf`, key)).bytes);
const updatedEvents = async (id: string) => (await eventsOf(api.services.db, id)).filter((event) => event.type === 'subscription.updated');

describe('prorate_now', () => {
  it('999 → 1999 at day 15 of 30: credit 500, charge 1000, 500 charged on the card on file and invoiced', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(15 * DAY);
    const before = await read(sub.id);
    const response = await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30, plan_name: 'Premium' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const periodEnd = epoch(T0) + 30 * DAY;
    expect(response.body).toEqual({ ...before, amount: 1999 });
    expect(await planName(sub.id)).toBe('Premium');
    expect(response.body).toMatchObject({ current_period_start: epoch(T0), current_period_end: periodEnd, next_billing_at: periodEnd, credit_balance: 0, pending_change: null });
    expect(await read(sub.id)).toEqual(response.body);
    const charges = await recurringCharges(sub.id);
    expect(charges.map((charge) => charge.amount)).toEqual([500]);

    const [order] = await updateOrders(sub.id);
    expect(order).toMatchObject({ billing_reason: 'subscription_update', subscription_id: sub.id, amount_total: 500, amount_tax: 0 });
    const invoice = await invoiceOf(order.id);
    expect(invoice.lines).toEqual([
      expect.objectContaining({ description: 'Unused time on Pro plan', unit_amount: -500, amount_subtotal: -500, amount_tax: 0, amount_total: -500 }),
      expect.objectContaining({ description: 'Remaining time on Premium', unit_amount: 1000, amount_subtotal: 1000, amount_tax: 0, amount_total: 1000 }),
    ]);
    expect(invoice).toMatchObject({ amount_subtotal: 500, amount_tax: 0, amount_total: 500, subscription_id: sub.id });
    const [stored] = await api.services.db.select().from(invoices).where(eq(invoices.id, invoice.id));
    expect([epoch(stored!.suppliedFrom), epoch(stored!.suppliedUntil)]).toEqual([epoch(T0) + 15 * DAY, periodEnd]);
    // The PDF: both lines, dated by the period they price (the change to the period's end).
    const [page] = await invoicePdfPages(invoice.id);
    expect(page).toContain('Period of supply 16 March 2026 – 31 March 2026');
    expect(page).toContain('Unused time on Pro plan 1 -€5.00 0 % -€5.00 -€5.00 Remaining time on Premium 1 €10.00 0 % €10.00 €10.00');
    expect(page).toContain('Subtotal (net) €5.00 VAT €0.00 Total €5.00');
    const [row] = await api.services.db.select().from(planChanges).where(eq(planChanges.subscriptionId, sub.id));
    expect(row).toMatchObject({ status: 'succeeded', credit: 500, charge: 1000, amount: 500, orderId: order.id });

    const events = await eventsOf(api.services.db, sub.id);
    const updated = events.filter((event) => event.type === 'subscription.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data.previous_attributes).toEqual({ amount: 999 });
    const storeEvents = (await api.request('GET', '/api/v1/events?type=invoice.issued', { key })).body.data as any[];
    expect(storeEvents.map((event) => event.data.object.id)).toContain(invoice.id);
    // No proration charge counts as one of the payments: its receipt says it is the plan change.
    expect((await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id)))[0]!.paymentsMade).toBe(1);
    const [receipt] = await listEmails(api, key, '?template=receipt');
    expect(receipt.subject).toBe(`Your receipt from ${store.name}: change to Premium`);
    expect(receipt.text).toMatch(/Payment +Plan change/);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('1999 → 999 at day 15: credit 1000, charge 500, 500 into credit_balance; the renewal charges 499 with a credit line, the balance spent', async () => {
    const sub = await subscription({ amount: 1999 });
    await advance(15 * DAY);
    const response = await change(sub.id, { amount: 999, interval: 'day', interval_count: 30 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ amount: 999, credit_balance: 500 });
    // Credit 1000 (1999 × 15/30 = 999.5), charge 500 (999 × 15/30 = 499.5): nothing to charge, the 500 left over kept.
    const audited = await api.services.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'subscription.change')));
    expect(audited).toEqual([{ details: expect.objectContaining({ subscription: sub.id, proration: 'prorate_now', credit: 1000, charge: 500, charged: 0 }) }]);
    expect(await planName(sub.id)).toBe('Pro plan');
    expect(await recurringCharges(sub.id)).toEqual([]);
    expect(await updateOrders(sub.id)).toEqual([]);
    expect((await updatedEvents(sub.id))[0]!.data.previous_attributes).toEqual({ amount: 1999, credit_balance: 0 });

    await advance(15 * DAY);
    const renewed = await read(sub.id);
    expect(renewed).toMatchObject({ status: 'active', credit_balance: 0, current_period_start: epoch(T0) + 30 * DAY });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([499]);
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    const invoice = await invoiceOf(cycle.id);
    expect(invoice.lines).toEqual([
      { description: 'Pro plan', quantity: 1, unit_amount: 999, amount_discount: 0, amount_subtotal: 999, tax_rate: 0, amount_tax: 0, amount_total: 999 },
      { description: 'Credit from plan change', quantity: 1, unit_amount: -500, amount_discount: 0, amount_subtotal: -500, tax_rate: 0, amount_tax: 0, amount_total: -500 },
    ]);
    expect(invoice).toMatchObject({ amount_subtotal: 499, amount_tax: 0, amount_total: 499 });
    const [page] = await invoicePdfPages(invoice.id);
    expect(page).toContain('Period of supply 31 March 2026 – 30 April 2026');
    expect(page).toContain('Pro plan 1 €9.99 0 % €9.99 €9.99 Credit from plan change 1 -€5.00 0 % -€5.00 -€5.00');
    expect(page).toContain('Subtotal (net) €4.99 VAT €0.00 Total €4.99');
    const [charge] = await api.services.db
      .select()
      .from(subscriptionCharges)
      .where(and(eq(subscriptionCharges.subscriptionId, sub.id), eq(subscriptionCharges.cycle, 2)));
    expect(charge).toMatchObject({ amount: 499, amountCredit: 500, status: 'succeeded' });
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('1000 → 3000 at day 10 of 30: credit 667, charge 2000, 1333 charged; German lines for a German subscription', async () => {
    const sub = await subscription({ amount: 1000, language: 'de' });
    await advance(10 * DAY);
    const response = await change(sub.id, { amount: 3000, interval: 'day', interval_count: 30, plan_name: 'Profi' });
    expect(response.status).toBe(200);
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([1333]);
    const [order] = await updateOrders(sub.id);
    const invoice = await invoiceOf(order.id);
    expect(invoice.lines.map((line: any) => [line.description, line.amount_total])).toEqual([
      ['Nicht genutzte Zeit: Pro plan', -667],
      ['Restzeit: Profi', 2000],
    ]);
    expect(invoice.amount_total).toBe(1333);
    const [page] = await invoicePdfPages(invoice.id);
    expect(page).toContain('Leistungszeitraum 11. März 2026 – 31. März 2026');
    expect(page).toContain('Nicht genutzte Zeit: Pro plan 1 -6,67 € 0 % -6,67 € -6,67 € Restzeit: Profi 1 20,00 € 0 % 20,00 € 20,00 €');
    expect(page).toContain('Gesamtbetrag 13,33 €');
  });

  it('taxed by the buyer’s country: each line taxed as the subscription’s charges, the invoice’s total charged', async () => {
    const taxStore = await createStore(api.services, { subscriptions: true, taxMode: 'buyer_country' });
    const taxKey = taxStore.keys.sk_test;
    /** A subscription checkout paid as its hosted page pays it: the billing country taxed, then the card charged. */
    const subscribeFrom = async (country: 'AT' | 'DE', body: Record<string, unknown>) => {
      const checkout = await createCheckout(api, taxKey, { total_payments: 12, customer_email: 'anna@example.at', ...body });
      const billing: BillingForm = { name: '', company: '', line1: '', postalCode: '', city: '', vatId: '', country };
      const taxed = await updateSubscriptionCheckoutBilling(api.services, checkout.id, billing);
      if (taxed.kind !== 'taxed') throw new Error('billing not taxed');
      const checked = await checkBilling(api.services.config, false, billing);
      if (!checked.ok) throw new Error('billing refused');
      const paid = await paySubscriptionCheckout(api.services, {
        checkoutId: checkout.id,
        card: { number: CARD_OF[country], expiry: '12/40', cvc: '123' },
        billing: { checked: checked.billing, shownTotal: taxed.charge.amount },
      });
      return paid.subscription.id;
    };
    const changeIn = (id: string, body: Record<string, unknown>) => api.request('POST', `${SUBSCRIPTIONS}/${id}/change`, { key: taxKey, body });
    const planChangeInvoice = async (id: string) => {
      const [order] = (await api.request('GET', `/api/v1/orders?subscription_id=${id}&billing_reason=subscription_update`, { key: taxKey })).body.data as any[];
      return { order, invoice: (await api.request('GET', `/api/v1/invoices?order_id=${order.id}`, { key: taxKey })).body.data[0] };
    };

    // Austria, prices without VAT (20 %): 1000 → 3000 at day 10 of 30. Credit 667 (666.67), VAT
    // 133 (133.4) on it; charge 2000, VAT 400: 1333 net, 267 VAT, 1600 charged.
    const basic = await createProduct(api, taxKey, { name: 'Basic', amount: 1000, tax_inclusive: false, mode: 'recurring', interval: 'day', interval_count: 30 });
    const team = await createProduct(api, taxKey, { name: 'Team', amount: 3000, tax_inclusive: false, mode: 'recurring', interval: 'day', interval_count: 30 });
    const austrian = await subscribeFrom('AT', { price_id: basic.price_id });
    // Germany, a plan including VAT (19 %): 1000 → 3000. Credit 667, VAT inside it 106
    // (667 × 19 / 119 = 106.496); charge 2000, VAT 319 (319.33): 1333 charged, 213 VAT of it.
    const german = await subscribeFrom('DE', { amount: 1000, interval: 'day', interval_count: 30, plan_name: 'Basic' });
    await advance(10 * DAY, taxKey);
    const changedAt = epoch(T0) + 10 * DAY;

    expect((await changeIn(austrian, { price_id: team.price_id })).status).toBe(200);
    const exclusive = await planChangeInvoice(austrian);
    expect(exclusive.invoice.lines).toEqual([
      { description: 'Unused time on Basic', quantity: 1, unit_amount: -667, amount_discount: 0, amount_subtotal: -667, tax_rate: 20, amount_tax: -133, amount_total: -800 },
      { description: 'Remaining time on Team', quantity: 1, unit_amount: 2000, amount_discount: 0, amount_subtotal: 2000, tax_rate: 20, amount_tax: 400, amount_total: 2400 },
    ]);
    expect(exclusive.invoice).toMatchObject({
      amount_subtotal: 1333,
      amount_tax: 267,
      amount_total: 1600,
      tax_country: 'AT',
      tax_treatment: 'vat',
      tax_breakdown: [{ rate: 20, amount_net: 1333, amount_tax: 267 }],
    });
    expect(exclusive.order).toMatchObject({ amount_total: 1600, amount_tax: 267, tax_country: 'AT', tax_treatment: 'vat' });
    const [exclusiveInvoice] = await api.services.db.select().from(invoices).where(eq(invoices.id, exclusive.invoice.id));
    expect([epoch(exclusiveInvoice!.suppliedFrom), epoch(exclusiveInvoice!.suppliedUntil)]).toEqual([changedAt, epoch(T0) + 30 * DAY]);
    expect((await recurringCharges(austrian)).map((charge) => charge.amount)).toEqual([1600]);
    const [page] = await pdfPages((await fetchPdf(api, `/api/v1/invoices/${exclusive.invoice.id}/pdf`, taxKey)).bytes);
    expect(page).toContain('Period of supply 11 March 2026 – 31 March 2026');
    expect(page).toContain('Unused time on Basic 1 -€6.67 20 % -€6.67 -€8.00 Remaining time on Team 1 €20.00 20 % €20.00 €24.00');
    expect(page).toContain('Subtotal (net) €13.33 VAT €2.67 Total €16.00');

    expect((await changeIn(german, { amount: 3000, interval: 'day', interval_count: 30, plan_name: 'Team' })).status).toBe(200);
    const inclusive = await planChangeInvoice(german);
    expect(inclusive.invoice.lines.map((line: any) => [line.description, line.tax_rate, line.amount_subtotal, line.amount_tax, line.amount_total])).toEqual([
      ['Unused time on Basic', 19, -561, -106, -667],
      ['Remaining time on Team', 19, 1681, 319, 2000],
    ]);
    expect(inclusive.invoice).toMatchObject({
      amount_subtotal: 1120,
      amount_tax: 213,
      amount_total: 1333,
      tax_country: 'DE',
      tax_treatment: 'vat',
      tax_breakdown: [{ rate: 19, amount_net: 1120, amount_tax: 213 }],
    });
    expect(inclusive.order).toMatchObject({ amount_total: 1333, amount_tax: 213 });
    expect((await recurringCharges(german)).map((charge) => charge.amount)).toEqual([1333]);
  });

  it('a discount: each plan priced less its discount where the period it prices starts before the discount’s end', async () => {
    const sub = await subscription({ amount: 999 });
    const discount = {
      coupon: 'cpn_test_half',
      promotion_code: null,
      label: 'Half',
      name: 'Half',
      percent_off: 50,
      amount_off: null,
      duration: 'forever' as const,
      duration_in_months: null,
      applies_to: null,
    };
    await api.services.db.update(subscriptions).set({ discount }).where(eq(subscriptions.id, sub.id));
    await advance(15 * DAY);
    // Old 999 − 500 = 499: credit 250 (249.5); new 1999 − 1000 = 999: charge 500 (499.5); 250 charged.
    expect((await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 })).status).toBe(200);
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([250]);
    const [row] = await api.services.db.select().from(planChanges).where(eq(planChanges.subscriptionId, sub.id));
    expect(row).toMatchObject({ credit: 250, charge: 500, amount: 250 });
    // A discount that ended before the period: the plans at full price.
    const ended = await subscription({ amount: 999 });
    await api.services.db.update(subscriptions).set({ discount, discountEnd: T0 }).where(eq(subscriptions.id, ended.id));
    expect((await change(ended.id, { amount: 1999, interval: 'day', interval_count: 30 })).status).toBe(200);
    expect((await recurringCharges(ended.id)).map((charge) => charge.amount)).toEqual([500]);
  });

  it('another interval: the new plan’s periods count from the change, its whole amount charged less the credit', async () => {
    const sub = await subscription({ amount: 1000 });
    await advance(10 * DAY);
    const t = epoch(T0) + 10 * DAY;
    const response = await change(sub.id, { amount: 9000, interval: 'year', plan_name: 'Yearly' });
    expect(response.status).toBe(200);
    const end = epoch(periodBoundary(new Date(t * 1000), 'year', 1, 1));
    expect(response.body).toMatchObject({ amount: 9000, interval: 'year', interval_count: 1, current_period_start: t, current_period_end: end, next_billing_at: end });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([9000 - 667]);
    expect((await updatedEvents(sub.id))[0]!.data.previous_attributes).toEqual({
      amount: 1000,
      interval: 'day',
      interval_count: 30,
      current_period_start: epoch(T0),
      current_period_end: epoch(T0) + 30 * DAY,
      next_billing_at: epoch(T0) + 30 * DAY,
    });
    // The next renewal is a year after the change: cycle 2 of the yearly plan.
    await advance(end - t);
    expect(await read(sub.id)).toMatchObject({ current_period_start: end, current_period_end: epoch(periodBoundary(new Date(t * 1000), 'year', 1, 2)) });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([8333, 9000]);
  });

  it('a price: checked as at creation; its product and price on the subscription', async () => {
    const product = await createProduct(api, key, { name: 'Club', amount: 2500, mode: 'recurring', interval: 'day', interval_count: 30 });
    const sub = await subscription({ amount: 1000 });
    await advance(15 * DAY);
    const response = await change(sub.id, { price_id: product.price_id });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ amount: 2500, price_id: product.price_id, product_id: product.id });
    expect(await planName(sub.id)).toBe('Club');
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([1250 - 500]);
    expectError(await change(sub.id, { price_id: product.price_id }), 400, 'parameter_invalid', 'price_id');
    const oneTime = await createProduct(api, key, { name: 'Ebook' });
    expectError(await change(sub.id, { price_id: oneTime.price_id }), 400, 'price_mode_unsupported', 'price_id');
    expectError(await change(sub.id, { price_id: 'price_test_nothing' }), 404, 'resource_missing', 'price_id');
  });

  it('declined: 402 card_declined, nothing changed, no event', async () => {
    const sub = await subscription({ amount: 999, card: CARDS.declinesRecurring });
    await advance(15 * DAY);
    const before = await read(sub.id);
    const eventsBefore = await eventsOf(api.services.db, sub.id);
    expectError(await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 }, { idempotencyKey: 'declined-1' }), 402, 'card_declined');
    expect(await read(sub.id)).toEqual(before);
    expect(await eventsOf(api.services.db, sub.id)).toEqual(eventsBefore);
    expect(await updateOrders(sub.id)).toEqual([]);
    // A replay answers as the first request did.
    expectError(await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 }, { idempotencyKey: 'declined-1' }), 402, 'card_declined');
  });

  it('the gateway’s silence: 500 payment_outcome_unknown, billing waits, the reconciler applies the approved change once', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(29 * DAY);
    const gateway = api.services.gateways.test;
    const chargeRecurring = gateway.chargeRecurring.bind(gateway);
    vi.spyOn(gateway, 'chargeRecurring').mockImplementationOnce(async (request) => {
      await chargeRecurring(request);
      throw new GatewayTimeoutError();
    });
    expectError(await change(sub.id, { amount: 3999, interval: 'day', interval_count: 30 }), 500, 'payment_outcome_unknown');
    expect(await read(sub.id)).toMatchObject({ amount: 999 });
    // The renewal falls due while the change is open: it waits, and so does another change.
    await advance(DAY);
    expect(await read(sub.id)).toMatchObject({ amount: 999, current_period_start: epoch(T0) });
    expectError(await change(sub.id, { amount: 4999, interval: 'day', interval_count: 30 }), 409, 'session_payment_in_progress');

    api.clock.advance(120);
    expect(await reconcilePlanChanges(api.services)).toBe(1);
    expect(await reconcilePlanChanges(api.services, { staleAfterSeconds: 0 })).toBe(0);
    // Credit 33 (999 × 1/30), charge 133 (3999 × 1/30): 100 charged; then the renewal on the new plan.
    expect(await updateOrders(sub.id)).toHaveLength(1);
    await advance(60);
    expect(await read(sub.id)).toMatchObject({ amount: 3999, current_period_start: epoch(T0) + 30 * DAY });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([100, 3999]);
  });

  it('a trial changes plan without a charge', async () => {
    const sub = await subscription({ amount: 999 });
    await api.services.db.update(subscriptions).set({ status: 'trialing', paymentsMade: 0 }).where(eq(subscriptions.id, sub.id));
    const response = await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'trialing', amount: 1999, credit_balance: 0 });
    expect(await recurringCharges(sub.id)).toEqual([]);
  });

  it('idempotent: a replay answers the subscription without charging again; another body is 409', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(15 * DAY);
    const body = { amount: 1999, interval: 'day', interval_count: 30 };
    const first = await change(sub.id, body, { idempotencyKey: 'change-1' });
    const again = await change(sub.id, body, { idempotencyKey: 'change-1' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await recurringCharges(sub.id)).toHaveLength(1);
    expectError(await change(sub.id, { ...body, amount: 2999 }, { idempotencyKey: 'change-1' }), 409, 'idempotency_key_reused');
  });

  it('a change racing the renewal: one charge of each, in turn, and neither lost', async () => {
    const sub = await subscription({ amount: 999 });
    await advance(30 * DAY - 1);
    const [renewal, changed] = await Promise.all([
      api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds: 1 } }),
      change(sub.id, { amount: 1999, interval: 'day', interval_count: 30, proration: 'next_period' }),
    ]);
    expect(renewal.status).toBe(200);
    expect([200, 409]).toContain(changed.status);
    const after = await read(sub.id);
    expect(after.current_period_start).toBe(epoch(T0) + 30 * DAY);
    // Before the renewal, the renewal switched to it; after, it waits for the next; refused while the renewal was at the gateway.
    const switched = changed.status === 200 && after.pending_change === null;
    expect(after.amount).toBe(switched ? 1999 : 999);
    if (changed.status === 200 && !switched) expect(after.pending_change).toMatchObject({ amount: 1999, effective_at: epoch(T0) + 60 * DAY });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([after.amount]);
  });
});

describe('next_period', () => {
  it('waits in pending_change, replaced by a later change; the renewal at its effective_at charges the new plan from there', async () => {
    const sub = await subscription({ amount: 999, interval: 'month', intervalCount: 1 });
    const end = epoch(periodBoundary(T0, 'month', 1, 1));
    const first = await change(sub.id, { amount: 1999, interval: 'month', proration: 'next_period' });
    expect(first.status).toBe(200);
    expect(first.body.pending_change).toEqual({ price_id: null, product_id: null, plan_name: 'Pro plan', amount: 1999, interval: 'month', interval_count: 1, effective_at: end });
    expect(first.body).toMatchObject({ amount: 999, interval: 'month' });
    const second = await change(sub.id, { amount: 4999, interval: 'week', interval_count: 2, plan_name: 'Fortnightly', proration: 'next_period' });
    expect(second.body.pending_change).toEqual({ price_id: null, product_id: null, plan_name: 'Fortnightly', amount: 4999, interval: 'week', interval_count: 2, effective_at: end });
    expect((await updatedEvents(sub.id)).map((event) => event.data.previous_attributes)).toEqual([{ pending_change: null }, { pending_change: first.body.pending_change }]);
    expect(await recurringCharges(sub.id)).toEqual([]);

    await advance(end - epoch(T0));
    const renewed = await read(sub.id);
    expect(renewed).toMatchObject({
      amount: 4999,
      interval: 'week',
      interval_count: 2,
      pending_change: null,
      current_period_start: end,
      current_period_end: end + 14 * DAY,
      next_billing_at: end + 14 * DAY,
    });
    expect((await recurringCharges(sub.id)).map((charge) => charge.amount)).toEqual([4999]);
    const renewalUpdate = (await updatedEvents(sub.id)).at(-1)!;
    expect(renewalUpdate.data.previous_attributes).toMatchObject({ amount: 999, interval: 'month', interval_count: 1, pending_change: second.body.pending_change });
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    expect((await invoiceOf(cycle.id)).lines.map((line: any) => [line.description, line.amount_total])).toEqual([['Fortnightly', 4999]]);
    // Two weeks on, the next renewal of the new plan.
    await advance(14 * DAY);
    expect(await read(sub.id)).toMatchObject({ current_period_start: end + 14 * DAY, current_period_end: end + 28 * DAY });
  });
});

describe('the credit balance', () => {
  it('a renewal the credit covers entirely succeeds without the gateway: events, invoice, receipt', async () => {
    const sub = await subscription({ amount: 3000 });
    await advance(1 * DAY);
    // Credit 2900 (3000 × 29/30), charge 97 (100 × 29/30): 2803 into the balance.
    expect((await change(sub.id, { amount: 100, interval: 'day', interval_count: 30 })).body.credit_balance).toBe(2803);
    const gateway = api.services.gateways.test;
    const spy = vi.spyOn(gateway, 'chargeRecurring');
    await advance(29 * DAY);
    expect(spy).not.toHaveBeenCalled();
    expect(await read(sub.id)).toMatchObject({ status: 'active', credit_balance: 2703, current_period_start: epoch(T0) + 30 * DAY });
    const types = (await eventsOf(api.services.db, sub.id)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['subscription.payment_succeeded', 'subscription.updated']);
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    expect(cycle).toMatchObject({ amount_total: 0 });
    const invoice = await invoiceOf(cycle.id);
    expect(invoice.lines.map((line: any) => [line.description, line.amount_total])).toEqual([
      ['Pro plan', 100],
      ['Credit from plan change', -100],
    ]);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('German: the renewal’s credit line reads `Guthaben aus Tarifwechsel`, on the invoice and its PDF', async () => {
    const sub = await subscription({ amount: 1999, language: 'de' });
    await advance(15 * DAY);
    expect((await change(sub.id, { amount: 999, interval: 'day', interval_count: 30 })).body.credit_balance).toBe(500);
    await advance(15 * DAY);
    const [cycle] = (await api.request('GET', `/api/v1/orders?subscription_id=${sub.id}&billing_reason=subscription_cycle`, { key })).body.data as any[];
    const invoice = await invoiceOf(cycle.id);
    expect(invoice.lines.map((line: any) => [line.description, line.amount_total])).toEqual([
      ['Pro plan', 999],
      ['Guthaben aus Tarifwechsel', -500],
    ]);
    const [page] = await invoicePdfPages(invoice.id);
    expect(page).toContain('Leistungszeitraum 31. März 2026 – 30. April 2026');
    expect(page).toContain('Pro plan 1 9,99 € 0 % 9,99 € 9,99 € Guthaben aus Tarifwechsel 1 -5,00 € 0 % -5,00 € -5,00 €');
    expect(page).toContain('Gesamtbetrag 4,99 €');
  });
});

describe('refusals', () => {
  it('400 for the plan it is on or a malformed body; 409 unless active or trialing without a scheduled end', async () => {
    const sub = await subscription({ amount: 999 });
    expectError(await change(sub.id, { amount: 999, interval: 'day', interval_count: 30 }), 400, 'parameter_invalid', 'amount');
    expectError(await change(sub.id, { amount: 999 }), 400, 'parameter_invalid', 'interval');
    expectError(await change(sub.id, { amount: 999, interval: 'day', proration: 'later' }), 400, 'parameter_invalid', 'proration');
    await api.services.db.update(subscriptions).set({ cancelAtPeriodEnd: true, cancelAt: sub.currentPeriodEnd }).where(eq(subscriptions.id, sub.id));
    expectError(await change(sub.id, { amount: 1999, interval: 'day', interval_count: 30 }), 409, 'subscription_not_active');
    const canceled = await subscription();
    expect((await api.request('DELETE', `${SUBSCRIPTIONS}/${canceled.id}`, { key })).status).toBe(200);
    expectError(await change(canceled.id, { amount: 1999, interval: 'day' }), 409, 'subscription_not_active');
  });

  it('404 from another store or the other environment; both environments and stores change their own', async () => {
    const other = await createStore(api.services, { subscriptions: true });
    const sub = await subscription({ amount: 999 });
    expectError(await change(sub.id, { amount: 1999, interval: 'day' }, { key: other.keys.sk_test }), 404, 'resource_missing', 'id');
    expectError(await change(sub.id, { amount: 1999, interval: 'day' }, { key: store.keys.sk_live }), 404, 'resource_missing', 'id');
    const live = await createSubscription(api.services, other.id, { ...THIRTY_DAYS, amount: 1999, livemode: true });
    const response = await change(live.id, { amount: 999, interval: 'day', interval_count: 30 }, { key: other.keys.sk_live });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ livemode: true, amount: 999, credit_balance: 1000 });
    expect((await change(live.id, { amount: 2999, interval: 'day', interval_count: 30, proration: 'next_period' }, { key: other.keys.sk_live })).body.pending_change).toMatchObject({ amount: 2999 });
  });

  it('503 feature_unavailable and 403 capability_disabled first', async () => {
    const plain = await createStore(api.services, { subscriptions: false });
    expectError(await change('sub_test_nothing', { amount: 'x' }, { key: plain.keys.sk_test }), 403, 'capability_disabled');
    api.services.config.subscriptionsEnabled = false;
    try {
      expectError(await change('sub_test_nothing', { amount: 'x' }), 503, 'feature_unavailable');
    } finally {
      api.services.config.subscriptionsEnabled = true;
    }
  });
});
