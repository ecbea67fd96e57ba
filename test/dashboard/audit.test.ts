import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { listAuditEntries } from '@/server/dashboard/audit';
import { ApiError } from '@/server/errors';
import { createStore } from '@/server/stores/service';
import { createTestDatabase } from '../support/database';

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(() => database.close());

const at = (time: string) => new Date(`2026-05-${time}Z`);

/** A store with a small trail: test, live and store-wide entries, two at the very same instant. */
async function storeWithTrail() {
  const store = await createStore(database.db, { name: 'Audited' });
  const other = await createStore(database.db, { name: 'Other' });
  const rows = [
    { action: 'refund.create', livemode: false, keyHint: 'user:sam@example.com', createdAt: at('01T10:00:00') },
    { action: 'refund.create', livemode: true, keyHint: 'sk_live_…abcd', createdAt: at('01T11:00:00') },
    { action: 'team.invite', livemode: null, keyHint: 'user:ann@example.com', createdAt: at('02T09:00:00') },
    { action: 'product.create', livemode: false, keyHint: 'sk_test_…wxyz', createdAt: at('02T12:00:00') },
    { action: 'refund_x.create', livemode: false, keyHint: 'sk_test_…wxyz', createdAt: at('02T12:00:00') },
    { action: 'refund.create', livemode: false, keyHint: 'sk_test_…wxyz', createdAt: at('03T08:30:00') },
  ];
  const inserted = await database.db
    .insert(auditEvents)
    .values(rows.map((row) => ({ ...row, storeId: store.id, ip: '203.0.113.1', method: 'POST', path: '/api/v1/refunds', details: { n: 1 } })))
    .returning({ id: auditEvents.id });
  const ids = inserted.map((row) => row.id);
  const [foreign] = await database.db
    .insert(auditEvents)
    .values({ action: 'refund.create', storeId: other.id, livemode: false, keyHint: 'user:sam@example.com', createdAt: at('03T09:00:00') })
    .returning({ id: auditEvents.id });
  return { test: { storeId: store.id, livemode: false }, live: { storeId: store.id, livemode: true }, ids, foreignId: foreign!.id };
}

const actions = (page: { data: { action: string }[] }) => page.data.map((entry) => entry.action);

describe('dashboard audit log', () => {
  it('7 a mode’s page: its entries and the store-wide ones (no mode), newest first, never another mode’s or store’s; every field', async () => {
    const { test, live, ids } = await storeWithTrail();
    const page = await listAuditEntries(database.db, test, { limit: 50 });
    // Two entries at one instant: the later id first.
    expect(page.data.map((entry) => entry.id)).toEqual([ids[5], ids[4], ids[3], ids[2], ids[0]]);
    expect(page.has_more).toBe(false);
    expect(page.data[0]).toEqual({
      id: ids[5],
      action: 'refund.create',
      code: null,
      who: 'sk_test_…wxyz',
      livemode: false,
      ip: '203.0.113.1',
      method: 'POST',
      path: '/api/v1/refunds',
      details: { n: 1 },
      created: Date.parse('2026-05-03T08:30:00Z') / 1000,
    });
    expect(page.data.find((entry) => entry.action === 'team.invite')?.livemode).toBeNull();
    expect((await listAuditEntries(database.db, live, { limit: 50 })).data.map((entry) => entry.id)).toEqual([ids[2], ids[1]]);
  });

  it('7 keyset pages on (created_at, id): pages of 2 walk every entry once, ties included', async () => {
    const { test, ids } = await storeWithTrail();
    const seen: number[] = [];
    let startingAfter: number | undefined;
    for (;;) {
      const page = await listAuditEntries(database.db, test, { limit: 2, startingAfter });
      seen.push(...page.data.map((entry) => entry.id));
      if (!page.has_more) break;
      startingAfter = page.data.at(-1)!.id;
    }
    expect(seen).toEqual([ids[5], ids[4], ids[3], ids[2], ids[0]]);
  });

  it('7 an entry of another store as the cursor is resource_missing', async () => {
    const { test, foreignId } = await storeWithTrail();
    const error = await listAuditEntries(database.db, test, { limit: 2, startingAfter: foreignId }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('resource_missing');
  });

  it('7 filters: action exact or a prefix ending in a dot (LIKE wildcards typed are literal), who acted, created range inclusive', async () => {
    const { test, ids } = await storeWithTrail();
    expect(actions(await listAuditEntries(database.db, test, { action: 'refund.create', limit: 50 }))).toEqual(['refund.create', 'refund.create']);
    expect(actions(await listAuditEntries(database.db, test, { action: 'refund.', limit: 50 }))).toEqual(['refund.create', 'refund.create']);
    expect(actions(await listAuditEntries(database.db, test, { action: 'refund', limit: 50 }))).toEqual([]);
    expect(actions(await listAuditEntries(database.db, test, { action: 'refund_x.', limit: 50 }))).toEqual(['refund_x.create']);
    expect(actions(await listAuditEntries(database.db, test, { action: 'team.', limit: 50 }))).toEqual(['team.invite']);
    expect((await listAuditEntries(database.db, test, { actor: 'user:sam@example.com', limit: 50 })).data.map((entry) => entry.id)).toEqual([ids[0]]);
    expect((await listAuditEntries(database.db, test, { actor: 'sk_test_…wxyz', action: 'refund.', limit: 50 })).data.map((entry) => entry.id)).toEqual([ids[5]]);
    const day2 = { createdGte: Date.parse('2026-05-02T00:00:00Z') / 1000, createdLte: Date.parse('2026-05-02T12:00:00Z') / 1000 };
    expect((await listAuditEntries(database.db, test, { ...day2, limit: 50 })).data.map((entry) => entry.id)).toEqual([ids[4], ids[3], ids[2]]);
  });
});
