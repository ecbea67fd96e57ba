import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenseKeys, licenseValidations, orders, subscriptionCharges } from '@/db/schema';
import { startBuyerDataErasureJob } from '@/server/disputes/jobs';
import { openDispute } from '@/server/disputes/service';
import { newId } from '@/server/ids';
import { declareWithdrawal } from '@/server/orders/withdrawals/service';
import { WAIVER_FIELDS } from '@/server/orders/withdrawals/waiver';
import { payCheckoutSession } from '@/server/payments/service';
import { openPortal } from '@/server/portal/page';
import { advanceClock, DAY } from '../billing/support';
import { fetchPdf, pdfPages } from '../invoices/support';
import { validCard } from '../payments/support';
import { insertOrder } from '../orders/fixtures';
import { createdPortal, tokenOf } from '../portal/support';
import { expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { DISPUTE_CARDS, DISPUTES, disputeOf, licensedProductWithFile, serveCustomerSide } from './support';

/**
 * A dispute's evidence pack (GET /disputes/{id}/evidence.pdf), read back from the PDF's text: each
 * piece in its labelled section, the buyer's address and user agent recorded by the hosted pages
 * and erased 540 days after the payment, and the pack's scope.
 */
const ORIGIN = 'https://pay.example.test';
const api = useTestApi({ publicBaseUrl: ORIGIN, subscriptionsEnabled: true });
let customer: Awaited<ReturnType<typeof serveCustomerSide>>;

beforeAll(async () => {
  customer = await serveCustomerSide(api.services);
});
afterAll(() => customer.close());

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const BUYER_IP = '203.0.113.77';
const BROWSER = { 'user-agent': USER_AGENT, 'x-forwarded-for': BUYER_IP };
const HOUR = 3600;

const evidencePath = (id: string) => `${DISPUTES}/${id}/evidence.pdf`;

/** The pack as REST answers it, every page's text. */
async function packOf(key: string, disputeId: string): Promise<string[]> {
  const pdf = await fetchPdf(api, evidencePath(disputeId), key);
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="evidence-${disputeId}.pdf"`);
  const pages = await pdfPages(pdf.bytes);
  pages.forEach((page, index) => expect(page).toContain(`${disputeId} · Page ${index + 1} of ${pages.length}`));
  return pages;
}

/** `2026-03-01 12:00:00 UTC` for a time `seconds` after T0. */
const at = (seconds: number) => `${new Date(T0.getTime() + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** A text the store answers with: long enough to flow over a page and a half. */
const DELIVERY_STORY = Array.from({ length: 60 }, (_, n) => `Paragraph ${n + 1}: the customer downloaded the atlas on the day of purchase and validated its key in the app.`).join('\n');

describe('the evidence pack of a checkout paid with a dispute card on the hosted page', () => {
  it('shows each piece in its labelled section, the long evidence flowing over pages; closed and then past 540 days it says lost and erased', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { name: 'Moth Books', taxCalculation: true });
    const key = store.keys.sk_test;
    const product = await licensedProductWithFile(api, key, 'Moth atlas', customer.fileUrl);
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { line_items: [{ price_id: product.price_id, quantity: 2 }], customer_email: 'reader@example.com' } });
    expect(session.status).toBe(201);
    const paid = await customer.pay(session.body.url, DISPUTE_CARDS.fraudulent, BROWSER, {
      vat_id: 'DE136695976',
      [WAIVER_FIELDS.deliveryConsent]: 'on',
      [WAIVER_FIELDS.acknowledgement]: 'on',
    });
    expect(paid.status).toBe(303);
    const orderId: string = session.body.order_id;
    const [row] = await api.services.db.select({ ip: orders.buyerIp, userAgent: orders.buyerUserAgent }).from(orders).where(eq(orders.id, orderId));
    expect(row).toEqual({ ip: BUYER_IP, userAgent: USER_AGENT });
    const order = (await api.request('GET', `/api/v1/orders/${orderId}`, { key })).body;
    const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body;
    const [licenseKey] = order.license_keys as string[];
    const dispute = await disputeOf(api, key, orderId);

    // An hour later the customer downloads the file; two hours later their app validates the key.
    await advanceClock(api, key, HOUR);
    const portal = (await openPortal(api.services, tokenOf((await createdPortal(api, key, { order_id: orderId })).url)))!;
    expect((await customer.download(portal.orders[0]!.downloads[0]!.url!)).status).toBe(200);
    await advanceClock(api, key, HOUR);
    expect((await api.request('POST', '/api/v1/licenses/validate', { key, body: { key: licenseKey } })).body.status).toBe('active');
    await advanceClock(api, key, HOUR);
    const saved = await api.request('POST', `${DISPUTES}/${dispute.id}`, {
      key,
      body: { evidence: { customer_communication: 'On 1 March the customer wrote: “The atlas arrived, thank you!”', product_description: DELIVERY_STORY } },
    });
    expect(saved.status).toBe(200);

    const pages = await packOf(key, dispute.id);
    expect(pages.length).toBeGreaterThan(1);
    const pack = pages.join(' ');
    const maskedKey = `LK-•••••-•••••-•••••-${licenseKey!.split('-').pop()}`;
    for (const text of [
      `Dispute evidence Dispute ${dispute.id} · Order ${orderId} TEST MODE: a test dispute of a test payment; no money moved.`,
      `Prepared ${at(3 * HOUR)}`,
      `Dispute Dispute ID ${dispute.id} Reason fraudulent Status needs_response Amount €23.80 Created ${at(0)} Evidence due by ${at(7 * DAY)} Evidence submitted not submitted Order`,
      `Order Order ID ${orderId} Status paid Paid at ${at(0)} Card visa •••• 0259 Invoice ${invoice.number} Credit notes none`,
      'Description Quantity Unit price Net VAT Total Moth atlas 2 €10.00 €20.00 €3.80 €23.80',
      'Subtotal €20.00 VAT €3.80 Total €23.80 Refunded €0.00 Refunds: none. Withdrawal: none declared.',
      `Withdrawal waiver Accepted at ${at(0)} Text version withdrawal-waiver-en-v1 Checkbox 1 I agree that delivery starts before the withdrawal period ends Checkbox 2 I acknowledge that I thereby lose my right of withdrawal`,
      `Customer E-mail reader@example.com Name not given VAT ID DE136695976 IP address at payment ${BUYER_IP} User agent at payment ${USER_AGENT}`,
      `Downloads Time File Result ${at(HOUR)} Moth atlas served`,
      `License key validations Time Key (last group shown) Result ${at(2 * HOUR)} ${maskedKey} active 1 validation in all.`,
      `E-mails to the customer Time E-mail ${at(0)} Your receipt from Moth Books, order ${orderId} receipt e-mail to reader@example.com: pending`,
      'Evidence Customer communication On 1 March the customer wrote: “The atlas arrived, thank you!” Product description Paragraph 1: the customer downloaded',
      'Paragraph 60: the customer downloaded the atlas on the day of purchase and validated its key in the app.',
      'Additional information Not given.',
    ]) {
      expect(pack).toContain(text);
    }
    expect(pack).not.toContain(licenseKey);
    // The story flows from one page onto the next.
    const pageOf = (text: string) => pages.findIndex((page) => page.includes(text));
    expect(pageOf('Paragraph 60:')).toBeGreaterThan(pageOf('Paragraph 1:'));

    // The deadline passes with evidence that does not win: lost, its credit note issued; the key now validates revoked.
    await advanceClock(api, key, 7 * DAY - 3 * HOUR);
    expect((await api.request('POST', '/api/v1/licenses/validate', { key, body: { key: licenseKey } })).body.status).toBe('revoked');
    const [creditNote] = (await api.request('GET', `/api/v1/credit_notes?order_id=${orderId}`, { key })).body.data;
    const lost = (await packOf(key, dispute.id)).join(' ');
    for (const text of [
      `Status lost Amount €23.80 Created ${at(0)} Evidence due by ${at(7 * DAY)} Evidence submitted ${at(7 * DAY)} Closed ${at(7 * DAY)}`,
      `Credit notes ${creditNote.number} (€23.80, dispute lost, ${at(7 * DAY)})`,
      `${at(2 * HOUR)} ${maskedKey} active ${at(7 * DAY)} ${maskedKey} revoked 2 validations in all.`,
      `IP address at payment ${BUYER_IP}`,
    ]) {
      expect(lost).toContain(text);
    }

    // 540 days after the payment, a second short: still kept; at 540 days, erased from the order and said so.
    await advanceClock(api, key, 533 * DAY - 1);
    expect((await packOf(key, dispute.id)).join(' ')).toContain(`IP address at payment ${BUYER_IP} User agent at payment ${USER_AGENT}`);
    await advanceClock(api, key, 1);
    const [erased] = await api.services.db.select({ ip: orders.buyerIp, userAgent: orders.buyerUserAgent }).from(orders).where(eq(orders.id, orderId));
    expect(erased).toEqual({ ip: null, userAgent: null });
    const after = (await packOf(key, dispute.id)).join(' ');
    expect(after).toContain('IP address at payment erased (kept 540 days after the payment) User agent at payment erased (kept 540 days after the payment)');
    expect(after).not.toContain(BUYER_IP);
  });
});

describe('the evidence pack of an order refunded in part and withdrawn from, then disputed by the acquirer', () => {
  it('lists its refunds and withdrawal, and of many validations the first and last hundred; without a waiver or buyer data recorded it says so', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { name: 'Quiet Books' });
    const key = store.keys.sk_test;
    const product = await licensedProductWithFile(api, key, 'Field notes', customer.fileUrl);
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { price_id: product.price_id, customer_email: 'quiet@example.com' } });
    // Paid without the hosted page's request (as an order paid before the address was recorded).
    expect(await payCheckoutSession(api.services, { sessionId: session.body.id, card: validCard() })).toMatchObject({ status: 'paid' });
    const orderId: string = session.body.order_id;
    await advanceClock(api, key, HOUR);
    const refund = await api.request('POST', '/api/v1/refunds', { key, body: { order_id: orderId, amount: 300 } });
    expect(refund.body.status).toBe('succeeded');
    const creditNote = (await api.request('GET', `/api/v1/credit_notes/${refund.body.credit_note_id}`, { key })).body;
    await advanceClock(api, key, HOUR);
    await declareWithdrawal({ db: api.services.db, clock: api.clock }, { orderId, email: 'quiet@example.com', name: 'Quinn', reason: 'Changed my mind.' });
    const now = new Date(T0.getTime() + 2 * HOUR * 1000);
    const dispute = await api.services.db.transaction((tx) =>
      openDispute(tx, { storeId: store.id, livemode: false }, orderId, { reason: 'product_not_received' }, { fee: 1500, times: { now, wallNow: api.clock.now() } }),
    );

    // A key its app validated every second, 205 times: the first and the last hundred are listed.
    const [issued] = await api.services.db.select().from(licenseKeys).where(eq(licenseKeys.orderId, orderId));
    const validatedAt = (n: number) => 3 * HOUR + n;
    await api.services.db.insert(licenseValidations).values(
      Array.from({ length: 205 }, (_, n) => ({
        id: newId('lv', false),
        storeId: store.id,
        livemode: false,
        licenseKeyId: issued!.id,
        orderId,
        result: 'active' as const,
        createdAt: new Date(T0.getTime() + validatedAt(n) * 1000),
      })),
    );
    const masked = `LK-•••••-•••••-•••••-${issued!.key.split('-').pop()}`;

    const pack = (await packOf(key, dispute.id)).join(' ');
    for (let n = 0; n < 205; n += 1) {
      const listed = `${at(validatedAt(n))} ${masked} active`;
      if (n < 100 || n >= 105) expect(pack).toContain(listed);
      else expect(pack).not.toContain(listed);
    }
    expect(pack).toContain(`${at(validatedAt(99))} ${masked} active … 5 more validations ${at(validatedAt(105))} ${masked} active`);
    expect(pack).toContain(`${at(validatedAt(204))} ${masked} active 205 validations in all.`);
    for (const text of [
      `Reason product_not_received Status needs_response Amount €7.00 Created ${at(2 * HOUR)}`,
      `Status partially_refunded Paid at ${at(0)} Card visa •••• 4242`,
      `Credit notes ${creditNote.number} (€3.00, refund, ${at(HOUR)})`,
      `Subtotal €10.00 VAT €0.00 Total €10.00 Refunded €3.00 Refund Amount Status Time ${refund.body.id} €3.00 succeeded ${at(HOUR)}`,
      `Withdrawal declared ${at(2 * HOUR)} Withdrawal status requested Reason given Changed my mind.`,
      'Withdrawal waiver No waiver of the right of withdrawal was given with this order.',
      'Customer E-mail quiet@example.com Name not given VAT ID none IP address at payment not recorded User agent at payment not recorded',
      'Downloads No file of this order was downloaded.',
      'Evidence Customer communication Not given. Product description Not given. Additional information Not given.',
    ]) {
      expect(pack).toContain(text);
    }
  });
});

describe('the evidence pack of a subscription’s first payment on the hosted page', () => {
  it('shows the address and user agent the first charge recorded, and the subscription’s e-mails; 540 days after the payment both are erased from the charge and its order', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { name: 'Moth Club', subscriptions: true });
    const key = store.keys.sk_test;
    const created = await api.request('POST', '/api/v1/subscriptions', {
      key,
      body: { amount: 990, interval: 'month', plan_name: 'Atlas club', total_payments: 12, customer_email: 'member@example.com', customer_name: 'Mara Moth' },
    });
    expect(created.status).toBe(201);
    expect((await customer.pay(created.body.url, DISPUTE_CARDS.productNotReceived, BROWSER)).status).toBe(303);
    const subscriptionId = (await api.request('GET', `/api/v1/subscriptions/checkout/${created.body.id}`, { key })).body.subscription;
    const [charge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscriptionId));
    expect(charge).toMatchObject({ buyerIp: BUYER_IP, buyerUserAgent: USER_AGENT, orderId: expect.stringMatching(/^ord_test_/) });
    const dispute = await disputeOf(api, key, charge!.orderId!);

    const pack = (await packOf(key, dispute.id)).join(' ');
    for (const text of [
      `Reason product_not_received Status needs_response Amount €9.90`,
      `Subscription ${subscriptionId}`,
      'Description Quantity Unit price Net VAT Total Atlas club',
      `Customer E-mail member@example.com Name Mara Moth VAT ID none IP address at payment ${BUYER_IP} User agent at payment ${USER_AGENT}`,
      `E-mails to the customer Time E-mail ${at(0)} Your receipt from Moth Club: Atlas club, payment 1 of 12 receipt e-mail to member@example.com: pending`,
    ]) {
      expect(pack).toContain(text);
    }

    // Lost at the deadline: the subscription is canceled, and the customer's e-mail about it listed too.
    await advanceClock(api, key, 7 * DAY);
    expect((await packOf(key, dispute.id)).join(' ')).toContain(`subscription_canceled e-mail to member@example.com: pending`);
    await advanceClock(api, key, 533 * DAY);
    const [erasedCharge] = await api.services.db
      .select({ ip: subscriptionCharges.buyerIp, userAgent: subscriptionCharges.buyerUserAgent })
      .from(subscriptionCharges)
      .where(eq(subscriptionCharges.id, charge!.id));
    expect(erasedCharge).toEqual({ ip: null, userAgent: null });
    const [erasedOrder] = await api.services.db.select({ ip: orders.buyerIp, userAgent: orders.buyerUserAgent }).from(orders).where(eq(orders.id, charge!.orderId!));
    expect(erasedOrder).toEqual({ ip: null, userAgent: null });
    expect((await packOf(key, dispute.id)).join(' ')).toContain('IP address at payment erased (kept 540 days after the payment)');
  });
});

describe('erasing the buyer data', () => {
  const buyerOf = async (table: typeof orders | typeof subscriptionCharges, id: string) => {
    const [row] = await api.services.db.select({ ip: table.buyerIp, userAgent: table.buyerUserAgent }).from(table).where(eq(table.id, id));
    return row;
  };
  const KEPT = { ip: BUYER_IP, userAgent: USER_AGENT };
  const ERASED = { ip: null, userAgent: null };

  it('the background pass goes by each store’s clock: a live payment by wall time, a test payment by its store’s test clock, a declined checkout by its creation', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const live = await insertOrder(api, store, { livemode: true });
    const test = await insertOrder(api, store);
    const untouched = await insertOrder(api, other);
    // A checkout whose attempt was declined: never paid, dated by its creation.
    const declined = await insertOrder(api, other, { status: 'pending' });
    await api.services.db
      .update(orders)
      .set({ buyerIp: BUYER_IP, buyerUserAgent: USER_AGENT })
      .where(inArray(orders.id, [live.id, test.id, untouched.id, declined.id]));
    // Paid at T0; then the store's test clock moves 10 days ahead of the wall clock.
    await advanceClock(api, store.keys.sk_test, 10 * DAY);
    const job = startBuyerDataErasureJob(api.services);
    const all = async () => [await buyerOf(orders, live.id), await buyerOf(orders, test.id), await buyerOf(orders, untouched.id), await buyerOf(orders, declined.id)];
    const wall = (seconds: number) => api.clock.set(new Date(T0.getTime() + seconds * 1000));
    try {
      wall(530 * DAY - 1);
      await job.runOnce();
      expect(await all()).toEqual([KEPT, KEPT, KEPT, KEPT]);
      wall(530 * DAY);
      await job.runOnce();
      expect(await all()).toEqual([KEPT, ERASED, KEPT, KEPT]);
      wall(540 * DAY - 1);
      await job.runOnce();
      expect(await all()).toEqual([KEPT, ERASED, KEPT, KEPT]);
      wall(540 * DAY);
      await job.runOnce();
      expect(await all()).toEqual([ERASED, ERASED, ERASED, ERASED]);
    } finally {
      await job.stop();
    }
  });

  it('a first charge declined on the hosted page keeps the address alone, until 540 days after the attempt', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { subscriptions: true });
    const key = store.keys.sk_test;
    const created = await api.request('POST', '/api/v1/subscriptions', {
      key,
      body: { amount: 990, interval: 'month', plan_name: 'Atlas club', total_payments: 12, customer_email: 'declined@example.com' },
    });
    expect((await customer.pay(created.body.url, '4000 0000 0000 0002', BROWSER)).status).toBe(303);
    const subscriptionId = (await api.request('GET', `/api/v1/subscriptions/checkout/${created.body.id}`, { key })).body.subscription;
    const [charge] = await api.services.db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscriptionId));
    expect(charge).toMatchObject({ status: 'declined', orderId: null, buyerIp: BUYER_IP, buyerUserAgent: USER_AGENT });
    await advanceClock(api, key, 540 * DAY - 1);
    expect(await buyerOf(subscriptionCharges, charge!.id)).toEqual(KEPT);
    await advanceClock(api, key, 1);
    expect(await buyerOf(subscriptionCharges, charge!.id)).toEqual(ERASED);
  });
});

describe('GET /api/v1/disputes/{id}/evidence.pdf', () => {
  it('over /api/trpc the same file in base64; an unknown id, another store’s and the other environment’s answer the identical 404; no key is 401', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const session = await api.request('POST', '/api/v1/checkout/sessions', {
      key: store.keys.sk_test,
      body: { price_id: (await licensedProductWithFile(api, store.keys.sk_test, 'Map', customer.fileUrl)).price_id, customer_email: 'map@example.com' },
    });
    expect((await customer.pay(session.body.url, DISPUTE_CARDS.fraudulent, BROWSER)).status).toBe(303);
    const dispute = await disputeOf(api, store.keys.sk_test, session.body.order_id);

    const input = encodeURIComponent(JSON.stringify({ id: dispute.id }));
    const response = await api.request('GET', `/api/trpc/disputes.retrieveEvidence?input=${input}`, { key: store.keys.sk_test });
    expect(response.status).toBe(200);
    const file = response.body.result.data;
    expect(file).toMatchObject({ filename: `evidence-${dispute.id}.pdf`, content_type: 'application/pdf' });
    expect(Buffer.from(file.content_base64, 'base64')).toEqual((await fetchPdf(api, evidencePath(dispute.id), store.keys.sk_test)).bytes);

    expectIdenticalMissing(
      await Promise.all([
        rawApiRequest(api, 'GET', evidencePath('dp_test_AAAAAAAAAAAAAAAAAAAAAAAA'), store.keys.sk_test),
        rawApiRequest(api, 'GET', evidencePath(dispute.id), other.keys.sk_test),
        rawApiRequest(api, 'GET', evidencePath(dispute.id), store.keys.sk_live),
      ]),
      'id',
    );
    expectError(await api.request('GET', evidencePath(dispute.id)), 401, 'missing_api_key');
  });
});
