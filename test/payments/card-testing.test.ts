import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorCharges } from '@/db/schema';
import { answerHostedPayment } from '@/server/checkout/hosted/submit';
import { loadConfig } from '@/server/config';
import { payCheckoutSession } from '@/server/payments/service';
import { createRateLimits } from '@/server/rate-limit/service';
import { answerHostedSubscription } from '@/server/subscriptions/hosted';
import { createProduct, expectError } from '../support/api';
import { serveFetchHandler, useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

/**
 * Card testing: one address trying a card per session over many sessions, most of them declined.
 * The hosted forms' posts (checkout and subscription, as their routes answer them, over HTTP) and
 * the embedded confirm are refused with 429 once the address has had too many declines (or far
 * too many attempts of any outcome), before the session or the gateway sees them; other addresses
 * pay as before, and an address whose payments go through is not stopped.
 */
const LIMIT = 5;
const api = useTestApi({
  subscriptionsEnabled: true,
  rateLimits: { perIp: 100_000, perKey: 100_000, productWritesPerKey: 100_000, windowSeconds: 1, payPerIp: LIMIT, payWindowSeconds: 600 },
});
const store = useTestStore(api, { subscriptions: true });
const APPROVED = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';

let forms: { baseUrl: string; close(): Promise<void> };
let address = 0;
/** Each test speaks from addresses of its own, so each starts with a full allowance. */
const newAddress = () => `203.0.113.${++address}`;

beforeAll(async () => {
  forms = await serveFetchHandler(async (request) => {
    const [, page, id, action] = new URL(request.url).pathname.split('/');
    if (page === 'checkout' && action === 'pay') return answerHostedPayment(api.services, payCheckoutSession, request, id!);
    if (page === 'subscribe' && action === 'pay') return answerHostedSubscription(api.services, request, id!);
    return new Response('not found', { status: 404 });
  });
});
afterAll(() => forms.close());

async function createSession() {
  const product = await createProduct(api, store.key);
  const created = await api.request('POST', '/api/v1/checkout/sessions', { key: store.key, body: { price_id: product.price_id, customer_email: 'ada@example.com' } });
  expect(created.status).toBe(201);
  return created.body as { id: string; url: string; client_secret: string };
}

/** The hosted form's post from `ip`, as a browser sends it. */
function pay(hostedUrl: string, card: string, ip: string) {
  const url = new URL(hostedUrl);
  return fetch(`${forms.baseUrl}${url.pathname}/pay${url.search}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    body: new URLSearchParams({ card_number: card, expiry: '12/30', cvc: '123' }),
    redirect: 'manual',
  });
}

/** Charges the test gateway has been asked for, by anyone. */
const gatewayCharges = async () => (await api.services.db.select({ charges: count() }).from(simulatorCharges))[0]!.charges;

const sessionState = async (id: string) => {
  const read = await api.request('GET', `/api/v1/checkout/sessions/${id}`, { key: store.key });
  return { status: read.body.status, payment_status: read.body.payment_status };
};

async function expectRefusedPage(response: Response) {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(600);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  const html = await response.text();
  expect(html).toMatch(/<section aria-labelledby="notice-heading" role="alert">\s*<h1 id="notice-heading">Too many payment attempts<\/h1>/);
  expect(html).toContain('nothing was charged');
  expect(html).toMatch(/Please wait (a minute|\d+ minutes), then go back to the payment page and try again\./);
}

describe('card attempts per address', () => {
  it('declines over many sessions from one address: past the limit a 429 page, the session untouched and never charged; another address pays', async () => {
    const attacker = newAddress();
    const tried = [];
    for (let index = 0; index < LIMIT; index += 1) {
      const session = await createSession();
      const declined = await pay(session.url, DECLINED, attacker);
      expect(declined.status).toBe(303);
      expect(new URL(declined.headers.get('location')!, forms.baseUrl).searchParams.get('error')).toBe('card_declined');
      tried.push(session);
    }
    for (const session of tried) expect(await sessionState(session.id)).toEqual({ status: 'open', payment_status: 'failed' });

    const next = await createSession();
    const charged = await gatewayCharges();
    await expectRefusedPage(await pay(next.url, DECLINED, attacker));
    // Refused before the session is read: an approved card is refused alike, and nothing was tried on the session.
    await expectRefusedPage(await pay(next.url, APPROVED, attacker));
    expect(await sessionState(next.id)).toEqual({ status: 'open', payment_status: 'unpaid' });
    expect(await gatewayCharges()).toBe(charged);

    const customer = await pay(next.url, APPROVED, newAddress());
    expect(customer.status).toBe(303);
    expect(new URL(customer.headers.get('location')!, forms.baseUrl).searchParams.get('error')).toBeNull();
    expect(await sessionState(next.id)).toEqual({ status: 'complete', payment_status: 'paid' });
    expect(await gatewayCharges()).toBe(charged + 1);
  });

  it('once the address has had its declines, the subscription form and the embedded confirm refuse it too (the confirm as 429 rate_limited with Retry-After)', async () => {
    const attacker = newAddress();
    for (let index = 0; index < LIMIT; index += 1) {
      const session = await createSession();
      expect((await pay(session.url, DECLINED, attacker)).status).toBe(303);
    }
    const subscription = await api.request('POST', '/api/v1/subscriptions', {
      key: store.key,
      body: { amount: 990, interval: 'month', plan_name: 'Pro plan', total_payments: 12, customer_email: 'ada@example.com' },
    });
    expect(subscription.status).toBe(201);
    await expectRefusedPage(await pay(subscription.body.url, APPROVED, attacker));
    const read = await api.request('GET', `/api/v1/subscriptions/checkout/${subscription.body.id}`, { key: store.key });
    expect(read.body.subscription).toBeNull();

    const session = await createSession();
    const confirm = (ip: string) =>
      api.request('POST', `/api/v1/checkout/sessions/${session.id}/confirm`, {
        key: store.keys.pk_test,
        body: { client_secret: session.client_secret },
        headers: { 'x-forwarded-for': ip },
      });
    const refused = await confirm(attacker);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expectError(await confirm(newAddress()), 400, 'three_d_secure_required');
    expect(await sessionState(session.id)).toEqual({ status: 'open', payment_status: 'unpaid' });
  });

  it('declines of the subscription form count too', async () => {
    const attacker = newAddress();
    for (let index = 0; index < LIMIT; index += 1) {
      const subscription = await api.request('POST', '/api/v1/subscriptions', {
        key: store.key,
        body: { amount: 990, interval: 'month', plan_name: 'Pro plan', total_payments: 12, customer_email: 'ada@example.com' },
      });
      expect((await pay(subscription.body.url, DECLINED, attacker)).status).toBe(303);
    }
    await expectRefusedPage(await pay((await createSession()).url, APPROVED, attacker));
  });

  it('payments that go through are not declines: a shop’s customers behind one address pay on, up to ten times the limit', async () => {
    const office = newAddress();
    for (let index = 0; index < 2 * LIMIT; index += 1) {
      const session = await createSession();
      expect(new URL((await pay(session.url, APPROVED, office)).headers.get('location')!, forms.baseUrl).searchParams.get('error')).toBeNull();
      expect(await sessionState(session.id)).toEqual({ status: 'complete', payment_status: 'paid' });
    }
    // A decline or two among them changes nothing.
    expect((await pay((await createSession()).url, DECLINED, office)).status).toBe(303);
    expect((await pay((await createSession()).url, APPROVED, office)).status).toBe(303);
    // Every attempt, whatever its outcome, is bounded at ten times the limit.
    for (let index = 2 * LIMIT + 2; index < 10 * LIMIT; index += 1) expect((await pay((await createSession()).url, APPROVED, office)).status).toBe(303);
    const beyond = await createSession();
    await expectRefusedPage(await pay(beyond.url, APPROVED, office));
    expect(await sessionState(beyond.id)).toEqual({ status: 'open', payment_status: 'unpaid' });
  });

  it('a mistyped card is no decline: corrected on the form, it never reaches the gateway and does not count', async () => {
    const person = newAddress();
    const session = await createSession();
    for (let index = 0; index < LIMIT + 2; index += 1) {
      const mistyped = await pay(session.url, '4242 4242 4242 4241', person);
      expect(new URL(mistyped.headers.get('location')!, forms.baseUrl).searchParams.get('error')).toBe('invalid_card_number');
    }
    expect(await sessionState(session.id)).toEqual({ status: 'open', payment_status: 'unpaid' });
    expect((await pay((await createSession()).url, DECLINED, person)).status).toBe(303);
    expect(new URL((await pay(session.url, APPROVED, person)).headers.get('location')!, forms.baseUrl).searchParams.get('error')).toBeNull();
  });

  it('instances on one database share the count: declines on one refuse the address on another', async () => {
    const instances = await Promise.all(
      [0, 1].map(() => {
        const services = { ...api.services, rateLimits: createRateLimits(api.services.config.rateLimits, { db: api.services.db }) };
        return serveFetchHandler(async (request) => answerHostedPayment(services, payCheckoutSession, request, new URL(request.url).pathname.split('/')[2]!));
      }),
    );
    try {
      const attacker = newAddress();
      const on = (instance: number, hostedUrl: string, card: string) => {
        const url = new URL(hostedUrl);
        return fetch(`${instances[instance]!.baseUrl}${url.pathname}/pay${url.search}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': attacker },
          body: new URLSearchParams({ card_number: card, expiry: '12/30', cvc: '123' }),
          redirect: 'manual',
        });
      };
      for (let index = 0; index < LIMIT; index += 1) expect((await on(index % 2, (await createSession()).url, DECLINED)).status).toBe(303);
      for (const instance of [0, 1]) await expectRefusedPage(await on(instance, (await createSession()).url, APPROVED));
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  it('RATE_LIMIT_PAY_PER_IP sets the declines allowed; by default 50 per address per 10 minutes', () => {
    expect(loadConfig({}).rateLimits).toMatchObject({ payPerIp: 50, payWindowSeconds: 600 });
    expect(loadConfig({ RATE_LIMIT_PAY_PER_IP: '80' }).rateLimits.payPerIp).toBe(80);
    expect(() => loadConfig({ RATE_LIMIT_PAY_PER_IP: 'many' })).toThrow(/RATE_LIMIT_PAY_PER_IP/);
  });
});
