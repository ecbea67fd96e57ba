import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditEvents, checkoutSessions } from '@/db/schema';
import { nextIp } from '../http/helpers';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createProduct, epoch, expectError, HOUR, readSessionRow, SESSIONS, T0 } from './api-support';

const api = useTestApi();
type Store = Awaited<ReturnType<typeof createStore>>;
let store: Store;
let product: any;

beforeAll(async () => {
  store = await createStore(api.services);
  product = await createProduct(api, store.keys.sk_test);
});
beforeEach(() => api.clock.set(T0));

async function createSession(body: Record<string, unknown> = {}, withKey = store.keys.sk_test) {
  const response = await api.request('POST', SESSIONS, { key: withKey, body: { price_id: product.price_id, ...body } });
  expect(response.status).toBe(201);
  return response.body;
}
/** `withKey` null sends no key at all. */
const confirm = (id: string, body: unknown, withKey: string | null = store.keys.pk_test) => api.request('POST', `${SESSIONS}/${id}/confirm`, { ...(withKey === null ? {} : { key: withKey }), body });
const setState = (id: string, state: Partial<typeof checkoutSessions.$inferInsert>) => api.services.db.update(checkoutSessions).set(state).where(eq(checkoutSessions.id, id));

describe('POST /api/v1/checkout/sessions/{id}/confirm (key, client secret, environment, session state, in that order)', () => {
  it('an open session with its client secret → 400 three_d_secure_required; nothing changes', async () => {
    const session = await createSession();
    expectError(await confirm(session.id, { client_secret: session.client_secret }), 400, 'three_d_secure_required');
    expect(await readSessionRow(api, session.id)).toMatchObject({ status: 'open', paymentStatus: 'unpaid', attemptCount: 0 });
  });

  it('injected amount fields are ignored', async () => {
    const session = await createSession();
    const response = await confirm(session.id, { client_secret: session.client_secret, amount: 1, amount_total: 1, currency: 'usd', quantity: 100 });
    expectError(response, 400, 'three_d_secure_required');
    expect(await readSessionRow(api, session.id)).toMatchObject({ amountTotal: 1999, amountSubtotal: 1999, quantity: 1 });
  });

  it('the key comes first: none → missing_api_key, unknown → invalid_api_key, a secret key → wrong_key_type', async () => {
    const session = await createSession();
    const body = { client_secret: session.client_secret };
    expectError(await confirm(session.id, body, null), 401, 'missing_api_key');
    expectError(await confirm(session.id, body, `pk_test_${'x'.repeat(32)}`), 401, 'invalid_api_key');
    expectError(await confirm(session.id, body, store.keys.sk_test), 401, 'wrong_key_type');
    expectError(await confirm(session.id, { client_secret: 'wrong' }, store.keys.sk_test), 401, 'wrong_key_type');
  });

  it('a wrong client secret, another session’s, or an unknown session id → 401 invalid_client_secret', async () => {
    const session = await createSession();
    const other = await createSession();
    expectError(await confirm(session.id, { client_secret: `${session.id}_secret_wrong` }), 401, 'invalid_client_secret', 'client_secret');
    expectError(await confirm(session.id, { client_secret: other.client_secret }), 401, 'invalid_client_secret', 'client_secret');
    expectError(await confirm('cs_test_000000000000000000000000', { client_secret: session.client_secret }), 401, 'invalid_client_secret', 'client_secret');
  });

  it('another store’s session, even with its own secret → 401 invalid_client_secret', async () => {
    const other = await createStore(api.services);
    const otherProduct = await createProduct(api, other.keys.sk_test);
    const theirs = await createSession({ price_id: otherProduct.price_id }, other.keys.sk_test);
    expectError(await confirm(theirs.id, { client_secret: theirs.client_secret }), 401, 'invalid_client_secret', 'client_secret');
  });

  it('the right secret with the publishable key of the other environment → 401 environment_mismatch', async () => {
    const session = await createSession();
    expectError(await confirm(session.id, { client_secret: session.client_secret }, store.keys.pk_live), 401, 'environment_mismatch');
    // The secret is checked first: a wrong one is invalid_client_secret whatever the environment.
    expectError(await confirm(session.id, { client_secret: 'nope' }, store.keys.pk_live), 401, 'invalid_client_secret', 'client_secret');
  });

  it('invalid_client_secret and environment_mismatch are audited as authentication failures, without the secret', async () => {
    const session = await createSession();
    const send = async (body: unknown, key: string) => {
      const ip = nextIp();
      await api.request('POST', `${SESSIONS}/${session.id}/confirm`, { key, body, headers: { 'x-forwarded-for': ip } });
      return api.services.db.select().from(auditEvents).where(eq(auditEvents.ip, ip));
    };
    const wrongSecret = await send({ client_secret: `${session.id}_secret_guess` }, store.keys.pk_test);
    expect(wrongSecret).toEqual([
      expect.objectContaining({ action: 'auth.failed', code: 'invalid_client_secret', storeId: store.id, livemode: false, method: 'POST', path: `${SESSIONS}/${session.id}/confirm` }),
    ]);
    const mismatch = await send({ client_secret: session.client_secret }, store.keys.pk_live);
    expect(mismatch).toEqual([expect.objectContaining({ action: 'auth.failed', code: 'environment_mismatch', storeId: store.id, livemode: true })]);
    expect(JSON.stringify([...wrongSecret, ...mismatch])).not.toContain(session.client_secret);
  });

  it('an expired session → 400 session_expired (before a failed payment)', async () => {
    const session = await createSession({ expires_at: epoch(T0) + HOUR });
    api.clock.advance(HOUR);
    expectError(await confirm(session.id, { client_secret: session.client_secret }), 400, 'session_expired');
    await setState(session.id, { paymentStatus: 'failed' });
    expectError(await confirm(session.id, { client_secret: session.client_secret }), 400, 'session_expired');
  });

  it('a complete session → 409 session_already_complete', async () => {
    const session = await createSession();
    await setState(session.id, { status: 'complete', paymentStatus: 'paid' });
    expectError(await confirm(session.id, { client_secret: session.client_secret }), 409, 'session_already_complete');
  });

  it('after a declined attempt → 409 session_payment_failed', async () => {
    const session = await createSession();
    await setState(session.id, { paymentStatus: 'failed', failureCode: 'card_declined' });
    expectError(await confirm(session.id, { client_secret: session.client_secret }), 409, 'session_payment_failed');
  });

  it('a missing or non-string client_secret → 400 parameter_invalid', async () => {
    const session = await createSession();
    expectError(await confirm(session.id, {}), 400, 'parameter_invalid', 'client_secret');
    expectError(await confirm(session.id, { client_secret: 12 }), 400, 'parameter_invalid', 'client_secret');
  });
});
