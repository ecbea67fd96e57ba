import { count, eq } from 'drizzle-orm';
import { http, HttpResponse, delay } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentAttempts } from '@/db/schema';
import { createProduct } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createSession, submitCheckout } from '../invoices/support';

/**
 * The hosted checkout's optional `VAT ID`: checked for its country's format and check digits
 * before any payment attempt (a bad one goes back to the form with what was typed), and, with
 * VIES_ENABLED, looked up at VIES (msw stands in for it), whose outage never blocks a payment.
 */
const VIES = 'https://vies.test/rest-api';
const api = useTestApi({ vatLookup: { enabled: true, baseUrl: VIES, timeoutMs: 300 } });
const viesRequests: string[] = [];
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  server.resetHandlers();
  viesRequests.length = 0;
});
afterAll(() => server.close());

/** VIES answering `body` (or `status`) for every number, recording what was asked. */
function vies(answer: { body?: Record<string, unknown>; status?: number; hang?: boolean }) {
  server.use(
    http.get(`${VIES}/ms/:country/vat/:number`, async ({ params }) => {
      viesRequests.push(`${params.country}/${params.number}`);
      if (answer.hang) await delay(2000);
      return answer.status ? new HttpResponse('unavailable', { status: answer.status }) : HttpResponse.json(answer.body);
    }),
  );
}

async function session(fields: { customer_email?: string } = { customer_email: 'buyer@example.com' }) {
  const store = await createStore(api.services);
  const product = await createProduct(api, store.keys.sk_test, { name: 'Ebook', amount: 1999 });
  return { key: store.keys.sk_test, session: await createSession(api, store.keys.sk_test, { price_id: product.price_id, ...fields }) };
}

const attempts = async (sessionId: string) => (await api.services.db.select({ n: count() }).from(paymentAttempts).where(eq(paymentAttempts.checkoutSessionId, sessionId)))[0]!.n;
const invoiceOf = async (key: string, orderId: string) => {
  const order = (await api.request('GET', `/api/v1/orders/${orderId}`, { key })).body;
  return order.invoice_id ? (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body : null;
};

describe('a bad VAT ID is refused on the page, before any payment attempt, what was typed kept', () => {
  it('a check digit off: vat_id_invalid, back to the form with the email and the VAT ID; nothing charged', async () => {
    const { session: created } = await session({});
    const outcome = await submitCheckout(api, created, { email: 'ada@example.com', vat_id: 'DE 136 695 977' });
    expect(outcome).toEqual({
      kind: 'redirect',
      location: expect.stringMatching(new RegExp(`^/checkout/${created.id}\\?expires=\\d+&signature=[^&]+&error=vat_id_invalid$`)),
      email: 'ada@example.com',
      vatId: 'DE 136 695 977',
    });
    expect(await attempts(created.id)).toBe(0);
    expect(viesRequests).toEqual([]);
  });

  it('no EU country prefix: vat_id_country', async () => {
    const { session: created } = await session();
    const outcome = await submitCheckout(api, created, { vat_id: '136695976' });
    expect(outcome).toMatchObject({ kind: 'redirect', location: expect.stringContaining('error=vat_id_country'), vatId: '136695976' });
    expect(await attempts(created.id)).toBe(0);
  });

  it('a bad email keeps the VAT ID typed; a declined card keeps both', async () => {
    const { session: created } = await session({});
    expect(await submitCheckout(api, created, { email: 'nope', vat_id: 'DE136695976' })).toMatchObject({ location: expect.stringContaining('error=email_invalid'), vatId: 'DE136695976' });
    vies({ body: { isValid: true, userError: 'VALID' } });
    const declined = await submitCheckout(api, created, { email: 'ada@example.com', vat_id: 'de136695976', card_number: '4000 0000 0000 0002' });
    expect(declined).toMatchObject({ location: expect.stringContaining('error=card_declined'), email: 'ada@example.com', vatId: 'de136695976' });
  });
});

describe('VIES, when enabled', () => {
  it('a registered VAT ID: looked up once by country and number, the payment goes through, the invoice names it', async () => {
    vies({ body: { isValid: true, requestDate: '2026-03-01', userError: 'VALID', name: 'ACME GMBH' } });
    const { key, session: created } = await session();
    const outcome = await submitCheckout(api, created, { vat_id: 'de 136.695.976' });
    expect(outcome).toMatchObject({ kind: 'redirect', location: expect.not.stringContaining('error=') });
    expect(viesRequests).toEqual(['DE/136695976']);
    expect(await invoiceOf(key, created.order_id)).toMatchObject({ buyer_vat_id: 'DE136695976' });
  });

  it('VIES says not registered: vat_id_unregistered, nothing charged', async () => {
    vies({ body: { isValid: false, userError: 'INVALID' } });
    const { session: created } = await session();
    const outcome = await submitCheckout(api, created, { vat_id: 'DE136695976' });
    expect(outcome).toMatchObject({ location: expect.stringContaining('error=vat_id_unregistered'), vatId: 'DE136695976' });
    expect(await attempts(created.id)).toBe(0);
  });

  for (const [name, answer] of [
    ['the member state is unavailable', { body: { isValid: false, userError: 'MS_UNAVAILABLE' } }],
    ['VIES answers 503', { status: 503 }],
    ['VIES hangs past the timeout', { hang: true }],
  ] as const) {
    it(`an outage (${name}) never blocks the payment: the format check decides, the invoice names the VAT ID`, async () => {
      vies(answer);
      const { key, session: created } = await session();
      const outcome = await submitCheckout(api, created, { vat_id: 'ATU10223006' });
      expect(outcome).toMatchObject({ kind: 'redirect', location: expect.not.stringContaining('error=') });
      expect(viesRequests).toEqual(['AT/U10223006']);
      expect(await invoiceOf(key, created.order_id)).toMatchObject({ buyer_vat_id: 'ATU10223006' });
    });
  }

  it('no VAT ID typed: no lookup, an invoice without one', async () => {
    vies({ body: { isValid: true } });
    const { key, session: created } = await session();
    await submitCheckout(api, created, { vat_id: '   ' });
    expect(viesRequests).toEqual([]);
    expect(await invoiceOf(key, created.order_id)).toMatchObject({ buyer_vat_id: null });
  });
});
