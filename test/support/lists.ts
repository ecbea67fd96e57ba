import { describe, expect, it } from 'vitest';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from './api';
import { createStore } from './factories';
import type { TestApi } from './server';

/**
 * What every list answers alike (limit, newest-first order, starting_after, the created range,
 * tenancy), run against one list. Each test makes its own store, so counts are exact.
 */

export type Store = Awaited<ReturnType<typeof createStore>>;

export interface ListedKind {
  /** `/api/v1/orders` */
  path: string;
  /**
   * Makes one item in `store` at the test clock's now (in live mode when asked) and answers it
   * as its single-object read does.
   */
  make(store: Store, options: { livemode: boolean }): Promise<{ id: string }>;
  /** The item's time field, which `created_gte`/`created_lte` read: `created` unless named (invoices: `issued_at`). */
  createdField?: string;
}

type Response = { status: number; body: any; headers: Headers };

export function listOf(api: TestApi, path: string, key: string, query = ''): Promise<Response> {
  return api.request('GET', `${path}${query === '' ? '' : `?${query}`}`, { key });
}

/** Follows `starting_after` until `has_more` is false; answers every page. */
export async function allPages(api: TestApi, path: string, key: string, query: string) {
  const pages = [];
  let cursor: string | undefined;
  for (;;) {
    const response = await listOf(api, path, key, [query, cursor ? `starting_after=${cursor}` : ''].filter(Boolean).join('&'));
    expect(response.status).toBe(200);
    pages.push(response.body);
    if (!response.body.has_more) return pages;
    cursor = response.body.data.at(-1).id;
  }
}

/** `count` items one second apart from T0; answered newest first, as the list orders them. */
export async function makeSeries(api: TestApi, kind: ListedKind, store: Store, count: number, options: { livemode?: boolean; stepSeconds?: number } = {}) {
  api.clock.set(T0);
  const made = [];
  for (let i = 0; i < count; i += 1) {
    made.push(await kind.make(store, { livemode: options.livemode ?? false }));
    api.clock.advance(options.stepSeconds ?? 1);
  }
  return made.reverse();
}

/** The list contract, as a `describe` of its own. */
export function describeListContract(api: TestApi, kind: ListedKind): void {
  const { path } = kind;
  const envelope = (data: unknown[], hasMore: boolean, livemode = false) => ({ object: 'list', data, has_more: hasMore, url: path, livemode });

  describe(`GET ${path}: the list contract`, () => {
    it('answers the envelope, 10 items by default, newest first, each as its single read answers it', async () => {
      const store = await createStore(api.services);
      const items = await makeSeries(api, kind, store, 12);
      const response = await listOf(api, path, store.keys.sk_test);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(envelope(items.slice(0, 10), true));
      expect(response.body.data.map((item: Record<string, number>) => item[kind.createdField ?? 'created'])).toEqual(items.slice(0, 10).map((_, i) => epoch(T0) + 11 - i));
      const empty = await createStore(api.services);
      expect((await listOf(api, path, empty.keys.sk_test)).body).toEqual(envelope([], false));
    });

    it('limit is 1–100: 0, 101, a fraction and a word are 400 parameter_invalid naming limit', async () => {
      const store = await createStore(api.services);
      const items = await makeSeries(api, kind, store, 2);
      for (const limit of ['0', '101', '-1', '1.5', 'ten']) {
        expectError(await listOf(api, path, store.keys.sk_test, `limit=${limit}`), 400, 'parameter_invalid', 'limit');
      }
      expect((await listOf(api, path, store.keys.sk_test, 'limit=1')).body).toEqual(envelope(items.slice(0, 1), true));
      expect((await listOf(api, path, store.keys.sk_test, 'limit=100')).body).toEqual(envelope(items, false));
    });

    it('pages with starting_after over more than two pages; the last page says has_more false', async () => {
      const store = await createStore(api.services);
      const items = await makeSeries(api, kind, store, 7);
      const pages = await allPages(api, path, store.keys.sk_test, 'limit=3');
      expect(pages.map((page) => [page.data.length, page.has_more])).toEqual([
        [3, true],
        [3, true],
        [1, false],
      ]);
      expect(pages.flatMap((page) => page.data)).toEqual(items);
      const afterLast = await listOf(api, path, store.keys.sk_test, `starting_after=${items.at(-1)!.id}`);
      expect(afterLast.body).toEqual(envelope([], false));
    });

    it('items of the same second are ordered by id, descending, across pages', async () => {
      const store = await createStore(api.services);
      const items = await makeSeries(api, kind, store, 5, { stepSeconds: 0 });
      const byId = [...items].sort((a, b) => (a.id < b.id ? 1 : -1));
      const pages = await allPages(api, path, store.keys.sk_test, 'limit=2');
      expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
      expect(pages.flatMap((page) => page.data)).toEqual(byId);
    });

    it('an unknown cursor, one of another store and one of the other environment answer the identical 404 naming starting_after', async () => {
      const store = await createStore(api.services);
      await makeSeries(api, kind, store, 2);
      const [live] = await makeSeries(api, kind, store, 1, { livemode: true });
      const other = await createStore(api.services);
      const [foreign] = await makeSeries(api, kind, other, 1);
      const unknown = `${foreign!.id.slice(0, -4)}zzzz`;
      const responses = await Promise.all([unknown, foreign!.id, live!.id].map((cursor) => rawApiRequest(api, 'GET', `${path}?starting_after=${cursor}`, store.keys.sk_test)));
      expectIdenticalMissing(responses, 'starting_after');
    });

    it('created_gte and created_lte are inclusive epoch seconds; a bad value is 400 naming the parameter', async () => {
      const store = await createStore(api.services);
      const items = await makeSeries(api, kind, store, 6);
      const at = (offset: number) => epoch(T0) + offset;
      expect((await listOf(api, path, store.keys.sk_test, `created_gte=${at(2)}&created_lte=${at(4)}`)).body).toEqual(envelope(items.slice(1, 4), false));
      expect((await listOf(api, path, store.keys.sk_test, `created_gte=${at(5)}`)).body).toEqual(envelope(items.slice(0, 1), false));
      expect((await listOf(api, path, store.keys.sk_test, `created_lte=${at(0)}`)).body).toEqual(envelope(items.slice(5), false));
      expect((await listOf(api, path, store.keys.sk_test, `created_gte=${at(4)}&created_lte=${at(3)}`)).body).toEqual(envelope([], false));
      const page = await listOf(api, path, store.keys.sk_test, `created_lte=${at(4)}&limit=2&starting_after=${items[2]!.id}`);
      expect(page.body).toEqual(envelope(items.slice(3, 5), true));
      for (const param of ['created_gte', 'created_lte']) {
        for (const value of ['yesterday', '-1', '1.5', '99999999999999']) {
          expectError(await listOf(api, path, store.keys.sk_test, `${param}=${value}`), 400, 'parameter_invalid', param);
        }
      }
    });

    it("lists only the key's store and environment; the live key lists the live items with livemode true", async () => {
      const store = await createStore(api.services);
      const test = await makeSeries(api, kind, store, 2);
      const live = await makeSeries(api, kind, store, 2, { livemode: true });
      const other = await createStore(api.services);
      await makeSeries(api, kind, other, 2);
      expect((await listOf(api, path, store.keys.sk_test)).body).toEqual(envelope(test, false));
      expect((await listOf(api, path, store.keys.sk_live)).body).toEqual(envelope(live, false, true));
    });

    it('an unknown query parameter is 400 naming it, never read as no filter; a publishable key is refused', async () => {
      const store = await createStore(api.services);
      expectError(await listOf(api, path, store.keys.sk_test, 'stauts=paid'), 400, 'parameter_invalid', 'stauts');
      expectError(await listOf(api, path, store.keys.pk_test), 401, 'wrong_key_type');
    });
  });
}
