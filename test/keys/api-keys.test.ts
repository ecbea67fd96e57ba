import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from '@/server/keys/service';
import { expectApiError } from '../http/helpers';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';

/** Dashboard key management: create, roll with a grace period, revoke; the API's lookup obeys each. */
const api = useTestApi();
const actor = { email: 'dev@example.com', ip: '203.0.113.9', path: '/dashboard/test/api-keys' };
const deps = () => ({ db: api.services.db, clock: api.clock });
const products = (key: string) => api.request('GET', '/api/v1/products', { key });

async function storeScope(livemode = false) {
  const store = await createStore(api.services);
  return { store, scope: { storeId: store.id, livemode } };
}

async function auditOf(storeId: string) {
  return api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, storeId));
}

describe('API keys from the dashboard', () => {
  it('create: a key of the scope’s mode, returned once, listed by its hint only, audited with the person', async () => {
    const { store, scope } = await storeScope();
    const key = await createApiKey(deps(), scope, actor, 'secret');
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect((await products(key)).status).toBe(200);
    const listed = await listApiKeys(api.services.db, scope);
    expect(listed.map((row) => row.hint)).toContain(`sk_test_…${key.slice(-4)}`);
    expect(JSON.stringify(listed)).not.toContain(key);
    const publishable = await createApiKey(deps(), { ...scope, livemode: true }, actor, 'publishable');
    expect(publishable).toMatch(/^pk_live_/);
    // Test mode lists no live key.
    expect((await listApiKeys(api.services.db, scope)).some((row) => row.hint.startsWith('pk_live_'))).toBe(false);
    const audit = await auditOf(store.id);
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'api_key.create',
          keyHint: 'user:dev@example.com',
          livemode: false,
          method: 'POST',
          path: actor.path,
          ip: actor.ip,
          details: { key: `sk_test_…${key.slice(-4)}`, kind: 'secret' },
        }),
      ]),
    );
    expect(JSON.stringify(audit)).not.toContain(key);
  });

  it('roll: the old key works until its expiry, then 401 invalid_api_key; the new key works', async () => {
    const { store, scope } = await storeScope();
    const [old] = (await listApiKeys(api.services.db, scope)).filter((row) => row.hint === `sk_test_…${store.keys.sk_test.slice(-4)}`);
    const rolled = await rollApiKey(deps(), scope, actor, old!.id, 60 * 60);
    expect(rolled).toMatch(/^sk_test_/);
    expect((await products(store.keys.sk_test)).status).toBe(200);
    expect((await products(rolled!)).status).toBe(200);
    const listed = await listApiKeys(api.services.db, scope);
    expect(listed.find((row) => row.id === old!.id)?.expiresAt?.getTime()).toBe(api.clock.now().getTime() + 3600 * 1000);
    // Already rolled: not again.
    expect(await rollApiKey(deps(), scope, actor, old!.id, 0)).toBeUndefined();

    api.clock.advance(60 * 60 + 1);
    expectApiError(await products(store.keys.sk_test), 401, 'invalid_api_key');
    expect((await products(rolled!)).status).toBe(200);
    expect((await auditOf(store.id)).find((entry) => entry.action === 'api_key.roll')?.details).toMatchObject({ key: old!.hint, new_key: `sk_test_…${rolled!.slice(-4)}` });
  });

  it('roll with no grace: the old key stops at once', async () => {
    const { store, scope } = await storeScope(true);
    const [old] = (await listApiKeys(api.services.db, scope)).filter((row) => row.kind === 'secret');
    const rolled = await rollApiKey(deps(), scope, actor, old!.id, 0);
    expect(rolled).toMatch(/^sk_live_/);
    expectApiError(await products(store.keys.sk_live), 401, 'invalid_api_key');
    expect((await products(rolled!)).status).toBe(200);
  });

  it('revoke: 401 invalid_api_key at once; only the scope’s own keys, once', async () => {
    const { store, scope } = await storeScope();
    const other = await storeScope();
    const [secret] = (await listApiKeys(api.services.db, scope)).filter((row) => row.kind === 'secret');
    expect(await revokeApiKey(deps(), other.scope, actor, secret!.id)).toBe(false);
    expect(await revokeApiKey(deps(), { ...scope, livemode: true }, actor, secret!.id)).toBe(false);
    expect(await rollApiKey(deps(), other.scope, actor, secret!.id, 0)).toBeUndefined();
    expect((await products(store.keys.sk_test)).status).toBe(200);

    expect(await revokeApiKey(deps(), scope, actor, secret!.id)).toBe(true);
    expectApiError(await products(store.keys.sk_test), 401, 'invalid_api_key');
    expect(await revokeApiKey(deps(), scope, actor, secret!.id)).toBe(false);
    expect(await rollApiKey(deps(), scope, actor, secret!.id, 0)).toBeUndefined();
    expect((await auditOf(store.id)).filter((entry) => entry.action === 'api_key.revoke')).toHaveLength(1);
    expect((await auditOf(other.store.id)).filter((entry) => entry.action.startsWith('api_key.'))).toHaveLength(0);
  });
});
