import { and, count, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions, idempotencyKeys, orders, products } from '@/db/schema';
import { createStore } from '../support/factories';
import { holdIdempotencyKey } from '../support/idempotency';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, epoch, expectError, HOUR, readOrder, SESSIONS, T0 } from './api-support';

const api = useTestApi();
const store = useTestStore(api);
let product: any;

beforeAll(async () => {
  product = await createProduct(api, store.key);
});

let keyCounter = 0;
const freshKey = () => `order-${Date.now()}-${++keyCounter}`;
const post = (body: unknown, idempotencyKey: string | undefined, withKey = store.key) =>
  api.request('POST', SESSIONS, { key: withKey, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });

async function sessionCount(storeId: string) {
  const [row] = await api.services.db.select({ total: count() }).from(checkoutSessions).where(eq(checkoutSessions.storeId, storeId));
  return row!.total;
}

async function orderCount(storeId: string) {
  const [row] = await api.services.db.select({ total: count() }).from(orders).where(eq(orders.storeId, storeId));
  return row!.total;
}

describe('Idempotency-Key on POST /api/v1/checkout/sessions', () => {
  it('a repeat with the same key and body replays the original session, client_secret included, with 200', async () => {
    const own = await createStore(api.services);
    const ownProduct = await createProduct(api, own.keys.sk_test);
    const idempotencyKey = freshKey();
    const body = { price_id: ownProduct.price_id, quantity: 2, metadata: { order: '42' } };
    const first = await post(body, idempotencyKey, own.keys.sk_test);
    expect(first.status).toBe(201);
    api.clock.advance(60);
    const second = await post(body, idempotencyKey, own.keys.sk_test);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body.client_secret).toMatch(new RegExp(`^${first.body.id}_secret_`));
    expect(await sessionCount(own.id)).toBe(1);
    expect(await orderCount(own.id)).toBe(1);
  });

  it('the body is compared as canonical JSON: field order and whitespace do not matter', async () => {
    const idempotencyKey = freshKey();
    const first = await post({ price_id: product.price_id, quantity: 2, customer_email: 'a@example.com' }, idempotencyKey);
    expect(first.status).toBe(201);
    const second = await api.request('POST', SESSIONS, {
      key: store.key,
      body: `{ "customer_email": "a@example.com",\n  "quantity": 2, "price_id": "${product.price_id}" }`,
      headers: { 'idempotency-key': idempotencyKey },
    });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
  });

  it.each([
    ['another quantity', (base: Record<string, unknown>) => ({ ...base, quantity: 3 })],
    ['another metadata value', (base: Record<string, unknown>) => ({ ...base, metadata: { a: '1', b: '3' } })],
    ['metadata in another key order (it is echoed verbatim)', (base: Record<string, unknown>) => ({ ...base, metadata: { b: '2', a: '1' } })],
    ['metadata left out', ({ metadata: _omitted, ...base }: Record<string, unknown>) => base],
    ['a field added', (base: Record<string, unknown>) => ({ ...base, customer_email: 'a@example.com' })],
  ])('the same key with %s → 409 idempotency_key_reused', async (_name, change) => {
    const base = { price_id: product.price_id, quantity: 2, metadata: { a: '1', b: '2' } };
    const idempotencyKey = freshKey();
    expect((await post(base, idempotencyKey)).status).toBe(201);
    expectError(await post(change(base), idempotencyKey), 409, 'idempotency_key_reused');
  });

  it('the same key with another price → 409 idempotency_key_reused', async () => {
    const other = await createProduct(api, store.key);
    const idempotencyKey = freshKey();
    expect((await post({ price_id: product.price_id }, idempotencyKey)).status).toBe(201);
    expectError(await post({ price_id: other.price_id }, idempotencyKey), 409, 'idempotency_key_reused');
  });

  it('numbers in metadata count as sent: 1 and "1" are different requests', async () => {
    const idempotencyKey = freshKey();
    expect((await post({ price_id: product.price_id, metadata: { n: 1 } }, idempotencyKey)).status).toBe(201);
    expectError(await post({ price_id: product.price_id, metadata: { n: '1' } }, idempotencyKey), 409, 'idempotency_key_reused');
  });

  it('a key of 191 characters is accepted; 192 → 400 idempotency_key_invalid, before the body is judged', async () => {
    expect((await post({ price_id: product.price_id }, 'k'.repeat(191))).status).toBe(201);
    expectError(await post({ price_id: product.price_id }, 'k'.repeat(192)), 400, 'idempotency_key_invalid');
    expectError(await post({ colour: 'red' }, 'k'.repeat(192)), 400, 'idempotency_key_invalid');
  });

  it('keys are scoped per store and per environment', async () => {
    const other = await createStore(api.services);
    const otherProduct = await createProduct(api, other.keys.sk_test);
    const liveProduct = await createProduct(api, store.keys.sk_live);
    const idempotencyKey = freshKey();
    const mine = await post({ price_id: product.price_id }, idempotencyKey);
    const theirs = await post({ price_id: otherProduct.price_id }, idempotencyKey, other.keys.sk_test);
    const live = await post({ price_id: liveProduct.price_id }, idempotencyKey, store.keys.sk_live);
    expect([mine.status, theirs.status, live.status]).toEqual([201, 201, 201]);
    expect(new Set([mine.body.id, theirs.body.id, live.body.id]).size).toBe(3);
    expect(live.body.livemode).toBe(true);
  });

  it('a replay after the session expired still returns the original, as it is now', async () => {
    const idempotencyKey = freshKey();
    const first = await post({ price_id: product.price_id, expires_at: epoch(T0) + HOUR }, idempotencyKey);
    api.clock.advance(2 * HOUR);
    const replay = await post({ price_id: product.price_id, expires_at: epoch(T0) + HOUR }, idempotencyKey);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ ...first.body, status: 'expired', url: null });
  });

  it('a replay does not read the catalog again: a price deactivated since still replays', async () => {
    const own = await createProduct(api, store.key);
    const idempotencyKey = freshKey();
    const first = await post({ price_id: own.price_id }, idempotencyKey);
    await api.services.db.update(products).set({ priceActive: false }).where(eq(products.id, own.id));
    const replay = await post({ price_id: own.price_id }, idempotencyKey);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
  });

  it('a key another instance answered, which this process never saw, replays through the create itself: the same session, for a price deactivated since too; another body is 409', async () => {
    const own = await createProduct(api, store.key);
    const body = { price_id: own.price_id };
    const answeredKey = freshKey();
    const first = await post(body, answeredKey);
    expect(first.status).toBe(201);
    // The same create as another instance recorded it, under a key this process has not answered.
    const keyAnsweredElsewhere = async () => {
      const key = freshKey();
      await api.services.db.execute(sql`
        insert into idempotency_keys (store_id, livemode, operation, key, request_hash, resource_id, created_at)
        select store_id, livemode, operation, ${key}, request_hash, resource_id, created_at from idempotency_keys where key = ${answeredKey}`);
      return key;
    };
    const sessions = await sessionCount(store.id);

    const replay = await post(body, await keyAnsweredElsewhere());
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expectError(await post({ ...body, quantity: 2 }, await keyAnsweredElsewhere()), 409, 'idempotency_key_reused');
    await api.services.db.update(products).set({ priceActive: false }).where(eq(products.id, own.id));
    const late = await post(body, await keyAnsweredElsewhere());
    expect(late.status).toBe(200);
    expect(late.body).toEqual(first.body);
    expect(await sessionCount(store.id)).toBe(sessions);
  });

  it('a request that failed leaves the key unused: the corrected request creates', async () => {
    const idempotencyKey = freshKey();
    expectError(await post({ price_id: 'price_test_000000000000000000000000' }, idempotencyKey), 404, 'resource_missing', 'price_id');
    expect((await post({ price_id: product.price_id }, idempotencyKey)).status).toBe(201);
  });

  it('a key is kept 24 hours of the store clock; after that it counts as new', async () => {
    const idempotencyKey = freshKey();
    const body = { price_id: product.price_id };
    const first = await post(body, idempotencyKey);
    api.clock.advance(24 * HOUR - 1);
    expect((await post(body, idempotencyKey)).body.id).toBe(first.body.id);
    expectError(await post({ ...body, quantity: 2 }, idempotencyKey), 409, 'idempotency_key_reused');
    api.clock.advance(2);
    const later = await post({ ...body, quantity: 2 }, idempotencyKey);
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    const [row] = await api.services.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.storeId, store.id), eq(idempotencyKeys.key, idempotencyKey)));
    expect(row).toMatchObject({ livemode: false, operation: 'checkout_session.create', resourceId: later.body.id });
  });

  it('ten identical requests racing with one key create exactly one session; all get the same answer (one 201, nine 200)', async () => {
    const racer = await createStore(api.services);
    const racerProduct = await createProduct(api, racer.keys.sk_test);
    const idempotencyKey = freshKey();
    const body = { price_id: racerProduct.price_id, metadata: { cart: 'c1' } };
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(body, idempotencyKey, racer.keys.sk_test)));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    for (const response of responses) expect(response.body).toEqual(responses[0]!.body);
    expect(await sessionCount(racer.id)).toBe(1);
    expect(await orderCount(racer.id)).toBe(1);
  });

  it('racing requests with one key and different bodies: one creates (201), every other is 409 idempotency_key_reused', async () => {
    const racer = await createStore(api.services);
    const racerProduct = await createProduct(api, racer.keys.sk_test);
    const idempotencyKey = freshKey();
    const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => post({ price_id: racerProduct.price_id, quantity: index + 1 }, idempotencyKey, racer.keys.sk_test)));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((response) => response.status === 409)) expectError(response, 409, 'idempotency_key_reused');
    expect(await sessionCount(racer.id)).toBe(1);
    expect(await orderCount(racer.id)).toBe(1);
  });

  const holdKey = (storeId: string, key: string, settle: 'commit' | 'rollback', whileHeld: () => Promise<void>) =>
    holdIdempotencyKey(api, { storeId, operation: 'checkout_session.create', key, resourceId: 'cs_test_000000000000000000000000' }, settle, whileHeld);

  it('a request whose key is held by a first one that then rolls back waits for it, and creates', async () => {
    const own = await createStore(api.services);
    const ownProduct = await createProduct(api, own.keys.sk_test);
    const idempotencyKey = freshKey();
    let second: Promise<Awaited<ReturnType<typeof post>>> | undefined;
    await holdKey(own.id, idempotencyKey, 'rollback', async () => {
      second = post({ price_id: ownProduct.price_id }, idempotencyKey, own.keys.sk_test);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    const created = await second!;
    expect(created.status).toBe(201);
    expect(await sessionCount(own.id)).toBe(1);
    const [row] = await api.services.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.storeId, own.id), eq(idempotencyKeys.key, idempotencyKey)));
    expect(row).toMatchObject({ resourceId: created.body.id, operation: 'checkout_session.create' });
  });

  it('a request whose key is held by a first one that then commits another body is 409, and writes nothing', async () => {
    const own = await createStore(api.services);
    const ownProduct = await createProduct(api, own.keys.sk_test);
    const idempotencyKey = freshKey();
    let second: Promise<Awaited<ReturnType<typeof post>>> | undefined;
    await holdKey(own.id, idempotencyKey, 'commit', async () => {
      second = post({ price_id: ownProduct.price_id }, idempotencyKey, own.keys.sk_test);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expectError(await second!, 409, 'idempotency_key_reused');
    expect(await sessionCount(own.id)).toBe(0);
    expect(await orderCount(own.id)).toBe(0);
  });

  it('a key sent with an order of several lines claims once: the replay answers the same session and lines', async () => {
    const own = await createStore(api.services);
    const [a, b] = [await createProduct(api, own.keys.sk_test), await createProduct(api, own.keys.sk_test)];
    const idempotencyKey = freshKey();
    const body = { line_items: [{ price_id: a.price_id, quantity: 2 }, { price_id: b.price_id }] };
    const first = await post(body, idempotencyKey, own.keys.sk_test);
    expect(first.status).toBe(201);
    const replay = await post(body, idempotencyKey, own.keys.sk_test);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(await sessionCount(own.id)).toBe(1);
    expect(await orderCount(own.id)).toBe(1);
    const orderId = first.body.order_id;
    const { lines } = await readOrder(api, orderId);
    expect(lines).toEqual([
      {
        id: `${orderId}_l0`,
        orderId,
        position: 0,
        productId: a.id,
        priceId: a.price_id,
        description: 'Ebook',
        quantity: 2,
        unitAmount: 1999,
        amountDiscount: 0,
        amountSubtotal: 3998,
        amountTax: 0,
        amountTotal: 3998,
        taxRate: null,
        taxInclusive: false,
        taxCategory: 'standard',
        hasLicense: false,
        downloadCount: 0,
      },
      {
        id: `${orderId}_l1`,
        orderId,
        position: 1,
        productId: b.id,
        priceId: b.price_id,
        description: 'Ebook',
        quantity: 1,
        unitAmount: 1999,
        amountDiscount: 0,
        amountSubtotal: 1999,
        amountTax: 0,
        amountTotal: 1999,
        taxRate: null,
        taxInclusive: false,
        taxCategory: 'standard',
        hasLicense: false,
        downloadCount: 0,
      },
    ]);
  });

  it('without a key, two identical requests create two sessions', async () => {
    const own = await createStore(api.services);
    const ownProduct = await createProduct(api, own.keys.sk_test);
    const [a, b] = await Promise.all([post({ price_id: ownProduct.price_id }, undefined, own.keys.sk_test), post({ price_id: ownProduct.price_id }, undefined, own.keys.sk_test)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(await sessionCount(own.id)).toBe(2);
  });
});
