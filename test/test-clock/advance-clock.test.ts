import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stores } from '@/db/schema';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createProduct, epoch, expectError, HOUR, readSessionRow, SESSIONS, T0 } from '../checkout/api-support';

const ADVANCE = '/api/v1/test_helpers/advance_clock';
const DAY = 24 * HOUR;
const FIVE_YEARS = 5 * 365 * DAY;
const api = useTestApi();
type Store = Awaited<ReturnType<typeof createStore>>;

beforeEach(() => api.clock.set(T0));

const advance = (key: string | null, body: unknown) => api.request('POST', ADVANCE, { ...(key === null ? {} : { key }), body });

async function createSession(key: string, body: Record<string, unknown> = {}) {
  const product = await createProduct(api, key);
  const response = await api.request('POST', SESSIONS, { key, body: { price_id: product.price_id, ...body } });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /api/v1/test_helpers/advance_clock', () => {
  let store: Store;
  beforeAll(async () => {
    store = await createStore(api.services);
  });

  it('moves the store’s test clock forward and answers { object: "test_clock", now }; moves add up', async () => {
    const own = await createStore(api.services);
    const first = await advance(own.keys.sk_test, { seconds: HOUR });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ object: 'test_clock', now: epoch(T0) + HOUR });
    const second = await advance(own.keys.sk_test, { seconds: 30 });
    expect(second.body).toEqual({ object: 'test_clock', now: epoch(T0) + HOUR + 30 });
    const [row] = await api.services.db.select({ offset: stores.testClockOffsetSeconds }).from(stores).where(eq(stores.id, own.id));
    expect(row?.offset).toBe(HOUR + 30);
  });

  it('concurrent moves of one store all count', async () => {
    const own = await createStore(api.services);
    const responses = await Promise.all(Array.from({ length: 5 }, () => advance(own.keys.sk_test, { seconds: 10 })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(responses.map((response) => response.body.now).sort()).toEqual([10, 20, 30, 40, 50].map((seconds) => epoch(T0) + seconds));
  });

  it('a live secret key → 403 test_mode_only, and the clock does not move', async () => {
    const own = await createStore(api.services);
    expectError(await advance(own.keys.sk_live, { seconds: 60 }), 403, 'test_mode_only');
    const [row] = await api.services.db.select({ offset: stores.testClockOffsetSeconds }).from(stores).where(eq(stores.id, own.id));
    expect(row?.offset).toBe(0);
  });

  it('no key → 401 missing_api_key; a publishable key → 401 wrong_key_type', async () => {
    expectError(await advance(null, { seconds: 60 }), 401, 'missing_api_key');
    expectError(await advance(store.keys.pk_test, { seconds: 60 }), 401, 'wrong_key_type');
    expectError(await advance(store.keys.pk_live, { seconds: 60 }), 401, 'wrong_key_type');
  });

  it.each([0, -1, 1.5, '60', null, FIVE_YEARS + 1])('seconds %j → 400 parameter_invalid', async (seconds) => {
    expectError(await advance(store.keys.sk_test, { seconds }), 400, 'parameter_invalid', 'seconds');
  });

  it('the clock runs at most 5 × 365 days ahead of the real time: a move past that → 400 parameter_invalid naming seconds, and nothing changes', async () => {
    const own = await createStore(api.services);
    const offset = async () => (await api.services.db.select({ offset: stores.testClockOffsetSeconds }).from(stores).where(eq(stores.id, own.id)))[0]?.offset;
    const fourYears = 4 * 365 * DAY;
    expect((await advance(own.keys.sk_test, { seconds: fourYears })).body).toEqual({ object: 'test_clock', now: epoch(T0) + fourYears });
    const refused = await advance(own.keys.sk_test, { seconds: 2 * 365 * DAY });
    expectError(refused, 400, 'parameter_invalid', 'seconds');
    expect(refused.body.error.message).toContain('5 × 365 days');
    expect(await offset()).toBe(fourYears);
    // Up to the bound exactly, then not a second past it, however the real time has moved meanwhile.
    expect((await advance(own.keys.sk_test, { seconds: FIVE_YEARS - fourYears })).body).toEqual({ object: 'test_clock', now: epoch(T0) + FIVE_YEARS });
    api.clock.advance(DAY);
    expectError(await advance(own.keys.sk_test, { seconds: 1 }), 400, 'parameter_invalid', 'seconds');
    expect(await offset()).toBe(FIVE_YEARS);
    // Other stores keep their own allowance.
    expect((await advance(store.keys.sk_test, { seconds: 60 })).status).toBe(200);
  });

  it('seconds is required, and nothing else is accepted', async () => {
    expectError(await advance(store.keys.sk_test, {}), 400, 'parameter_invalid', 'seconds');
    expectError(await advance(store.keys.sk_test, { seconds: 60, to: 5 }), 400, 'parameter_invalid', 'to');
  });

  it('sessions that fall due expire before the answer, without a read', async () => {
    const own = await createStore(api.services);
    const due = await createSession(own.keys.sk_test, { expires_at: epoch(T0) + HOUR });
    const later = await createSession(own.keys.sk_test, { expires_at: epoch(T0) + 2 * HOUR });
    const live = await createSession(own.keys.sk_live, { expires_at: epoch(T0) + HOUR });
    const other = await createStore(api.services);
    const othersDue = await createSession(other.keys.sk_test, { expires_at: epoch(T0) + HOUR });
    await advance(own.keys.sk_test, { seconds: HOUR });
    expect((await readSessionRow(api, due.id))?.status).toBe('expired');
    expect((await readSessionRow(api, later.id))?.status).toBe('open');
    // Only this store's test mode moved: live mode and other stores keep wall time.
    expect((await readSessionRow(api, live.id))?.status).toBe('open');
    expect((await readSessionRow(api, othersDue.id))?.status).toBe('open');
  });

  it('every test-mode timestamp of the store reads the moved clock; live mode and other stores do not', async () => {
    const own = await createStore(api.services);
    await advance(own.keys.sk_test, { seconds: 2 * HOUR });
    const test = await createSession(own.keys.sk_test);
    expect(test.created).toBe(epoch(T0) + 2 * HOUR);
    expect(test.expires_at).toBe(epoch(T0) + 26 * HOUR);
    const live = await createSession(own.keys.sk_live);
    expect(live.created).toBe(epoch(T0));
    const other = await createStore(api.services);
    expect((await createSession(other.keys.sk_test)).created).toBe(epoch(T0));
    // A session read through the API expires on the store clock too.
    const soon = await createSession(own.keys.sk_test, { expires_at: epoch(T0) + 2 * HOUR + 30 * 60 });
    await advance(own.keys.sk_test, { seconds: 30 * 60 });
    const read = await api.request('GET', `${SESSIONS}/${soon.id}`, { key: own.keys.sk_test });
    expect(read.body).toMatchObject({ status: 'expired', url: null });
  });
});
