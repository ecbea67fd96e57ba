import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripeReplay, serveStripeReplay, STRIPE_KEY } from '../gateway/stripe-api';
import { adminClient, callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, stopService, type Service } from '../support/production-server';

/**
 * What only the real `npm start` shows: Next's bundles (an error class of the app singleton is
 * another chunk's copy), Next's own decoding of paths, the proxy in front of the portal page,
 * and the warning printed at start.
 */
const AUTH_SECRET = 'hostile-input-auth-secret';
const ADMIN_TOKEN = 'adm_hostileinputhostileinputhostileinput1';
const PORTAL_LIMIT = 5;
const MERCHANT = 'https://shop.example';
const NO_GATEWAY_WARNING = 'Live mode has no payment gateway configured (GATEWAY_SECRET_KEY is unset)';

let port = 0;
let origin = '';
let baseEnv: Record<string, string> = {};
let service: Service;
let gateway: Server | undefined;
let cleanupStorage: () => Promise<void> = async () => {};
let keys: { sk_live: string; sk_test: string };

beforeAll(async () => {
  port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const storage = await serviceStorage('hostile-input');
  cleanupStorage = storage.cleanup;
  baseEnv = { ...storage.env, PORT: String(port), AUTH_SECRET, ADMIN_TOKEN, RATE_LIMIT_PORTAL_PER_IP: String(PORTAL_LIMIT) };
  service = await startService(serviceEnv(baseEnv));
  // The first request is a hosted page's, as a customer's would be: the proxy, a bundle of its
  // own, then opens the app singleton, and the gateway's error classes are that bundle's copies.
  expect((await fetch(`${origin}/checkout/cs_test_${'x'.repeat(24)}`)).status).toBe(404);
  const store = await adminClient(origin, ADMIN_TOKEN).store.create.mutate({ name: 'Hostile Input Test' });
  keys = store.keys;
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  if (service) await stopService(service);
  await new Promise((resolve) => (gateway ? gateway.close(resolve) : resolve(undefined)));
  await cleanupStorage();
}, 60_000);

const call = (key: string, method: string, route: string, body?: unknown) => callService(origin, key, method, route, body);

/** The hosted form's POST as a browser sends it; answers the status and where it sends the customer. */
async function payOnPage(checkoutUrl: string, cardNumber: string): Promise<{ status: number; location: URL }> {
  const link = new URL(checkoutUrl);
  const response = await fetch(`${origin}${link.pathname}/pay${link.search}`, {
    method: 'POST',
    body: new URLSearchParams({ card_number: cardNumber, expiry: '12/34', cvc: '123' }),
    redirect: 'manual',
  });
  return { status: response.status, location: new URL(response.headers.get('location')!, origin) };
}

describe('npm start with live mode and no gateway configured', () => {
  it('warns at start', () => {
    expect(service.output()).toContain(NO_GATEWAY_WARNING);
  });

  it.each([
    ['POST', '/api/v1/checkout/sessions/%ZZ/confirm'],
    ['GET', '/api/v1/products/%ZZ'],
    ['GET', '/api/v1/%E0%A4%A'],
  ])('%s %s (a path that does not decode): 404 resource_missing', async (method, path) => {
    const response = await fetch(`${origin}${path}`, { method, headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'Unrecognized request URL: its path is not valid percent-encoding.' } });
  });

  it.each([
    ['POST', '/checkout/%ZZ/pay'],
    ['GET', '/checkout/%ZZ'],
    ['GET', '/subscribe/%ZZ/return'],
    ['POST', '/api/admin/trpc/%ZZ'],
    ['GET', '/portal/%ZZ'],
  ])('%s %s (a path that does not decode): the not-found page', async (method, path) => {
    const response = await fetch(`${origin}${path}`, { method, redirect: 'manual' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('<h1 id="notice-heading">Page not found</h1>');
  });

  it.each([
    ['GET', '/checkout/cs_test_a%00b'],
    ['POST', '/checkout/cs_test_a%00b/pay'],
    ['GET', '/subscribe/a%00b'],
  ])("%s %s (NUL in a hosted page's path): 404", async (method, path) => {
    const response = await fetch(`${origin}${path}`, { method, redirect: 'manual', ...(method === 'POST' ? { body: new URLSearchParams({ email: 'a\u0000@example.com' }) } : {}) });
    expect(response.status).toBe(404);
  });

  it('POST /portal/<token> spends the per-IP portal limit as GET does: 429 with Retry-After once it is spent', async () => {
    const token = 'x'.repeat(43);
    const statuses: number[] = [];
    for (let n = 0; n < PORTAL_LIMIT; n += 1) statuses.push((await fetch(`${origin}/portal/${token}`, { method: 'POST', body: 'a=1' })).status);
    expect(statuses).toEqual(Array.from({ length: PORTAL_LIMIT }, () => 404));
    for (const method of ['POST', 'GET']) {
      const refused = await fetch(`${origin}/portal/${token}`, { method, ...(method === 'POST' ? { body: 'a=1' } : {}) });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it(
    'a live payment is refused with a final internal_error (nothing was charged), the session stays open, and it is paid once the gateway is configured',
    async () => {
      const product = await call(keys.sk_live, 'POST', '/api/v1/products', { name: 'Field guide', amount: 2500 });
      expect(product.status).toBe(201);
      const session = await call(keys.sk_live, 'POST', '/api/v1/checkout/sessions', {
        price_id: product.body.price_id,
        customer_email: 'ada@example.com',
        success_url: `${MERCHANT}/thanks`,
      });
      expect(session.status).toBe(201);

      // Twice: the first attempt was closed, so the second is sent (and refused) again, not held as in progress.
      for (let n = 0; n < 2; n += 1) {
        const refused = await payOnPage(session.body.url, '4242 4242 4242 4242');
        expect(refused.status).toBe(303);
        expect(refused.location.pathname).toBe(`/checkout/${session.body.id}`);
        expect(refused.location.searchParams.get('error')).toBe('internal_error');
      }
      expect((await call(keys.sk_live, 'GET', `/api/v1/checkout/sessions/${session.body.id}`)).body).toMatchObject({ status: 'open', payment_status: 'unpaid' });

      // The operator configures the gateway and restarts: the same session is paid.
      await stopService(service);
      const stripe = createStripeReplay();
      let stripeOrigin: string;
      ({ server: gateway, origin: stripeOrigin } = await serveStripeReplay(stripe));
      service = await startService(serviceEnv({ ...baseEnv, GATEWAY_SECRET_KEY: STRIPE_KEY, GATEWAY_BASE_URL: stripeOrigin }));
      expect(service.output()).not.toContain(NO_GATEWAY_WARNING);
      const paid = await payOnPage(session.body.url, '4242 4242 4242 4242');
      expect(paid.status).toBe(303);
      expect(paid.location.origin + paid.location.pathname).toBe(`${MERCHANT}/thanks`);
      expect((await call(keys.sk_live, 'GET', `/api/v1/checkout/sessions/${session.body.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
    },
    START_TIMEOUT_MS + 60_000,
  );
});
