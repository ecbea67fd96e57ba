import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '@/db/schema';
import { loadConfig } from '@/server/config';
import { DELIVERY_TIMEOUT_MS, deliverDueWebhooks } from '@/server/webhooks/delivery';
import { expectError } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createEndpoint, startReceiver, writeEvent, type Receiver } from './support';

/** An operator who did not allow private destinations (a service on a public PUBLIC_BASE_URL). */
const api = useTestApi({ webhooksAllowPrivate: false });
let store: Awaited<ReturnType<typeof createStore>>;
let receiver: Receiver;

beforeAll(async () => {
  store = await createStore(api.services);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const ENDPOINTS = '/api/v1/webhook_endpoints';
const post = (body: unknown, key = store.keys.sk_test) => api.request('POST', ENDPOINTS, { key, body });

describe('WEBHOOKS_ALLOW_PRIVATE', () => {
  it('defaults to true exactly when PUBLIC_BASE_URL is unset or on localhost / loopback; set explicitly, it wins', () => {
    expect(loadConfig({}).webhooksAllowPrivate).toBe(true);
    for (const base of ['http://localhost:3000', 'http://LOCALHOST:3000/', 'http://127.0.0.1:4000', 'http://[::1]:3000', 'http://shop.localhost']) {
      expect(loadConfig({ PUBLIC_BASE_URL: base }).webhooksAllowPrivate, base).toBe(true);
    }
    for (const base of ['https://pay.example.com', 'http://10.0.0.5:3000', 'http://localhost.example.com', 'not a url']) {
      expect(loadConfig({ PUBLIC_BASE_URL: base }).webhooksAllowPrivate, base).toBe(false);
    }
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com', WEBHOOKS_ALLOW_PRIVATE: 'true' }).webhooksAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'false' }).webhooksAllowPrivate).toBe(false);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow('WEBHOOKS_ALLOW_PRIVATE must be true or false, got "yes"');
  });
});

describe('test mode where the operator did not allow private destinations', () => {
  const refused = [
    'http://127.0.0.1:4000/hooks',
    'http://127.1.2.3/hooks',
    'http://0x7f000001/hooks',
    'http://localhost:3000/hooks',
    'http://10.0.0.8/hooks',
    'http://172.16.5.5/hooks',
    'http://192.168.1.20/hooks',
    'http://100.64.0.1/hooks',
    'http://0.0.0.0/hooks',
    'http://[::1]:8080/hooks',
    'https://[fd00::5]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://169.254.169.254/latest/meta-data',
  ];

  it('create refuses loopback, private and metadata targets (literal or by name) with 400 parameter_invalid on url, naming the setting', async () => {
    for (const url of refused) expectError(await post({ url }), 400, 'parameter_invalid', 'url');
    const response = await post({ url: 'http://localhost:3000/hooks' });
    expect(response.body.error.message).toBe(
      'Invalid url: must point at a public address (loopback and private addresses only when the operator sets WEBHOOKS_ALLOW_PRIVATE=true): localhost resolves to an address that is not public.',
    );
    expect((await api.request('GET', ENDPOINTS, { key: store.keys.sk_test })).body.data).toEqual([]);
  });

  it('a public address is accepted, over http in test mode', async () => {
    const response = await post({ url: 'http://93.184.216.34/hooks' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ url: 'http://93.184.216.34/hooks', livemode: false });
  });

  it('update refuses the same targets and keeps the endpoint as it was', async () => {
    const endpoint = await createEndpoint(api, store.keys.sk_test, { url: 'http://93.184.216.34/before' });
    for (const url of refused) expectError(await api.request('PATCH', `${ENDPOINTS}/${endpoint.id}`, { key: store.keys.sk_test, body: { url } }), 400, 'parameter_invalid', 'url');
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.keys.sk_test })).body.url).toBe('http://93.184.216.34/before');
  });

  it('DNS rebinding: a name that resolves to loopback at delivery time is not connected to, and the log tells an open port from a closed one no more than from each other', async () => {
    const own = await createStore(api.services);
    const port = new URL(receiver.url).port;
    // Accepted at creation (the name resolves nowhere then); at delivery it answers with loopback.
    const open = await createEndpoint(api, own.keys.sk_test, { url: `http://rebind.merchant.example:${port}/webhooks` });
    const closed = await createEndpoint(api, own.keys.sk_test, { url: 'http://rebind.merchant.example:9/webhooks' });
    await writeEvent(api, own, { wallNow: new Date() });
    await deliverDueWebhooks({ db: api.services.db, clock: { now: () => new Date() }, config: api.services.config, timeoutMs: DELIVERY_TIMEOUT_MS, resolveHost: async () => ['127.0.0.1'] });
    expect(receiver.received).toEqual([]);
    const logOf = async (id: string) => (await api.request('GET', `${ENDPOINTS}/${id}/deliveries`, { key: own.keys.sk_test })).body.data[0];
    const error = 'Not sent: rebind.merchant.example resolves to an address that is not public.';
    for (const endpoint of [open, closed]) {
      expect(await logOf(endpoint.id)).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_response_status: null,
        last_error: error,
        attempt_log: [expect.objectContaining({ response_status: null, error })],
      });
    }
    await api.services.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'pending'));
  });
});
