import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { keyHint } from '@/server/auth/service';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf } from '../support/lists';
import { useTestApi } from '../support/server';

const api = useTestApi();

const COUPONS = '/api/v1/coupons';
const PROMOTION_CODES = '/api/v1/promotion_codes';
type Store = Awaited<ReturnType<typeof createStore>>;

const create = (key: string, body: unknown, headers: Record<string, string> = {}) => api.request('POST', PROMOTION_CODES, { key, body, headers });
const read = (key: string, id: string) => api.request('GET', `${PROMOTION_CODES}/${id}`, { key });
const update = (key: string, id: string, body: unknown) => api.request('PATCH', `${PROMOTION_CODES}/${id}`, { key, body });

let codeCounter = 0;
const uniqueCode = () => `CODE${Date.now().toString(36)}${(codeCounter += 1)}`.toUpperCase();

async function makeCoupon(key: string) {
  const response = await api.request('POST', COUPONS, { key, body: { name: 'Summer sale', percent_off: 15, duration: 'once' } });
  expect(response.status).toBe(201);
  return response.body;
}

async function makeCode(key: string, body: Record<string, unknown> = {}) {
  const coupon = body.coupon ?? (await makeCoupon(key)).id;
  const response = await create(key, { coupon, code: uniqueCode(), ...body });
  expect(response.status).toBe(201);
  return response.body;
}

async function eventsOf(key: string, objectId: string) {
  const response = await api.request('GET', `/api/v1/events?object_id=${objectId}&limit=100`, { key });
  expect(response.status).toBe(200);
  return [...response.body.data].reverse();
}

describe('POST /api/v1/promotion_codes', () => {
  it('answers 201 with every field, in order; defaults: active, no limit, no expiry, {} metadata', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    const coupon = await makeCoupon(store.keys.sk_test);
    const response = await create(store.keys.sk_test, { coupon: coupon.id, code: 'Summer25' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^promo_test_[0-9A-Za-z]{24}$/),
      object: 'promotion_code',
      livemode: false,
      coupon: coupon.id,
      code: 'Summer25',
      active: true,
      max_redemptions: null,
      expires_at: null,
      times_redeemed: 0,
      metadata: {},
      created: epoch(T0),
    });
    expect(Object.keys(response.body)).toEqual(['id', 'object', 'livemode', 'coupon', 'code', 'active', 'max_redemptions', 'expires_at', 'times_redeemed', 'metadata', 'created']);
    expect((await read(store.keys.sk_test, response.body.id)).body).toEqual(response.body);
  });

  it('every optional field is echoed; a live key makes promo_live_ codes of live coupons', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    const coupon = await makeCoupon(store.keys.sk_live);
    const response = await create(store.keys.sk_live, { coupon: coupon.id, code: 'vip-2026_a', max_redemptions: 5, expires_at: epoch(T0) + 3600, active: false, metadata: { n: 1 } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^promo_live_[0-9A-Za-z]{24}$/),
      object: 'promotion_code',
      livemode: true,
      coupon: coupon.id,
      code: 'vip-2026_a',
      active: false,
      max_redemptions: 5,
      expires_at: epoch(T0) + 3600,
      times_redeemed: 0,
      metadata: { n: '1' },
      created: epoch(T0),
    });
  });

  it('field rules: 400 parameter_invalid naming the field; metadata → metadata_invalid', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    const coupon = await makeCoupon(store.keys.sk_test);
    const base = { coupon: coupon.id, code: 'GOOD' };
    const refused: [Record<string, unknown>, string][] = [
      [{ code: 'GOOD' }, 'coupon'],
      [{ coupon: coupon.id }, 'code'],
      [{ ...base, code: 'AB' }, 'code'],
      [{ ...base, code: 'A'.repeat(41) }, 'code'],
      [{ ...base, code: 'NO SPACE' }, 'code'],
      [{ ...base, code: 'ÄPFEL' }, 'code'],
      [{ ...base, code: 'a.b' }, 'code'],
      [{ ...base, max_redemptions: 0 }, 'max_redemptions'],
      [{ ...base, expires_at: epoch(T0) }, 'expires_at'],
      [{ ...base, expires_at: epoch(T0) - 10 }, 'expires_at'],
      [{ ...base, active: 'yes' }, 'active'],
      [{ ...base, currency: 'eur' }, 'currency'],
    ];
    for (const [body, param] of refused) expectError(await create(store.keys.sk_test, body), 400, 'parameter_invalid', param);
    expectError(await create(store.keys.sk_test, { ...base, metadata: { bad: null } }), 400, 'metadata_invalid', 'metadata.bad');
    expect((await listOf(api, PROMOTION_CODES, store.keys.sk_test)).body.data).toEqual([]);
    for (const code of ['abc', 'A'.repeat(40), 'a-b_C9']) expect((await create(store.keys.sk_test, { coupon: coupon.id, code })).status).toBe(201);
  });

  it('coupon unknown, deleted, of another store or of the other environment → identical 404 naming coupon', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const deleted = await makeCoupon(store.keys.sk_test);
    expect((await api.request('DELETE', `${COUPONS}/${deleted.id}`, { key: store.keys.sk_test })).status).toBe(200);
    const foreign = await makeCoupon(other.keys.sk_test);
    const live = await makeCoupon(store.keys.sk_live);
    const responses = [];
    for (const coupon of ['cpn_test_000000000000000000000000', deleted.id, foreign.id, live.id]) {
      responses.push(await rawApiRequest(api, 'POST', PROMOTION_CODES, store.keys.sk_test, { coupon, code: 'SAME' }));
    }
    for (const response of responses) expectError(response, 404, 'resource_missing', 'coupon');
    for (const response of responses.slice(1)) expect(JSON.parse(response.text).error.code).toBe('resource_missing');
  });

  it('a code taken in the store and environment, in any case → 409 promotion_code_unavailable; other stores and the other environment are free', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test);
    const second = await makeCoupon(store.keys.sk_test);
    expect((await create(store.keys.sk_test, { coupon: coupon.id, code: 'Summer25' })).status).toBe(201);
    for (const code of ['Summer25', 'SUMMER25', 'summer25', 'sUmMeR25']) {
      expectError(await create(store.keys.sk_test, { coupon: second.id, code }), 409, 'promotion_code_unavailable', 'code');
    }
    const live = await makeCoupon(store.keys.sk_live);
    expect((await create(store.keys.sk_live, { coupon: live.id, code: 'SUMMER25' })).status).toBe(201);
    const theirs = await makeCoupon(other.keys.sk_test);
    expect((await create(other.keys.sk_test, { coupon: theirs.id, code: 'summer25' })).status).toBe(201);
    // A code of a deleted coupon keeps its text taken.
    expect((await api.request('DELETE', `${COUPONS}/${coupon.id}`, { key: store.keys.sk_test })).status).toBe(200);
    expectError(await create(store.keys.sk_test, { coupon: second.id, code: 'summer25' }), 409, 'promotion_code_unavailable', 'code');
  });

  it('two creates of one code racing (different case): one 201, one 409; one code, one event', async () => {
    const store = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test);
    for (let round = 0; round < 3; round += 1) {
      const code = uniqueCode();
      const responses = await Promise.all([create(store.keys.sk_test, { coupon: coupon.id, code }), create(store.keys.sk_test, { coupon: coupon.id, code: code.toLowerCase() })]);
      expect(responses.map((response) => response.status).sort()).toEqual([201, 409]);
      const loser = responses.find((response) => response.status === 409)!;
      expectError(loser, 409, 'promotion_code_unavailable', 'code');
      const listed = await listOf(api, PROMOTION_CODES, store.keys.sk_test, `code=${code}`);
      expect(listed.body.data).toEqual([responses.find((response) => response.status === 201)!.body]);
    }
    const events = (await api.request('GET', '/api/v1/events?type=promotion_code.created&limit=100', { key: store.keys.sk_test })).body.data;
    expect(events).toHaveLength(3);
  });

  it('writes promotion_code.created with the code as answered, and an audit entry with the key', async () => {
    const store = await createStore(api.services);
    const code = await makeCode(store.keys.sk_test, { metadata: { a: 'b' } });
    expect(await eventsOf(store.keys.sk_test, code.id)).toEqual([
      { id: expect.stringMatching(/^evt_test_/), object: 'event', type: 'promotion_code.created', created: code.created, livemode: false, sequence: 1, data: { object: code } },
    ]);
    const audit = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'promotion_code.create')));
    expect(audit).toEqual([expect.objectContaining({ keyHint: keyHint(store.keys.sk_test), method: 'POST', path: PROMOTION_CODES, details: { promotion_code: code.id, coupon: code.coupon } })]);
  });

  it('Idempotency-Key: a repeat replays with 200, another body → 409 idempotency_key_reused, a taken code leaves the key unused', async () => {
    const store = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test);
    const headers = { 'idempotency-key': 'promo-1' };
    const first = await create(store.keys.sk_test, { coupon: coupon.id, code: 'ONCE' }, headers);
    expect(first.status).toBe(201);
    const again = await create(store.keys.sk_test, { code: 'ONCE', coupon: coupon.id }, headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expectError(await create(store.keys.sk_test, { coupon: coupon.id, code: 'TWICE' }, headers), 409, 'idempotency_key_reused');
    expectError(await create(store.keys.sk_test, { coupon: coupon.id, code: 'once' }, { 'idempotency-key': 'promo-2' }), 409, 'promotion_code_unavailable', 'code');
    expect((await create(store.keys.sk_test, { coupon: coupon.id, code: 'OTHER' }, { 'idempotency-key': 'promo-2' })).status).toBe(201);
    expect((await listOf(api, PROMOTION_CODES, store.keys.sk_test)).body.data).toHaveLength(2);
  });
});

describe('GET /api/v1/promotion_codes/{id}', () => {
  it('unknown, another store’s and the other environment’s code → identical 404 naming id', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const code = await makeCode(store.keys.sk_test);
    const path = `${PROMOTION_CODES}/${code.id}`;
    expectIdenticalMissing(
      [
        await rawApiRequest(api, 'GET', `${PROMOTION_CODES}/promo_test_000000000000000000000000`, store.keys.sk_test),
        await rawApiRequest(api, 'GET', path, other.keys.sk_test),
        await rawApiRequest(api, 'GET', path, store.keys.sk_live),
      ],
      'id',
    );
    expectError(await api.request('GET', path, { key: store.keys.pk_test }), 401, 'wrong_key_type');
  });
});

describe('PATCH /api/v1/promotion_codes/{id}', () => {
  it('deactivates and activates; each change writes promotion_code.updated with previous_attributes', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const code = await makeCode(key);
    const off = await update(key, code.id, { active: false });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ ...code, active: false });
    const on = await update(key, code.id, { active: true, metadata: { note: 'back' } });
    expect(on.body).toEqual({ ...code, active: true, metadata: { note: 'back' } });
    const cleared = await update(key, code.id, { metadata: null });
    expect(cleared.body).toEqual(code);
    expect((await read(key, code.id)).body).toEqual(code);
    const events = await eventsOf(key, code.id);
    expect(events.map((event) => [event.type, event.sequence, event.data])).toEqual([
      ['promotion_code.created', 1, { object: code }],
      ['promotion_code.updated', 2, { object: { ...code, active: false }, previous_attributes: { active: true } }],
      ['promotion_code.updated', 3, { object: { ...code, metadata: { note: 'back' } }, previous_attributes: { active: false, metadata: {} } }],
      ['promotion_code.updated', 4, { object: code, previous_attributes: { metadata: { note: 'back' } } }],
    ]);
  });

  it('a change to nothing answers the code, writes no event, and is audited', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const code = await makeCode(key);
    expect((await update(key, code.id, { active: true })).body).toEqual(code);
    expect((await update(key, code.id, {})).body).toEqual(code);
    expect(await eventsOf(key, code.id)).toHaveLength(1);
    const audit = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'promotion_code.update')));
    expect(audit.map((entry) => entry.details)).toEqual([
      { promotion_code: code.id, fields: ['active'] },
      { promotion_code: code.id, fields: [] },
    ]);
  });

  it('only active and metadata: other fields, an id in the body, a bad value → 400 naming it', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const code = await makeCode(key);
    expectError(await update(key, code.id, { code: 'NEW' }), 400, 'parameter_invalid', 'code');
    expectError(await update(key, code.id, { max_redemptions: 3 }), 400, 'parameter_invalid', 'max_redemptions');
    expectError(await update(key, code.id, { active: 'false' }), 400, 'parameter_invalid', 'active');
    expectError(await update(key, code.id, { id: 'promo_test_x' }), 400, 'parameter_invalid', 'id');
    expectError(await update(key, code.id, { metadata: { k: [] } }), 400, 'metadata_invalid', 'metadata.k');
    expect((await read(key, code.id)).body).toEqual(code);
  });

  it('another store’s and the other environment’s code → 404, unchanged', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const code = await makeCode(store.keys.sk_test);
    expectError(await update(other.keys.sk_test, code.id, { active: false }), 404, 'resource_missing', 'id');
    expectError(await update(store.keys.sk_live, code.id, { active: false }), 404, 'resource_missing', 'id');
    expect((await read(store.keys.sk_test, code.id)).body).toEqual(code);
  });
});

describeListContract(api, {
  path: PROMOTION_CODES,
  async make(store: Store, { livemode }) {
    return makeCode(livemode ? store.keys.sk_live : store.keys.sk_test);
  },
});

describe('GET /api/v1/promotion_codes: filters', () => {
  it('coupon, code (any case) and active, alone and combined; a bad value is 400 naming it', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const couponA = await makeCoupon(key);
    const couponB = await makeCoupon(key);
    const a1 = await makeCode(key, { coupon: couponA.id, code: 'ALPHA1' });
    api.clock.advance(1);
    const a2 = await makeCode(key, { coupon: couponA.id, code: 'alpha2', active: false });
    api.clock.advance(1);
    const b1 = await makeCode(key, { coupon: couponB.id, code: 'Beta1' });
    const data = async (query: string) => (await listOf(api, PROMOTION_CODES, key, query)).body.data;
    expect(await data(`coupon=${couponA.id}`)).toEqual([a2, a1]);
    expect(await data(`coupon=${couponB.id}`)).toEqual([b1]);
    expect(await data('code=beta1')).toEqual([b1]);
    expect(await data('code=ALPHA2')).toEqual([a2]);
    expect(await data('code=NOPE')).toEqual([]);
    expect(await data('active=true')).toEqual([b1, a1]);
    expect(await data('active=false')).toEqual([a2]);
    expect(await data(`coupon=${couponA.id}&active=true`)).toEqual([a1]);
    expect(await data('coupon=cpn_test_unknown')).toEqual([]);
    expectError(await listOf(api, PROMOTION_CODES, key, 'coupon=prod_test_x'), 400, 'parameter_invalid', 'coupon');
    expectError(await listOf(api, PROMOTION_CODES, key, 'code=a'), 400, 'parameter_invalid', 'code');
    expectError(await listOf(api, PROMOTION_CODES, key, 'active=yes'), 400, 'parameter_invalid', 'active');
    const page = await listOf(api, PROMOTION_CODES, key, `coupon=${couponA.id}&limit=1`);
    expect(page.body).toEqual({ object: 'list', data: [a2], has_more: true, url: PROMOTION_CODES, livemode: false });
    expect((await listOf(api, PROMOTION_CODES, key, `coupon=${couponA.id}&limit=1&starting_after=${a2.id}`)).body).toEqual({
      object: 'list',
      data: [a1],
      has_more: false,
      url: PROMOTION_CODES,
      livemode: false,
    });
  });

  it('the other store’s and environment’s codes never match a filter', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const theirs = await makeCode(other.keys.sk_test, { code: 'SHARED' });
    const live = await makeCode(store.keys.sk_live, { code: 'SHARED' });
    expect((await listOf(api, PROMOTION_CODES, store.keys.sk_test, 'code=shared')).body.data).toEqual([]);
    expect((await listOf(api, PROMOTION_CODES, store.keys.sk_test, `coupon=${theirs.coupon}`)).body.data).toEqual([]);
    expect((await listOf(api, PROMOTION_CODES, store.keys.sk_live, 'code=shared')).body.data).toEqual([live]);
  });
});
