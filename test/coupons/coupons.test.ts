import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, coupons } from '@/db/schema';
import { keyHint } from '@/server/auth/service';
import { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf } from '../support/lists';
import { useTestApi } from '../support/server';

const api = useTestApi();

const COUPONS = '/api/v1/coupons';
const PROMOTION_CODES = '/api/v1/promotion_codes';
type Store = Awaited<ReturnType<typeof createStore>>;

const create = (key: string, body: unknown, headers: Record<string, string> = {}) => api.request('POST', COUPONS, { key, body, headers });
const read = (key: string, id: string) => api.request('GET', `${COUPONS}/${id}`, { key });
const remove = (key: string, id: string) => api.request('DELETE', `${COUPONS}/${id}`, { key });

async function makeCoupon(key: string, body: Record<string, unknown> = {}) {
  const response = await create(key, { name: 'Summer sale', percent_off: 15, duration: 'once', ...body });
  expect(response.status).toBe(201);
  return response.body;
}

async function makeCode(key: string, coupon: string, code: string) {
  const response = await api.request('POST', PROMOTION_CODES, { key, body: { coupon, code } });
  expect(response.status).toBe(201);
  return response.body;
}

async function eventsOf(key: string, objectId: string) {
  const response = await api.request('GET', `/api/v1/events?object_id=${objectId}&limit=100`, { key });
  expect(response.status).toBe(200);
  return [...response.body.data].reverse();
}

describe('POST /api/v1/coupons', () => {
  it('answers 201 with every field; what was not given is null', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    const response = await create(store.keys.sk_test, { name: 'Summer sale', percent_off: 15, duration: 'once' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^cpn_test_[0-9A-Za-z]{24}$/),
      object: 'coupon',
      livemode: false,
      name: 'Summer sale',
      percent_off: 15,
      amount_off: null,
      currency: 'eur',
      duration: 'once',
      duration_in_months: null,
      max_redemptions: null,
      redeem_by: null,
      applies_to: null,
      metadata: {},
      times_redeemed: 0,
      valid: true,
      created: epoch(T0),
    });
    expect(Object.keys(response.body)).toEqual([
      'id',
      'object',
      'livemode',
      'name',
      'percent_off',
      'amount_off',
      'currency',
      'duration',
      'duration_in_months',
      'max_redemptions',
      'redeem_by',
      'applies_to',
      'metadata',
      'times_redeemed',
      'valid',
      'created',
    ]);
    expect((await read(store.keys.sk_test, response.body.id)).body).toEqual(response.body);
  });

  it('every optional field is echoed: amount_off, repeating months, limits, products, metadata; live keys make cpn_live_ coupons', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    const first = await createProduct(api, store.keys.sk_live);
    const second = await createProduct(api, store.keys.sk_live);
    const body = {
      name: 'Launch',
      amount_off: 500,
      currency: 'eur',
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 100,
      redeem_by: epoch(T0) + 86_400,
      applies_to: { products: [second.id, first.id] },
      metadata: { campaign: 'launch', round: 2, public: true },
    };
    const response = await create(store.keys.sk_live, body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^cpn_live_[0-9A-Za-z]{24}$/),
      object: 'coupon',
      livemode: true,
      name: 'Launch',
      percent_off: null,
      amount_off: 500,
      currency: 'eur',
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 100,
      redeem_by: epoch(T0) + 86_400,
      applies_to: { products: [second.id, first.id] },
      metadata: { campaign: 'launch', round: '2', public: 'true' },
      times_redeemed: 0,
      valid: true,
      created: epoch(T0),
    });
    expect((await read(store.keys.sk_live, response.body.id)).body).toEqual(response.body);
  });

  it('each field’s bounds: 400 parameter_invalid naming the field', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const base = { name: 'Sale', percent_off: 10, duration: 'once' };
    const refused: [Record<string, unknown>, string][] = [
      [{ ...base, name: '' }, 'name'],
      [{ ...base, name: 'x'.repeat(256) }, 'name'],
      [{ ...base, name: '   ' }, 'name'],
      [{ percent_off: 10, duration: 'once' }, 'name'],
      [{ ...base, percent_off: 0 }, 'percent_off'],
      [{ ...base, percent_off: 101 }, 'percent_off'],
      [{ ...base, percent_off: 12.5 }, 'percent_off'],
      [{ ...base, percent_off: '10' }, 'percent_off'],
      [{ name: 'Sale', amount_off: 0, duration: 'once' }, 'amount_off'],
      [{ name: 'Sale', amount_off: 1_000_001, duration: 'once' }, 'amount_off'],
      [{ ...base, percent_off: 10, amount_off: 100 }, 'amount_off'],
      [{ name: 'Sale', duration: 'once' }, 'percent_off'],
      [{ ...base, duration: 'weekly' }, 'duration'],
      [{ name: 'Sale', percent_off: 10 }, 'duration'],
      [{ ...base, duration: 'repeating' }, 'duration_in_months'],
      [{ ...base, duration: 'repeating', duration_in_months: 0 }, 'duration_in_months'],
      [{ ...base, duration: 'repeating', duration_in_months: 121 }, 'duration_in_months'],
      [{ ...base, duration: 'once', duration_in_months: 3 }, 'duration_in_months'],
      [{ ...base, duration: 'forever', duration_in_months: 3 }, 'duration_in_months'],
      [{ ...base, max_redemptions: 0 }, 'max_redemptions'],
      [{ ...base, redeem_by: 'tomorrow' }, 'redeem_by'],
      [{ ...base, applies_to: { products: [] } }, 'applies_to.products'],
      [{ ...base, applies_to: { products: Array.from({ length: 101 }, (_, i) => `prod_test_${i}`) } }, 'applies_to.products'],
      [{ ...base, applies_to: { products: ['prod_test_x'], prices: [] } }, 'applies_to.prices'],
      [{ ...base, valid: false }, 'valid'],
    ];
    for (const [body, param] of refused) expectError(await create(key, body), 400, 'parameter_invalid', param);
    expect((await listOf(api, COUPONS, key)).body.data).toEqual([]);
    // The bounds themselves are accepted.
    for (const body of [
      { ...base, name: 'x'.repeat(255), percent_off: 100 },
      { name: 'Sale', amount_off: 1_000_000, duration: 'forever' },
      { name: 'Sale', amount_off: 1, duration: 'repeating', duration_in_months: 120, max_redemptions: 1 },
      { ...base, percent_off: 1, duration: 'repeating', duration_in_months: 1 },
    ]) {
      expect((await create(key, body)).status).toBe(201);
    }
  });

  it('redeem_by must lie ahead of the store’s clock: now or earlier is 400 naming redeem_by', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    for (const redeemBy of [epoch(T0), epoch(T0) - 1, 0]) {
      expectError(await create(store.keys.sk_test, { name: 'Sale', percent_off: 10, duration: 'once', redeem_by: redeemBy }), 400, 'parameter_invalid', 'redeem_by');
    }
    expect((await create(store.keys.sk_test, { name: 'Sale', percent_off: 10, duration: 'once', redeem_by: epoch(T0) + 1 })).body.redeem_by).toBe(epoch(T0) + 1);
  });

  it('currency other than eur → 400 currency_unsupported, before any other check', async () => {
    const store = await createStore(api.services);
    for (const currency of ['usd', 'EUR', 5, null]) {
      expectError(await create(store.keys.sk_test, { name: '', currency, duration: 'never' }), 400, 'currency_unsupported', 'currency');
    }
  });

  it('metadata breaking the kit’s rules → 400 metadata_invalid naming the key', async () => {
    const store = await createStore(api.services);
    const base = { name: 'Sale', percent_off: 10, duration: 'once' };
    expectError(await create(store.keys.sk_test, { ...base, metadata: { nested: { a: 1 } } }), 400, 'metadata_invalid', 'metadata.nested');
    expectError(await create(store.keys.sk_test, { ...base, metadata: ['a'] }), 400, 'metadata_invalid', 'metadata');
    expectError(await create(store.keys.sk_test, { ...base, metadata: { long: 'x'.repeat(501) } }), 400, 'metadata_invalid', 'metadata.long');
    expectError(await create(store.keys.sk_test, { ...base, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }), 400, 'metadata_invalid', 'metadata');
  });

  it('applies_to: a product unknown, of another store or of the other environment → 404 resource_missing naming its entry', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const mine = await createProduct(api, store.keys.sk_test);
    const live = await createProduct(api, store.keys.sk_live);
    const foreign = await createProduct(api, other.keys.sk_test);
    const body = (products: string[]) => ({ name: 'Sale', percent_off: 10, duration: 'once', applies_to: { products } });
    expectError(await create(store.keys.sk_test, body([mine.id, 'prod_test_unknown'])), 404, 'resource_missing', 'applies_to.products[1]');
    expectError(await create(store.keys.sk_test, body([foreign.id, mine.id])), 404, 'resource_missing', 'applies_to.products[0]');
    expectError(await create(store.keys.sk_test, body([mine.id, mine.id, live.id])), 404, 'resource_missing', 'applies_to.products[2]');
    expect((await listOf(api, COUPONS, store.keys.sk_test)).body.data).toEqual([]);
  });

  it('writes coupon.created with the coupon as answered, and an audit entry with the key', async () => {
    const store = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test, { metadata: { a: 'b' } });
    const events = await eventsOf(store.keys.sk_test, coupon.id);
    expect(events).toEqual([{ id: expect.stringMatching(/^evt_test_/), object: 'event', type: 'coupon.created', created: coupon.created, livemode: false, sequence: 1, data: { object: coupon } }]);
    const audit = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'coupon.create')));
    expect(audit).toEqual([expect.objectContaining({ keyHint: keyHint(store.keys.sk_test), livemode: false, method: 'POST', path: COUPONS, details: { coupon: coupon.id } })]);
  });

  it('secret keys only: none → 401 missing_api_key, a publishable key → 401 wrong_key_type', async () => {
    const store = await createStore(api.services);
    expectError(await api.request('POST', COUPONS, { body: { name: 'Sale', percent_off: 10, duration: 'once' } }), 401, 'missing_api_key');
    expectError(await create(store.keys.pk_test, { name: 'Sale', percent_off: 10, duration: 'once' }), 401, 'wrong_key_type');
    expectError(await api.request('GET', COUPONS, { key: store.keys.pk_test }), 401, 'wrong_key_type');
  });
});

describe('POST /api/v1/coupons with Idempotency-Key', () => {
  const body = { name: 'Sale', percent_off: 10, duration: 'once', metadata: { a: '1', b: '2' } };

  it('a repeat replays the first answer with 200 and creates nothing more; another body → 409 idempotency_key_reused', async () => {
    const store = await createStore(api.services);
    const first = await create(store.keys.sk_test, body, { 'idempotency-key': 'coupon-1' });
    expect(first.status).toBe(201);
    const again = await create(store.keys.sk_test, { duration: 'once', percent_off: 10, name: 'Sale', metadata: { a: '1', b: '2' } }, { 'idempotency-key': 'coupon-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expectError(await create(store.keys.sk_test, { ...body, percent_off: 20 }, { 'idempotency-key': 'coupon-1' }), 409, 'idempotency_key_reused');
    expectError(await create(store.keys.sk_test, { ...body, metadata: { b: '2', a: '1' } }, { 'idempotency-key': 'coupon-1' }), 409, 'idempotency_key_reused');
    expect((await listOf(api, COUPONS, store.keys.sk_test)).body.data).toEqual([first.body]);
    expect(await eventsOf(store.keys.sk_test, first.body.id)).toHaveLength(1);
  });

  it('a refused request leaves the key unused; racing duplicates create one coupon', async () => {
    const store = await createStore(api.services);
    expectError(await create(store.keys.sk_test, { ...body, applies_to: { products: ['prod_test_nope'] } }, { 'idempotency-key': 'coupon-2' }), 404, 'resource_missing', 'applies_to.products[0]');
    expect((await create(store.keys.sk_test, body, { 'idempotency-key': 'coupon-2' })).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 4 }, () => create(store.keys.sk_test, body, { 'idempotency-key': 'coupon-3' })));
    expect(racing.map((response) => response.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(racing.map((response) => response.body.id)).size).toBe(1);
    expect((await listOf(api, COUPONS, store.keys.sk_test)).body.data).toHaveLength(2);
    expectError(await create(store.keys.sk_test, body, { 'idempotency-key': 'k'.repeat(192) }), 400, 'idempotency_key_invalid');
  });
});

describe('GET /api/v1/coupons/{id} and valid', () => {
  it('unknown, another store’s and the other environment’s coupon → identical 404 naming id', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test);
    const path = `${COUPONS}/${coupon.id}`;
    expectIdenticalMissing(
      [
        await rawApiRequest(api, 'GET', `${COUPONS}/cpn_test_000000000000000000000000`, store.keys.sk_test),
        await rawApiRequest(api, 'GET', path, other.keys.sk_test),
        await rawApiRequest(api, 'GET', path, store.keys.sk_live),
      ],
      'id',
    );
  });

  it('valid turns false once redeem_by has passed on the store’s clock', async () => {
    const store = await createStore(api.services);
    api.clock.set(T0);
    const coupon = await makeCoupon(store.keys.sk_test, { redeem_by: epoch(T0) + 60 });
    api.clock.advance(59);
    expect((await read(store.keys.sk_test, coupon.id)).body.valid).toBe(true);
    api.clock.advance(1);
    expect((await read(store.keys.sk_test, coupon.id)).body).toEqual({ ...coupon, valid: false });
    expect((await listOf(api, COUPONS, store.keys.sk_test)).body.data).toEqual([{ ...coupon, valid: false }]);
  });

  it('valid turns false once times_redeemed reaches max_redemptions', async () => {
    const store = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test, { max_redemptions: 2 });
    await api.services.db.update(coupons).set({ timesRedeemed: 1 }).where(eq(coupons.id, coupon.id));
    expect((await read(store.keys.sk_test, coupon.id)).body).toEqual({ ...coupon, times_redeemed: 1, valid: true });
    await api.services.db.update(coupons).set({ timesRedeemed: 2 }).where(eq(coupons.id, coupon.id));
    expect((await read(store.keys.sk_test, coupon.id)).body).toEqual({ ...coupon, times_redeemed: 2, valid: false });
  });
});

describeListContract(api, {
  path: COUPONS,
  async make(store: Store, { livemode }) {
    return makeCoupon(livemode ? store.keys.sk_live : store.keys.sk_test);
  },
});

describe('DELETE /api/v1/coupons/{id}', () => {
  it('answers the deleted form; then 404 on read and delete, unlisted, and no cursor', async () => {
    const store = await createStore(api.services);
    const kept = await makeCoupon(store.keys.sk_test);
    api.clock.advance(1);
    const coupon = await makeCoupon(store.keys.sk_test);
    const response = await remove(store.keys.sk_test, coupon.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: coupon.id, object: 'coupon', deleted: true, livemode: false });
    expectError(await read(store.keys.sk_test, coupon.id), 404, 'resource_missing', 'id');
    expectError(await remove(store.keys.sk_test, coupon.id), 404, 'resource_missing', 'id');
    expect((await listOf(api, COUPONS, store.keys.sk_test)).body.data).toEqual([kept]);
    expectError(await listOf(api, COUPONS, store.keys.sk_test, `starting_after=${coupon.id}`), 404, 'resource_missing', 'starting_after');
    const live = await makeCoupon(store.keys.sk_live);
    expect((await remove(store.keys.sk_live, live.id)).body).toEqual({ id: live.id, object: 'coupon', deleted: true, livemode: true });
  });

  it('another store’s or environment’s coupon → 404, and it stays', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const coupon = await makeCoupon(store.keys.sk_test);
    expectError(await remove(other.keys.sk_test, coupon.id), 404, 'resource_missing', 'id');
    expectError(await remove(store.keys.sk_live, coupon.id), 404, 'resource_missing', 'id');
    expect((await read(store.keys.sk_test, coupon.id)).body).toEqual(coupon);
  });

  it('deactivates its active codes: coupon.deleted, then one promotion_code.updated per code, oldest first; codes of other coupons stay', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    api.clock.set(T0);
    const coupon = await makeCoupon(key);
    const other = await makeCoupon(key);
    const first = await makeCode(key, coupon.id, 'FIRST');
    api.clock.advance(1);
    const second = await makeCode(key, coupon.id, 'SECOND');
    const already = await makeCode(key, coupon.id, 'ALREADY');
    expect((await api.request('PATCH', `${PROMOTION_CODES}/${already.id}`, { key, body: { active: false } })).status).toBe(200);
    const untouched = await makeCode(key, other.id, 'OTHER');
    api.clock.advance(5);
    expect((await remove(key, coupon.id)).status).toBe(200);

    const readCode = async (id: string) => (await api.request('GET', `${PROMOTION_CODES}/${id}`, { key })).body;
    expect(await readCode(first.id)).toEqual({ ...first, active: false });
    expect(await readCode(second.id)).toEqual({ ...second, active: false });
    expect(await readCode(already.id)).toEqual({ ...already, active: false });
    expect(await readCode(untouched.id)).toEqual(untouched);

    const all = (await api.request('GET', '/api/v1/events?limit=100', { key })).body.data.reverse();
    const afterDelete = all.slice(all.findIndex((event: { type: string }) => event.type === 'coupon.deleted'));
    expect(afterDelete).toEqual([
      {
        id: expect.any(String),
        object: 'event',
        type: 'coupon.deleted',
        created: epoch(T0) + 6,
        livemode: false,
        sequence: 2,
        data: { object: { id: coupon.id, object: 'coupon', deleted: true, livemode: false } },
      },
      {
        id: expect.any(String),
        object: 'event',
        type: 'promotion_code.updated',
        created: epoch(T0) + 6,
        livemode: false,
        sequence: 2,
        data: { object: { ...first, active: false }, previous_attributes: { active: true } },
      },
      {
        id: expect.any(String),
        object: 'event',
        type: 'promotion_code.updated',
        created: epoch(T0) + 6,
        livemode: false,
        sequence: 2,
        data: { object: { ...second, active: false }, previous_attributes: { active: true } },
      },
    ]);
    const audit = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'coupon.delete')))
      .orderBy(asc(auditEvents.id));
    expect(audit).toEqual([expect.objectContaining({ keyHint: keyHint(key), method: 'DELETE', details: { coupon: coupon.id, promotion_codes_deactivated: [first.id, second.id] } })]);
  });

  it('a code of a deleted coupon cannot be activated again, nor can a code be made for it', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const coupon = await makeCoupon(key);
    const code = await makeCode(key, coupon.id, 'GONE');
    expect((await remove(key, coupon.id)).status).toBe(200);
    expectError(await api.request('PATCH', `${PROMOTION_CODES}/${code.id}`, { key, body: { active: true } }), 400, 'parameter_invalid', 'active');
    expectError(await api.request('POST', PROMOTION_CODES, { key, body: { coupon: coupon.id, code: 'AGAIN' } }), 404, 'resource_missing', 'coupon');
  });
});
