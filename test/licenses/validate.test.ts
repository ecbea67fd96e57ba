import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { licenseKeys, licenseValidations, products } from '@/db/schema';
import { GatewayRejectedError, GatewayTimeoutError, type PaymentGateway } from '@/server/gateway/types';
import { payCheckoutSession } from '@/server/payments/service';
import { reconcilePendingRefunds } from '@/server/orders/refunds/reconcile';
import { createRefund } from '@/server/orders/refunds/service';
import { OPERATOR } from '@/server/audit/service';
import { declareWithdrawal } from '@/server/orders/withdrawals/service';
import { validCard } from '../payments/support';
import { expectError } from '../products/support';
import { actingAs, formKey, person } from '../support/dashboard';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { epoch, insertOrder, T0 } from '../orders/fixtures';

const api = useTestApi();
const store = useTestStore(api);

const VALIDATE = '/api/v1/licenses/validate';
const validate = (body: unknown, withKey = store.key) => api.request('POST', VALIDATE, { key: withKey, body });

async function licensedOrder(options: { livemode?: boolean } = {}) {
  const withKey = options.livemode ? store.keys.sk_live : store.key;
  const created = await api.request('POST', '/api/v1/products', { key: withKey, body: { name: 'App', amount: 4900 } });
  expect(created.status).toBe(201);
  const order = await insertOrder(api, store, { livemode: options.livemode, lines: [{ productId: created.body.id, licenseKeys: 1 }] });
  return { product: created.body, order, licenseKey: order.licenseKeys[0]! };
}

const notFound = (licenseKey: string, livemode = false) => ({
  object: 'license_key_validation',
  livemode,
  valid: false,
  key: licenseKey,
  status: 'not_found',
  reason: 'not_found',
  product_id: null,
  order_id: null,
  created: null,
  revoked_at: null,
});

/** A revoked key's validation, every field (`product_id` null once its product is deleted). */
const revoked = (licenseKey: string, productId: string | null, orderId: string, at: number) => ({
  object: 'license_key_validation',
  livemode: false,
  valid: false,
  key: licenseKey,
  status: 'revoked',
  reason: 'revoked',
  product_id: productId,
  order_id: orderId,
  created: epoch(T0),
  revoked_at: at,
});

describe('POST /api/v1/licenses/validate', () => {
  it('an issued key of this store and mode → 200 valid true, every field', async () => {
    const { product, order, licenseKey } = await licensedOrder();
    const response = await validate({ key: licenseKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'license_key_validation',
      livemode: false,
      valid: true,
      key: licenseKey,
      status: 'active',
      reason: null,
      product_id: product.id,
      order_id: order.id,
      created: epoch(T0),
      revoked_at: null,
    });
  });

  it('case and surrounding spaces are ignored: the key as typed by a customer validates', async () => {
    const { licenseKey } = await licensedOrder();
    const response = await validate({ key: `  ${licenseKey.toLowerCase()}\n` });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ valid: true, key: licenseKey, status: 'active' });
  });

  it('an unknown key → 200 valid false, never 404', async () => {
    const response = await validate({ key: 'LK-AAAAA-BBBBB-CCCCC-DDDDD' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(notFound('LK-AAAAA-BBBBB-CCCCC-DDDDD'));
  });

  it('another store’s key and the other environment’s key answer exactly like an unknown key', async () => {
    const other = await createStore(api.services);
    const { licenseKey } = await licensedOrder();
    const live = await licensedOrder({ livemode: true });
    expect((await validate({ key: licenseKey }, other.keys.sk_test)).body).toEqual(notFound(licenseKey));
    expect((await validate({ key: licenseKey }, store.keys.sk_live)).body).toEqual(notFound(licenseKey, true));
    expect((await validate({ key: live.licenseKey }, store.key)).body).toEqual(notFound(live.licenseKey));
    // The live key validates with the live secret key.
    expect((await validate({ key: live.licenseKey }, store.keys.sk_live)).body).toMatchObject({ valid: true, livemode: true });
  });

  it('force-deleting the product revokes its keys: the next validation is valid false, status revoked', async () => {
    const { order, licenseKey } = await licensedOrder();
    const product = (await validate({ key: licenseKey })).body.product_id;
    api.clock.advance(120);
    expect((await api.request('DELETE', `/api/v1/products/${product}?force=true`, { key: store.key })).status).toBe(200);
    const response = await validate({ key: licenseKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(revoked(licenseKey, null, order.id, epoch(T0) + 120));
  });

  it('force-deleting revokes keys on the store’s test clock: revoked_at follows advance_clock, never before the key’s created', async () => {
    const own = await createStore(api.services);
    const key = own.keys.sk_test;
    const advance = async (seconds: number) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } })).status).toBe(200);
    const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'App', amount: 4900 } });
    expect(created.status).toBe(201);
    // The operator's product:attach-license.
    await api.services.db.update(products).set({ hasLicense: true }).where(eq(products.id, created.body.id));
    await advance(3600);
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { price_id: created.body.price_id, customer_email: 'buyer@example.com' } });
    expect(session.status).toBe(201);
    expect(await payCheckoutSession(api.services, { sessionId: session.body.id, card: validCard() })).toMatchObject({ status: 'paid' });
    const [licenseKey] = (await api.request('GET', `/api/v1/orders/${session.body.order_id}`, { key })).body.license_keys;
    await advance(7200);
    expect((await api.request('DELETE', `/api/v1/products/${created.body.id}?force=true`, { key })).status).toBe(200);
    const response = await validate({ key: licenseKey }, key);
    expect(response.body).toMatchObject({ status: 'revoked', created: epoch(T0) + 3600, revoked_at: epoch(T0) + 3600 + 7200 });
  });

  it.each([
    ['a missing key', {}, 'key'],
    ['an empty key', { key: '' }, 'key'],
    ['a number', { key: 12345 }, 'key'],
    ['a key over 64 characters', { key: 'LK-'.padEnd(65, 'A') }, 'key'],
    ['an unknown field', { key: 'LK-AAAAA-BBBBB-CCCCC-DDDDD', product_id: 'prod_x' }, 'product_id'],
  ])('%s → 400 parameter_invalid', async (_name, body, param) => {
    expectError(await validate(body), 400, 'parameter_invalid', param);
  });

  it('without a key → 401 missing_api_key; with a publishable key → 401 wrong_key_type', async () => {
    const { licenseKey } = await licensedOrder();
    expectError(await api.request('POST', VALIDATE, { body: { key: licenseKey } }), 401, 'missing_api_key');
    expectError(await validate({ key: licenseKey }, store.keys.pk_test), 401, 'wrong_key_type');
  });
});

describe('each validation of a key found is recorded', () => {
  /** The validations recorded of `licenseKey`, oldest first. */
  const recordedOf = (licenseKey: string) =>
    api.services.db
      .select({ validation: licenseValidations, keyId: licenseKeys.id })
      .from(licenseValidations)
      .innerJoin(licenseKeys, eq(licenseKeys.id, licenseValidations.licenseKeyId))
      .where(eq(licenseKeys.key, licenseKey))
      .orderBy(asc(licenseValidations.createdAt));

  it('with its result (active, then revoked) and the time on the store’s test clock; a key not found records nothing', async () => {
    const own = await createStore(api.services);
    const key = own.keys.sk_test;
    const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'App', amount: 4900 } });
    const order = await insertOrder(api, own, { lines: [{ productId: created.body.id, licenseKeys: 1 }] });
    const licenseKey = order.licenseKeys[0]!;
    expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds: 3600 } })).status).toBe(200);
    expect((await validate({ key: licenseKey }, key)).body.status).toBe('active');
    expect((await validate({ key: ` ${licenseKey.toLowerCase()}` }, key)).body.status).toBe('active');
    expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds: 60 } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/products/${created.body.id}?force=true`, { key })).status).toBe(200);
    expect((await validate({ key: licenseKey }, key)).body.status).toBe('revoked');
    // Not found: with another store's key, the other environment's, and an unknown key.
    expect((await validate({ key: licenseKey }, store.key)).body.status).toBe('not_found');
    expect((await validate({ key: licenseKey }, own.keys.sk_live)).body.status).toBe('not_found');
    expect((await validate({ key: 'LK-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ' }, key)).body.status).toBe('not_found');

    const recorded = await recordedOf(licenseKey);
    const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
    expect(recorded.map(({ validation, keyId }) => ({ ...validation, id: validation.id.slice(0, 8), keyId }))).toEqual(
      [
        ['active', at(3600)],
        ['active', at(3600)],
        ['revoked', at(3660)],
      ].map(([result, createdAt]) => ({ id: 'lv_test_', storeId: own.id, livemode: false, licenseKeyId: recorded[0]!.keyId, orderId: order.id, result, createdAt, keyId: recorded[0]!.keyId })),
    );
    expect(new Set(recorded.map(({ validation }) => validation.id)).size).toBe(3);
    expect(await api.services.db.$count(licenseValidations, eq(licenseValidations.storeId, own.id))).toBe(3);
  });

  it('a live key validated with the live secret key: recorded in live mode', async () => {
    const { order, licenseKey } = await licensedOrder({ livemode: true });
    expect((await validate({ key: licenseKey }, store.keys.sk_live)).body.status).toBe('active');
    expect((await recordedOf(licenseKey)).map(({ validation }) => [validation.id.slice(0, 8), validation.livemode, validation.orderId, validation.result, validation.createdAt])).toEqual([
      ['lv_live_', true, order.id, 'active', T0],
    ]);
  });
});

describe('a refund that completes the order’s refund revokes its keys', () => {
  const scope = () => ({ storeId: store.id, livemode: false });

  async function twoLicensedLines(email: string) {
    const product = async (name: string) => (await api.request('POST', '/api/v1/products', { key: store.key, body: { name, amount: 1000 } })).body;
    const [app, plugin] = [await product('App'), await product('Plugin')];
    const order = await insertOrder(api, store, {
      customerEmail: email,
      lines: [
        { productId: app.id, unitAmount: 1000, licenseKeys: 1 },
        { productId: plugin.id, unitAmount: 1000, licenseKeys: 1 },
      ],
    });
    return { order, products: [app.id as string, plugin.id as string], keys: order.licenseKeys };
  }

  it('POST /refunds: partial refunds, even one covering a line’s amount, keep every key; the refund of the rest revokes all, and the order still lists them', async () => {
    const {
      order,
      products: [app, plugin],
      keys,
    } = await twoLicensedLines('full-refund@example.com');
    const first = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id, amount: 1000 } });
    expect(first.body.status).toBe('succeeded');
    for (const licenseKey of keys) expect((await validate({ key: licenseKey })).body).toMatchObject({ valid: true, status: 'active', revoked_at: null });

    api.clock.advance(60);
    const rest = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id } });
    expect(rest.body.status).toBe('succeeded');
    expect((await validate({ key: keys[0]! })).body).toEqual(revoked(keys[0]!, app!, order.id, epoch(T0) + 60));
    expect((await validate({ key: keys[1]! })).body).toEqual(revoked(keys[1]!, plugin!, order.id, epoch(T0) + 60));
    const read = await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key });
    expect(read.body).toMatchObject({ status: 'refunded', license_keys: keys });
    const event = (await api.request('GET', `/api/v1/events?type=order.refunded&object_id=${order.id}&limit=1`, { key: store.key })).body.data[0];
    expect(event.data.object.license_keys).toEqual(keys);
  });

  it('a withdrawal refunded from the dashboard: the keys are revoked with the withdrawal settled', async () => {
    const {
      order,
      products: [app],
      keys,
    } = await twoLicensedLines('withdrawn@example.com');
    await declareWithdrawal({ db: api.services.db, clock: api.clock }, { orderId: order.id, email: 'withdrawn@example.com', name: 'Withdrawn', reason: null });
    api.clock.advance(30);
    const ctx = await actingAs(api.services, scope(), person({ email: 'owner@example.com', ip: '203.0.113.9', path: '/dashboard/act/refund' }));
    const input = { order_id: order.id };
    const refund = await createRefund({ ...ctx, gateway: ctx.gateways.test }, scope(), input, formKey('withdrawal-refund-1', input));
    expect(refund.status).toBe('succeeded');
    const read = (await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.key })).body;
    expect(read.withdrawal.status).toBe('refunded');
    expect(read.license_keys).toEqual(keys);
    expect((await validate({ key: keys[0]! })).body).toEqual(revoked(keys[0]!, app!, order.id, epoch(T0) + 30));
    expect((await validate({ key: keys[1]! })).body).toMatchObject({ valid: false, status: 'revoked' });
  });

  it('a refund the gateway answered late: valid while pending, revoked when the reconciler records its success', async () => {
    const { order, keys } = await twoLicensedLines('late-refund@example.com');
    const simulator = api.services.gateways.test;
    const answerLost: PaymentGateway = {
      ...simulator,
      refund: async (request) => {
        await simulator.refund(request);
        throw new GatewayTimeoutError();
      },
    };
    const error = await createRefund({ db: api.services.db, clock: api.clock, wallClock: api.clock, gateway: answerLost, actor: OPERATOR }, scope(), { order_id: order.id }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'payment_outcome_unknown' });
    expect((await validate({ key: keys[0]! })).body).toMatchObject({ valid: true, status: 'active' });

    api.clock.advance(120);
    expect(await reconcilePendingRefunds({ db: api.services.db, clock: api.clock, gateways: api.services.gateways })).toBeGreaterThanOrEqual(1);
    for (const licenseKey of keys) expect((await validate({ key: licenseKey })).body).toMatchObject({ valid: false, status: 'revoked', revoked_at: epoch(T0) + 120 });
  });

  it('a refund that failed moved no money: the keys stay valid', async () => {
    const { order, keys } = await twoLicensedLines('failed-refund@example.com');
    const refusing: PaymentGateway = {
      ...api.services.gateways.test,
      refund: async () => {
        throw new GatewayRejectedError('refused');
      },
    };
    const refund = await createRefund({ db: api.services.db, clock: api.clock, wallClock: api.clock, gateway: refusing, actor: OPERATOR }, scope(), { order_id: order.id });
    expect(refund.status).toBe('failed');
    for (const licenseKey of keys) expect((await validate({ key: licenseKey })).body).toMatchObject({ valid: true, status: 'active', revoked_at: null });
  });
});
