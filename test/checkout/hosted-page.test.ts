import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { products } from '@/db/schema';
import { taxLineLabel } from '@/server/kit/hosted-page/tax-label';
import { loadHostedCheckout } from '@/server/checkout/hosted/page';
import { taxLabelOf } from '@/server/kit/hosted-page/tax-label';
import { invalidLinkResponse } from '@/server/kit/hosted-page/invalid-link';
import { loadHostedReceipt } from '@/server/checkout/hosted/receipt';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { receiptUrl, signedLink } from '@/server/kit/links';
import { payCheckoutSession } from '@/server/payments/service';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { log } from '@/server/observability/log';

/**
 * The hosted page's read model and form glue without a browser: link checks, the
 * states the page shows, where each submission sends the browser, the receipt, and that card
 * data never reaches a URL or a log. test/browser/checkout.test.ts drives the same in Chromium.
 */
const api = useTestApi();
const T0 = new Date('2026-06-01T10:00:00.000Z');
const APPROVED = '4242 4242 4242 4242';
let key = '';
let storeName = '';
let licensed: { price_id: string };
let taxed: { price_id: string };

async function createSession(body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/v1/checkout/sessions', { key, body });
  expect(response.status).toBe(201);
  const url = new URL(response.body.url);
  return { ...response.body, link: { id: response.body.id as string, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! } };
}

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

const card = (number = APPROVED) => ({ card_number: number, expiry: '12/30', cvc: '123' });

beforeAll(async () => {
  api.clock.set(T0);
  const store = await createStore(api.services, { taxCalculation: true });
  key = store.keys.sk_test;
  storeName = store.name;
  const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'App licence', amount: 1500, sku: uniqueSku() } });
  licensed = created.body;
  await api.services.db.update(products).set({ hasLicense: true }).where(eq(products.id, created.body.id));
  taxed = (await api.request('POST', '/api/v1/products', { key, body: { name: 'Printed atlas', amount: 2000, tax_rate: 20, sku: uniqueSku() } })).body;
});

afterEach(() => vi.restoreAllMocks());

describe('hosted checkout read model', () => {
  it('an open session: store name, lines with quantity and unit price, tax and total', async () => {
    const session = await createSession({ line_items: [{ price_id: licensed.price_id }, { price_id: taxed.price_id, quantity: 2 }] });
    const hosted = await loadHostedCheckout(api.services, session.link);
    expect(hosted.state).toBe('open');
    if (hosted.state !== 'open') return;
    expect(hosted.view).toMatchObject({
      storeName,
      storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null },
      // The store's clock when it was read: the form's script judges expiry dates by its month.
      readAt: T0.getTime() / 1000,
      livemode: false,
      customerEmail: null,
      amountSubtotal: 5500,
      amountTax: 800,
      amountTotal: 6300,
      // Only the taxed line's rate names the tax.
      tax: { rates: [20], inclusive: false },
      lines: [
        { description: 'App licence', quantity: 1, unitAmount: 1500 },
        { description: 'Printed atlas', quantity: 2, unitAmount: 2000 },
      ],
    });
  });

  it('a changed signature, expiry or id, an unknown or malformed id, or no query: invalid (one answer for all)', async () => {
    const session = await createSession({ price_id: licensed.price_id });
    const other = await createSession({ price_id: licensed.price_id });
    const { link } = session;
    const flipped = `${link.signature[0] === 'A' ? 'B' : 'A'}${link.signature.slice(1)}`;
    for (const params of [
      { ...link, signature: flipped },
      { ...link, expires: String(Number(link.expires) + 1) },
      { ...link, id: other.id },
      { ...link, id: 'cs_test_doesnotexist000000000000' },
      { ...link, id: '../../etc/passwd' },
      { id: link.id, expires: undefined, signature: undefined },
    ]) {
      expect(await loadHostedCheckout(api.services, params)).toEqual({ state: 'invalid' });
    }
    const response = invalidLinkResponse();
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'none'.*frame-ancestors 'none'/);
    expect(await response.text()).toContain('This checkout link is not valid');
  });

  it('a correctly signed link past its expiry, and a session past its deadline on the store clock: expired', async () => {
    const session = await createSession({ price_id: licensed.price_id, expires_at: Math.floor(T0.getTime() / 1000) + 3600 });
    const past = Math.floor(T0.getTime() / 1000) - 1;
    const stale = new URL(signedLink('http://x', 'test-auth-secret', 'checkout', session.id, past));
    expect(await loadHostedCheckout(api.services, { id: session.id, expires: String(past), signature: stale.searchParams.get('signature')! })).toMatchObject({ state: 'expired', storeName });
    expect((await loadHostedCheckout(api.services, session.link)).state).toBe('open');
    api.clock.advance(3600);
    try {
      expect((await loadHostedCheckout(api.services, session.link)).state).toBe('expired');
    } finally {
      api.clock.set(T0);
    }
  });
});

describe('hosted form submission', () => {
  it('a local validation failure returns to the page with the code only: no card data in the URL or any log', async () => {
    const logged = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'info'), vi.spyOn(log, 'info'), vi.spyOn(log, 'warn'), vi.spyOn(log, 'error')];
    const session = await createSession({ price_id: licensed.price_id, customer_email: 'a@example.com' });
    const outcome = await submitHostedPayment(api.services, payCheckoutSession, { ...session.link, form: form(card('4242 4242 4242 4241')) });
    expect(outcome.kind).toBe('redirect');
    if (outcome.kind !== 'redirect') return;
    const location = new URL(outcome.location, 'http://localhost');
    expect(location.pathname).toBe(`/checkout/${session.id}`);
    expect(location.searchParams.get('error')).toBe('invalid_card_number');
    expect(outcome.location).not.toMatch(/4241|4242/);
    for (const spy of logged) expect(JSON.stringify(spy.mock.calls)).not.toMatch(/4242/);
  });

  it('no customer_email: a missing or malformed email is refused before any attempt', async () => {
    const session = await createSession({ price_id: licensed.price_id });
    for (const email of ['', 'not-an-email']) {
      const outcome = await submitHostedPayment(api.services, payCheckoutSession, { ...session.link, form: form({ ...card(), email }) });
      expect(outcome.kind === 'redirect' && new URL(outcome.location, 'http://localhost').searchParams.get('error')).toBe('email_invalid');
    }
    expect((await loadHostedCheckout(api.services, session.link)).state).toBe('open');
    // After a card error the typed email comes back for the form (card fields never do).
    const cardError = await submitHostedPayment(api.services, payCheckoutSession, { ...session.link, form: form({ ...card('4242 4242 4242 4241'), email: 'kept@example.com' }) });
    expect(cardError).toMatchObject({ kind: 'redirect', email: 'kept@example.com' });
  });

  it('approve: success_url with session_id; a second submission lands there too and charges nothing more', async () => {
    const session = await createSession({ price_id: licensed.price_id, customer_email: 'b@example.com', success_url: 'https://shop.example/thanks?x=1' });
    const pay = vi.fn(payCheckoutSession);
    const first = await submitHostedPayment(api.services, pay, { ...session.link, form: form(card()) });
    expect(first).toEqual({ kind: 'redirect', location: `https://shop.example/thanks?x=1&session_id=${session.id}` });
    const second = await submitHostedPayment(api.services, pay, { ...session.link, form: form(card()) });
    expect(second).toEqual(first);
    // The second one never reached the payment service: the page saw the session complete.
    expect(pay).toHaveBeenCalledTimes(1);
    expect((await loadHostedCheckout(api.services, session.link)).state).toBe('complete');
  });

  it('decline: back to the page, which then shows the failure; a later submission is not attempted', async () => {
    const session = await createSession({ price_id: licensed.price_id, customer_email: 'c@example.com' });
    const pay = vi.fn(payCheckoutSession);
    const declined = await submitHostedPayment(api.services, pay, { ...session.link, form: form(card('4000 0000 0000 0002')) });
    expect(declined.kind === 'redirect' && new URL(declined.location, 'http://localhost').searchParams.get('error')).toBe('card_declined');
    const hosted = await loadHostedCheckout(api.services, session.link);
    expect(hosted).toMatchObject({ state: 'failed', view: { failureCode: 'card_declined' } });
    const again = await submitHostedPayment(api.services, pay, { ...session.link, form: form(card()) });
    expect(again.kind === 'redirect' && new URL(again.location, 'http://localhost').pathname).toBe(`/checkout/${session.id}`);
    expect(pay).toHaveBeenCalledTimes(1);
  });

  it('a tampered link is not found, and the payment service is never called', async () => {
    const session = await createSession({ price_id: licensed.price_id, customer_email: 'd@example.com' });
    const pay = vi.fn(payCheckoutSession);
    expect(await submitHostedPayment(api.services, pay, { ...session.link, signature: 'forged', form: form(card()) })).toEqual({ kind: 'not_found' });
    expect(pay).not.toHaveBeenCalled();
  });
});

describe('receipt', () => {
  it('paid: lines, amounts, card brand and last 4, the license key, the order id; only with its signature', async () => {
    const session = await createSession({ price_id: licensed.price_id, quantity: 1 });
    const unpaidSignature = new URL(receiptUrl(api.services.config, session.id)).searchParams.get('signature')!;
    expect(await loadHostedReceipt(api.services, { id: session.id, signature: unpaidSignature })).toEqual({
      state: 'unpaid',
      storeName,
      storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null },
    });

    const paid = await submitHostedPayment(api.services, payCheckoutSession, { ...session.link, form: form({ ...card(), email: 'e@example.com' }) });
    expect(paid).toEqual({ kind: 'redirect', location: receiptUrl(api.services.config, session.id) });
    const receipt = await loadHostedReceipt(api.services, { id: session.id, signature: unpaidSignature });
    expect(receipt).toMatchObject({
      state: 'paid',
      receipt: {
        orderId: session.order_id,
        storeName,
        customerEmail: 'e@example.com',
        cardBrand: 'visa',
        cardLast4: '4242',
        amountTotal: 1500,
        tax: { rates: [], inclusive: false },
        lines: [{ description: 'App licence', quantity: 1, unitAmount: 1500 }],
        licenseKeys: [expect.stringMatching(/^LK-[A-Z2-7]{5}(-[A-Z2-7]{5}){3}$/)],
      },
    });
    expect(await loadHostedReceipt(api.services, { id: session.id, signature: 'forged' })).toEqual({ state: 'invalid' });
    expect(await loadHostedReceipt(api.services, { id: session.id, signature: undefined })).toEqual({ state: 'invalid' });
  });
});

describe('the tax line: taxLabelOf', () => {
  it('the rates of the taxed lines, ascending and each once; inclusive only when every taxed line is', () => {
    const line = (amountTax: number, taxRate: number | null, taxInclusive = false) => ({ amountTax, taxRate, taxInclusive });
    expect(taxLabelOf([line(190, 19), line(70, 7), line(380, 19), line(0, null)])).toEqual({ rates: [7, 19], inclusive: false });
    expect(taxLabelOf([line(160, 19, true), line(0, 19, false)])).toEqual({ rates: [19], inclusive: true });
    expect(taxLabelOf([line(160, 19, true), line(70, 7, false)])).toEqual({ rates: [7, 19], inclusive: false });
    // Tax not calculated (or a rate of 0): no rate to name.
    expect(taxLabelOf([line(0, 19), line(0, 0)])).toEqual({ rates: [], inclusive: false });
  });

  it('reads on the page as "VAT 19%", "VAT 7% and 19% (included)", or plain "VAT"', () => {
    expect(taxLineLabel({ rates: [19], inclusive: false })).toBe('VAT 19%');
    expect(taxLineLabel({ rates: [7, 19], inclusive: true })).toBe('VAT 7% and 19% (included)');
    expect(taxLineLabel({ rates: [0, 7, 19], inclusive: false })).toBe('VAT 0%, 7% and 19%');
    expect(taxLineLabel({ rates: [], inclusive: false })).toBe('VAT');
  });
});
