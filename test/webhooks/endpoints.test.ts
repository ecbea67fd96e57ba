import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createEndpoint } from './support';

const api = useTestApi();
const store = useTestStore(api);

const ENDPOINTS = '/api/v1/webhook_endpoints';
const post = (body: unknown, withKey = store.key) => api.request('POST', ENDPOINTS, { key: withKey, body });

describe('POST /api/v1/webhook_endpoints', () => {
  it('answers 201 with every field and the secret; events null means every type', async () => {
    const response = await post({ url: 'http://127.0.0.1:4000/hooks' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^we_test_[0-9A-Za-z]{24}$/),
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1:4000/hooks',
      events: null,
      livemode: false,
      created: epoch(T0),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
  });

  it('the secret is whsec_ + base64 of 32 bytes derived from AUTH_SECRET and the id (never stored)', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://localhost:4000/hooks' });
    const expected = createHmac('sha256', 'test-auth-secret').update(`webhook-endpoint:${endpoint.id}`).digest('base64');
    expect(endpoint.secret).toBe(`whsec_${expected}`);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('events: the listed types, each once, in the order given', async () => {
    const response = await post({ url: 'http://10.0.0.5/hooks', events: ['subscription.canceled', 'subscription.created', 'subscription.canceled'] });
    expect(response.status).toBe(201);
    expect(response.body.events).toEqual(['subscription.canceled', 'subscription.created']);
  });

  it('test mode accepts http, loopback and private addresses', async () => {
    for (const url of ['http://127.0.0.1/a', 'http://localhost:3000/a', 'http://192.168.1.20/a', 'http://10.0.0.8/a', 'http://[::1]:8080/a', 'https://[fd00::5]/a']) {
      const response = await post({ url });
      expect(response.status, url).toBe(201);
      expect(response.body.url).toBe(url);
    }
  });

  it('SSRF: test mode still refuses link-local addresses, where cloud metadata lives', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/h', 'http://[::ffff:169.254.169.254]/h']) {
      expectError(await post({ url }), 400, 'parameter_invalid', 'url');
    }
  });

  it('live mode accepts https to a public address; the id and livemode say live', async () => {
    const response = await post({ url: 'https://93.184.216.34/hooks', events: ['subscription.created'] }, store.keys.sk_live);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ id: expect.stringMatching(/^we_live_[0-9A-Za-z]{24}$/), livemode: true, events: ['subscription.created'] });
  });

  it('live mode refuses http → 400 parameter_invalid on url', async () => {
    expectError(await post({ url: 'http://93.184.216.34/hooks' }, store.keys.sk_live), 400, 'parameter_invalid', 'url');
  });

  it('SSRF: live mode refuses a host that resolves to loopback (localhost)', async () => {
    const response = await post({ url: 'https://localhost/hooks' }, store.keys.sk_live);
    expectError(response, 400, 'parameter_invalid', 'url');
    expect(response.body.error.message).toContain('127.0.0.1');
  });

  it('SSRF: live mode refuses loopback, private, link-local, CGNAT, ULA, unspecified, multicast and IPv4-mapped literals', async () => {
    const refused = [
      'https://127.0.0.1/h',
      'https://127.1.2.3/h',
      'https://0x7f000001/h',
      'https://2130706433/h',
      'https://10.1.2.3/h',
      'https://172.16.0.1/h',
      'https://192.168.0.1/h',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/h',
      'https://0.0.0.0/h',
      'https://224.0.0.1/h',
      'https://[::1]/h',
      'https://[::]/h',
      'https://[fd00::1]/h',
      'https://[fe80::1]/h',
      'https://[::ffff:127.0.0.1]/h',
      'https://[::ffff:10.0.0.1]/h',
    ];
    for (const url of refused) expectError(await post({ url }, store.keys.sk_live), 400, 'parameter_invalid', 'url');
  });

  it('url: absolute http(s) only, at most 2000 characters, no credentials → 400 parameter_invalid on url', async () => {
    const long = `http://127.0.0.1/${'a'.repeat(2000 - 'http://127.0.0.1/'.length + 1)}`;
    for (const url of ['ftp://127.0.0.1/h', 'javascript:alert(1)', '/hooks', 'http:foo', 'http://', 'not a url', long, 'http://user:pass@127.0.0.1/h', 42, null]) {
      expectError(await post({ url }), 400, 'parameter_invalid', 'url');
    }
    expect((await post({ url: long.slice(0, -1) })).status).toBe(201);
    expectError(await post({}), 400, 'parameter_invalid', 'url');
  });

  it('events: an empty list, an unknown type or a non-list → 400 parameter_invalid', async () => {
    for (const events of [[], ['subscription.created', 'invoice.paid'], 'subscription.created', [42]]) {
      const response = await post({ url: 'http://127.0.0.1/h', events });
      expectError(response, 400, 'parameter_invalid', response.body.error.param);
      expect(response.body.error.param).toMatch(/^events/);
    }
  });

  it('an unknown field → 400 parameter_invalid', async () => {
    expectError(await post({ url: 'http://127.0.0.1/h', secret: 'whsec_mine' }), 400, 'parameter_invalid', 'secret');
  });

  it('without a key → 401 missing_api_key; a publishable key → 401 wrong_key_type', async () => {
    expectError(await api.request('POST', ENDPOINTS, { body: { url: 'http://127.0.0.1/h' } }), 401, 'missing_api_key');
    expectError(await post({ url: 'http://127.0.0.1/h' }, store.keys.pk_test), 401, 'wrong_key_type');
    expectError(await api.request('GET', ENDPOINTS, { key: store.keys.pk_test }), 401, 'wrong_key_type');
  });
});

describe('GET /api/v1/webhook_endpoints', () => {
  it('lists this store’s endpoints of this environment, newest first, without secrets, paginated', async () => {
    const own = await createStore(api.services);
    const other = await createStore(api.services);
    await createEndpoint(api, other.keys.sk_test, { url: 'http://127.0.0.1/other-store' });
    await createEndpoint(api, own.keys.sk_live, { url: 'https://93.184.216.34/live' });
    const created = [];
    for (const n of [1, 2, 3]) {
      created.push(await createEndpoint(api, own.keys.sk_test, { url: `http://127.0.0.1/${n}` }));
      api.clock.advance(1);
    }
    const first = await api.request('GET', `${ENDPOINTS}?limit=2`, { key: own.keys.sk_test });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      object: 'list',
      data: [
        { id: created[2]!.id, object: 'webhook_endpoint', url: 'http://127.0.0.1/3', events: null, livemode: false, created: epoch(T0) + 2 },
        { id: created[1]!.id, object: 'webhook_endpoint', url: 'http://127.0.0.1/2', events: null, livemode: false, created: epoch(T0) + 1 },
      ],
      has_more: true,
      url: '/api/v1/webhook_endpoints',
      livemode: false,
    });
    const second = await api.request('GET', `${ENDPOINTS}?limit=2&starting_after=${created[1]!.id}`, { key: own.keys.sk_test });
    expect(second.body.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([created[0]!.id]);
    expect(second.body.has_more).toBe(false);
    const live = await api.request('GET', ENDPOINTS, { key: own.keys.sk_live });
    expect(live.body.data.map((endpoint: { url: string }) => endpoint.url)).toEqual(['https://93.184.216.34/live']);
  });

  it('limit outside 1–100 → 400 parameter_invalid; an unknown starting_after → 404 resource_missing', async () => {
    expectError(await api.request('GET', `${ENDPOINTS}?limit=0`, { key: store.key }), 400, 'parameter_invalid', 'limit');
    expectError(await api.request('GET', `${ENDPOINTS}?limit=101`, { key: store.key }), 400, 'parameter_invalid', 'limit');
    expectError(await api.request('GET', `${ENDPOINTS}?starting_after=we_test_000000000000000000000000`, { key: store.key }), 404, 'resource_missing', 'starting_after');
  });
});

describe('GET and DELETE /api/v1/webhook_endpoints/{id}', () => {
  it('retrieve answers the endpoint without its secret', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/r', events: ['subscription.expired'] });
    const response = await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: endpoint.id,
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1/r',
      events: ['subscription.expired'],
      livemode: false,
      created: epoch(T0),
    });
  });

  it('another store’s, the other environment’s and an unknown endpoint → identical 404, on retrieve, deliveries and delete', async () => {
    const other = await createStore(api.services);
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/iso' });
    for (const [method, suffix] of [['GET', ''], ['GET', '/deliveries'], ['DELETE', '']] as const) {
      const path = `${ENDPOINTS}/${endpoint.id}${suffix}`;
      expectIdenticalMissing(
        [
          await rawApiRequest(api, method, path, other.keys.sk_test),
          await rawApiRequest(api, method, path, store.keys.sk_live),
          await rawApiRequest(api, method, `${ENDPOINTS}/we_test_000000000000000000000000${suffix}`, store.key),
        ],
        'id',
      );
    }
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).status).toBe(200);
  });

  it('delete answers { id, object, deleted: true }; the endpoint then answers 404 and leaves the list', async () => {
    const own = await createStore(api.services);
    const endpoint = await createEndpoint(api, own.keys.sk_test, { url: 'http://127.0.0.1/d' });
    const response = await api.request('DELETE', `${ENDPOINTS}/${endpoint.id}`, { key: own.keys.sk_test });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    expectError(await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: own.keys.sk_test }), 404, 'resource_missing', 'id');
    expectError(await api.request('DELETE', `${ENDPOINTS}/${endpoint.id}`, { key: own.keys.sk_test }), 404, 'resource_missing', 'id');
    expect((await api.request('GET', ENDPOINTS, { key: own.keys.sk_test })).body.data).toEqual([]);
  });
});

describe('Idempotency-Key on POST /api/v1/webhook_endpoints', () => {
  it('a retried create replays the first endpoint and its secret with 200; another body → 409 idempotency_key_reused', async () => {
    const own = await createStore(api.services);
    const headers = { 'idempotency-key': 'endpoint-retry-1' };
    const body = { url: 'http://127.0.0.1/idem', events: ['subscription.created'] };
    const first = await api.request('POST', ENDPOINTS, { key: own.keys.sk_test, body, headers });
    expect(first.status).toBe(201);
    const replay = await api.request('POST', ENDPOINTS, { key: own.keys.sk_test, body, headers });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect((await api.request('GET', ENDPOINTS, { key: own.keys.sk_test })).body.data).toHaveLength(1);
    expectError(await api.request('POST', ENDPOINTS, { key: own.keys.sk_test, body: { ...body, url: 'http://127.0.0.1/other' }, headers }), 409, 'idempotency_key_reused');
    expectError(await api.request('POST', ENDPOINTS, { key: own.keys.sk_test, body, headers: { 'idempotency-key': 'x'.repeat(192) } }), 400, 'idempotency_key_invalid');
  });
});
