import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { EVENT_TYPES } from '@/server/webhooks/events';
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
      disabled: false,
      previous_secret_expires_at: null,
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

  it('SSRF: every cloud metadata address is refused in both modes, even where private addresses are allowed', async () => {
    expect(api.services.config.webhooksAllowPrivate).toBe(true);
    const metadata = [
      'http://169.254.169.254/latest/meta-data',
      'http://169.254.170.2/v2/credentials',
      'http://[fd00:ec2::254]/latest/meta-data',
      'http://[fd00:ec2:0:0::254]/latest/meta-data',
      'http://100.100.100.200/latest/meta-data',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.google.internal./computeMetadata/v1/',
      'http://metadata/computeMetadata/v1/',
      'http://[fe80::1]/h',
      'http://[::ffff:169.254.169.254]/h',
      'http://[::ffff:169.254.170.2]/h',
      'http://[::ffff:100.100.100.200]/h',
      'http://[::ffff:a9fe:a9fe]/h',
      'http://[64:ff9b::a9fe:a9fe]/h',
    ];
    for (const url of metadata) {
      expectError(await post({ url }), 400, 'parameter_invalid', 'url');
      expectError(await post({ url: url.replace('http:', 'https:') }, store.keys.sk_live), 400, 'parameter_invalid', 'url');
    }
    const named = await post({ url: 'http://metadata.google.internal/computeMetadata/v1/' });
    expect(named.body.error.message).toBe('Invalid url: must point at a public address: metadata.google.internal is a cloud metadata service.');
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/meta-patch' });
    for (const url of metadata) expectError(await api.request('PATCH', `${ENDPOINTS}/${endpoint.id}`, { key: store.key, body: { url } }), 400, 'parameter_invalid', 'url');
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
    // Names the host, not what it resolves to: the answer must not map the operator's network.
    expect(response.body.error.message).toBe('Invalid url: must point at a public address: localhost resolves to an address that is not public.');
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
    for (const [events, param] of [
      [[], 'events'],
      [['subscription.created', 'invoice.paid'], 'events'],
      ['subscription.created', 'events'],
      [[42], 'events[0]'],
    ] as const) {
      expectError(await post({ url: 'http://127.0.0.1/h', events }), 400, 'parameter_invalid', param);
    }
    const unknown = await post({ url: 'http://127.0.0.1/h', events: ['product.created', 'invoice.paid'] });
    expect(unknown.body.error.message).toBe('Invalid events: unknown event type "invoice.paid".');
  });

  it('events: every type of the event log may be subscribed to', async () => {
    const response = await post({ url: 'http://127.0.0.1/h', events: [...EVENT_TYPES] });
    expect(response.status).toBe(201);
    expect(response.body.events).toEqual([...EVENT_TYPES]);
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
        { id: created[2]!.id, object: 'webhook_endpoint', url: 'http://127.0.0.1/3', events: null, livemode: false, disabled: false, previous_secret_expires_at: null, created: epoch(T0) + 2 },
        { id: created[1]!.id, object: 'webhook_endpoint', url: 'http://127.0.0.1/2', events: null, livemode: false, disabled: false, previous_secret_expires_at: null, created: epoch(T0) + 1 },
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
      disabled: false,
      previous_secret_expires_at: null,
      created: epoch(T0),
    });
  });

  it('another store’s, the other environment’s and an unknown endpoint → identical 404, on retrieve, deliveries and delete', async () => {
    const other = await createStore(api.services);
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/iso' });
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/deliveries'],
      ['DELETE', ''],
    ] as const) {
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

describe('PATCH /api/v1/webhook_endpoints/{id} (and POST as an alias)', () => {
  const patch = (id: string, body: unknown, method = 'PATCH', key = store.key) => api.request(method, `${ENDPOINTS}/${id}`, { key, body });

  it('changes url, events and disabled, answers the endpoint without its secret; GET and the list read the same', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/before' });
    api.clock.advance(30);
    const response = await patch(endpoint.id, { url: 'http://localhost:5000/after', events: ['order.paid', 'refund.created', 'order.paid'], disabled: true });
    expect(response.status).toBe(200);
    const expected = {
      id: endpoint.id,
      object: 'webhook_endpoint',
      url: 'http://localhost:5000/after',
      events: ['order.paid', 'refund.created'],
      livemode: false,
      disabled: true,
      previous_secret_expires_at: null,
      created: epoch(T0),
    };
    expect(response.body).toEqual(expected);
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).body).toEqual(expected);
    const listed = (await api.request('GET', `${ENDPOINTS}?limit=100`, { key: store.key })).body.data;
    expect(listed.find((item: { id: string }) => item.id === endpoint.id)).toEqual(expected);
  });

  it('only the fields sent change; events null means every type again; an empty body answers the endpoint as it is', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/partial', events: ['product.created'] });
    expect((await patch(endpoint.id, { disabled: true })).body).toMatchObject({ url: 'http://127.0.0.1/partial', events: ['product.created'], disabled: true });
    expect((await patch(endpoint.id, { events: null })).body).toMatchObject({ url: 'http://127.0.0.1/partial', events: null, disabled: true });
    expect((await patch(endpoint.id, { disabled: false })).body).toMatchObject({ events: null, disabled: false });
    const unchanged = await patch(endpoint.id, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).body);
  });

  it('POST /webhook_endpoints/{id} is the same update', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/alias' });
    const response = await patch(endpoint.id, { url: 'http://127.0.0.1/aliased', disabled: true }, 'POST');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: endpoint.id, url: 'http://127.0.0.1/aliased', disabled: true });
    expect(response.body).not.toHaveProperty('secret');
    expectError(await patch(endpoint.id, { events: [] }, 'POST'), 400, 'parameter_invalid', 'events');
  });

  it('validated like create: url rules of the mode, events a non-empty list of known types, disabled a boolean, no other field', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/v' });
    for (const url of ['ftp://127.0.0.1/h', '/hooks', 'http://user:pass@127.0.0.1/h', 'http://169.254.169.254/latest', 42, null]) {
      expectError(await patch(endpoint.id, { url }), 400, 'parameter_invalid', 'url');
    }
    for (const events of [[], ['order.paid', 'invoice.paid'], 'order.paid', 42]) {
      expectError(await patch(endpoint.id, { events }), 400, 'parameter_invalid', 'events');
    }
    for (const disabled of ['true', 1, null]) expectError(await patch(endpoint.id, { disabled }), 400, 'parameter_invalid', 'disabled');
    expectError(await patch(endpoint.id, { secret: 'whsec_mine' }), 400, 'parameter_invalid', 'secret');
    expectError(await patch(endpoint.id, { id: 'we_test_000000000000000000000000' }), 400, 'parameter_invalid', 'id');
    const live = await createEndpoint(api, store.keys.sk_live, { url: 'https://93.184.216.34/live' });
    expectError(await patch(live.id, { url: 'http://93.184.216.34/plain' }, 'PATCH', store.keys.sk_live), 400, 'parameter_invalid', 'url');
    expectError(await patch(live.id, { url: 'https://localhost/h' }, 'PATCH', store.keys.sk_live), 400, 'parameter_invalid', 'url');
    // Nothing of a refused update was kept.
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).body).toMatchObject({ url: 'http://127.0.0.1/v', events: null, disabled: false });
  });

  it('another store’s, the other environment’s, an unknown and a deleted endpoint → identical 404 on PATCH, its POST alias, roll_secret and deliveries', async () => {
    const other = await createStore(api.services);
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/iso-patch' });
    const deleted = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/deleted' });
    await api.request('DELETE', `${ENDPOINTS}/${deleted.id}`, { key: store.key });
    const requests = [
      ['PATCH', '', { disabled: true }],
      ['POST', '', { disabled: true }],
      ['POST', '/roll_secret', { expires_in: 0 }],
      ['GET', '/deliveries', undefined],
    ] as const;
    for (const [method, suffix, body] of requests) {
      expectIdenticalMissing(
        [
          await rawApiRequest(api, method, `${ENDPOINTS}/${endpoint.id}${suffix}`, other.keys.sk_test, body),
          await rawApiRequest(api, method, `${ENDPOINTS}/${endpoint.id}${suffix}`, store.keys.sk_live, body),
          await rawApiRequest(api, method, `${ENDPOINTS}/we_test_000000000000000000000000${suffix}`, store.key, body),
          await rawApiRequest(api, method, `${ENDPOINTS}/${deleted.id}${suffix}`, store.key, body),
        ],
        'id',
      );
    }
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).body).toMatchObject({ disabled: false, previous_secret_expires_at: null });
  });
});

describe('POST /api/v1/webhook_endpoints/{id}/roll_secret', () => {
  const roll = (id: string, body: unknown = {}) => api.request('POST', `${ENDPOINTS}/${id}/roll_secret`, { key: store.key, body });
  const derived = (label: string) => `whsec_${createHmac('sha256', 'test-auth-secret').update(label).digest('base64')}`;

  it('answers 200 with the endpoint and a new secret; the old one lasts 86400 s by default; reads never show a secret', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/roll', events: ['order.paid'] });
    const response = await roll(endpoint.id);
    expect(response.status).toBe(200);
    const expected = {
      id: endpoint.id,
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1/roll',
      events: ['order.paid'],
      livemode: false,
      disabled: false,
      previous_secret_expires_at: epoch(T0) + 86400,
      created: epoch(T0),
    };
    expect(response.body).toEqual({ ...expected, secret: derived(`webhook-endpoint:${endpoint.id}:1`) });
    expect(response.body.secret).not.toBe(endpoint.secret);
    expect(endpoint.secret).toBe(derived(`webhook-endpoint:${endpoint.id}`));
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).body).toEqual(expected);
    expect((await api.request('PATCH', `${ENDPOINTS}/${endpoint.id}`, { key: store.key, body: { disabled: true } })).body).toEqual({ ...expected, disabled: true });
  });

  it('the overlap is on the store’s clock (its test clock in test mode); each roll gives another secret; expires_in 0 ends the old one at once', async () => {
    const own = await createStore(api.services);
    const endpoint = await createEndpoint(api, own.keys.sk_test, { url: 'http://127.0.0.1/roll-clock' });
    expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: own.keys.sk_test, body: { seconds: 7 * 86400 } })).status).toBe(200);
    const rollOwn = (body: unknown) => api.request('POST', `${ENDPOINTS}/${endpoint.id}/roll_secret`, { key: own.keys.sk_test, body });
    const first = await rollOwn({ expires_in: 600 });
    expect(first.body.previous_secret_expires_at).toBe(epoch(T0) + 7 * 86400 + 600);
    api.clock.advance(100);
    const second = await rollOwn({ expires_in: 604800 });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ previous_secret_expires_at: epoch(T0) + 7 * 86400 + 100 + 604800, secret: derived(`webhook-endpoint:${endpoint.id}:2`) });
    const live = await createEndpoint(api, own.keys.sk_live, { url: 'https://93.184.216.34/roll-clock' });
    const rolledLive = await api.request('POST', `${ENDPOINTS}/${live.id}/roll_secret`, { key: own.keys.sk_live, body: { expires_in: 600 } });
    expect(rolledLive.body.previous_secret_expires_at).toBe(epoch(T0) + 100 + 600);
    const third = await rollOwn({ expires_in: 0 });
    expect(third.body).toMatchObject({ previous_secret_expires_at: null, secret: derived(`webhook-endpoint:${endpoint.id}:3`) });
    expect(new Set([endpoint.secret, first.body.secret, second.body.secret, third.body.secret]).size).toBe(4);
  });

  it('expires_in: an integer 0–604800 → otherwise 400 parameter_invalid on expires_in; no other field', async () => {
    const endpoint = await createEndpoint(api, store.key, { url: 'http://127.0.0.1/roll-bad' });
    for (const expires_in of [-1, 604801, 1.5, '60', null, true]) expectError(await roll(endpoint.id, { expires_in }), 400, 'parameter_invalid', 'expires_in');
    expectError(await roll(endpoint.id, { expires: 60 }), 400, 'parameter_invalid', 'expires');
    expect((await api.request('GET', `${ENDPOINTS}/${endpoint.id}`, { key: store.key })).body.previous_secret_expires_at).toBeNull();
  });
});
