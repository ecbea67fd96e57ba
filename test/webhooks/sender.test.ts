import { http, HttpResponse, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '@/server/webhooks/delivery';
import { endpointSecret } from '@/server/webhooks/secrets';
import { sendWebhook } from '@/server/webhooks/sender';
import { startReceiver } from './support';

/** Live sending, where a real public https receiver cannot be reached from a test: msw plays it. */
const received: { url: string; headers: Record<string, string>; body: string }[] = [];
const server = setupServer(
  http.post('https://hooks.merchant.example/webhooks', async ({ request }) => {
    received.push({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    return new HttpResponse('ok', { status: 204 });
  }),
  // The test-mode receiver is real (test/webhooks/support.ts).
  http.post(/^http:\/\/(localhost|rebind\.merchant\.example):\d+\/webhooks$/, () => passthrough()),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  received.length = 0;
});
afterAll(() => server.close());

const secret = endpointSecret({ authSecret: 'sender-test-secret' }, 'we_live_000000000000000000000001');
const body = JSON.stringify({ id: 'evt_live_1', object: 'event', type: 'subscription.updated', created: 1, livemode: true, data: { object: { id: 'sub_live_1' } } });
const now = () => Math.floor(Date.now() / 1000);

function liveRequest(url: string) {
  return { url, livemode: true, allowPrivate: true, headers: webhookHeaders(secret, 'evt_live_1', now(), body), body, timeoutMs: 15_000 };
}

describe('sending one test-mode webhook', () => {
  it('test mode sends to loopback by name: localhost resolves, and the receiver gets the signed bytes', async () => {
    const receiver = await startReceiver();
    try {
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      const response = await sendWebhook({ url, livemode: false, allowPrivate: true, headers: webhookHeaders(secret, 'evt_test_1', now(), body), body, timeoutMs: 15_000 });
      expect(response).toEqual({ status: 200, error: null, durationMs: expect.any(Number) });
      expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers)).toEqual(JSON.parse(body));
    } finally {
      await receiver.close();
    }
  });

  it('the connection goes to the address that was checked, not to a second DNS answer', async () => {
    const receiver = await startReceiver();
    try {
      // The name exists nowhere: only the checked answer (the receiver's address) can be connected to.
      const url = receiver.url.replace('127.0.0.1', 'rebind.merchant.example');
      const response = await sendWebhook({ url, livemode: false, allowPrivate: true, headers: webhookHeaders(secret, 'evt_test_1', now(), body), body, timeoutMs: 15_000 }, async () => ['127.0.0.1']);
      expect(response).toMatchObject({ status: 200, error: null });
      expect(receiver.received[0]!.headers.host).toBe(new URL(url).host);
    } finally {
      await receiver.close();
    }
  });

  it('SSRF: a test-mode host that resolves to a cloud metadata address is refused before connecting, even where private ones are allowed', async () => {
    for (const addresses of [['169.254.169.254'], ['169.254.170.2'], ['fd00:ec2::254'], ['100.100.100.200'], ['127.0.0.1', '::ffff:169.254.169.254']]) {
      const response = await sendWebhook(
        { url: 'http://metadata.merchant.example/', livemode: false, allowPrivate: true, headers: webhookHeaders(secret, 'evt_test_1', now(), body), body, timeoutMs: 15_000 },
        async () => addresses,
      );
      expect(response).toMatchObject({ status: null, error: 'Not sent: metadata.merchant.example resolves to an address that is not public.' });
    }
  });

  it('SSRF: where private addresses are not allowed, a test-mode host resolving to loopback is refused without saying where it resolved', async () => {
    const receiver = await startReceiver();
    try {
      const url = receiver.url.replace('127.0.0.1', 'rebind.merchant.example');
      const response = await sendWebhook({ url, livemode: false, allowPrivate: false, headers: webhookHeaders(secret, 'evt_test_1', now(), body), body, timeoutMs: 15_000 }, async () => ['127.0.0.1']);
      expect(response).toMatchObject({ status: null, error: 'Not sent: rebind.merchant.example resolves to an address that is not public.' });
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('sending one live webhook', () => {
  it('a host resolving to public addresses gets the exact signed bytes; standardwebhooks verifies them', async () => {
    const response = await sendWebhook(liveRequest('https://hooks.merchant.example/webhooks'), async () => ['93.184.216.34', '2606:2800:220:1::1']);
    expect(response).toEqual({ status: 204, error: null, durationMs: expect.any(Number) });
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(body);
    expect(new Webhook(secret).verify(received[0]!.body, received[0]!.headers)).toEqual(JSON.parse(body));
    expect(received[0]!.headers['content-type']).toBe('application/json');
  });

  it('SSRF: a host with any non-public address is refused before connecting', async () => {
    for (const addresses of [['10.0.0.7'], ['93.184.216.34', '127.0.0.1'], ['::1'], ['169.254.169.254'], ['::ffff:192.168.0.1']]) {
      const response = await sendWebhook(liveRequest('https://hooks.merchant.example/webhooks'), async () => addresses);
      expect(response.status).toBeNull();
      expect(response.error).toBe('Not sent: hooks.merchant.example resolves to an address that is not public.');
    }
    expect(received).toEqual([]);
  });

  it('a literal private address, plain http, and a failed lookup are refused in live mode', async () => {
    expect((await sendWebhook(liveRequest('https://127.0.0.1/webhooks'))).error).toBe('Not sent: 127.0.0.1 is not a public address.');
    expect((await sendWebhook(liveRequest('http://hooks.merchant.example/webhooks'), async () => ['93.184.216.34'])).error).toBe('Live webhooks are sent over https only.');
    const lookupFailed = await sendWebhook(liveRequest('https://hooks.merchant.example/webhooks'), async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.merchant.example'), { code: 'ENOTFOUND' });
    });
    expect(lookupFailed).toMatchObject({ status: null, error: expect.stringContaining('ENOTFOUND') });
    expect(received).toEqual([]);
  });
});
