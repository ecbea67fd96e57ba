import { describe, expect, it } from 'vitest';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { rejection, trpcClient, type Exchange } from './support';

/** The API's limits hold over /api/trpc, call by call (a batch spends one per call), on REST's counters. */
const PER_IP = 4;
const PER_KEY = 3;
const api = useTestApi({ rateLimits: { perIp: PER_IP, perKey: PER_KEY, productWritesPerKey: 100, windowSeconds: 60 } });

describe('rate limits over /api/trpc', () => {
  it('a batch past the per-key limit: one call is 429 rate_limited, the others answer (207)', async () => {
    const store = await createStore(api.services);
    const exchanges: Exchange[] = [];
    const client = trpcClient(api, { key: store.keys.sk_test, headers: { 'x-forwarded-for': '198.51.100.1' }, exchanges });
    const calls = Array.from({ length: PER_KEY + 1 }, () =>
      client.products.list.query({}).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    const outcomes = await Promise.all(calls);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.status).toBe(207);
    // The calls of a batch run concurrently: any one of them may be the one past the limit.
    const failed = outcomes.filter((outcome) => outcome !== undefined);
    expect(failed).toHaveLength(1);
    const limited = await rejection(Promise.reject(failed[0]));
    expect(limited.data).toEqual({ type: 'rate_limit_error', code: 'rate_limited', httpStatus: 429 });
    expect(limited.message).toBe('Too many requests with this API key. Retry after the time given in Retry-After.');
    expect(Number(exchanges[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('the per-IP limit counts tRPC calls and REST requests together: past it, 429 on both', async () => {
    const store = await createStore(api.services);
    const headers = { 'x-forwarded-for': '198.51.100.2' };
    const exchanges: Exchange[] = [];
    const client = trpcClient(api, { key: store.keys.sk_test, headers, exchanges });
    await Promise.all([client.products.list.query({}), client.products.list.query({})]);
    expect((await api.request('GET', '/api/v1/products', { key: store.keys.sk_live, headers })).status).toBe(200);
    expect((await trpcClient(api, { key: store.keys.sk_live, headers }).products.list.query({})).object).toBe('list');

    const limited = await rejection(trpcClient(api, { key: store.keys.sk_live, headers, exchanges }).products.list.query({}));
    expect(limited.data).toEqual({ type: 'rate_limit_error', code: 'rate_limited', httpStatus: 429 });
    expect(limited.message).toBe('Too many requests from this address. Retry after the time given in Retry-After.');
    expect(exchanges.map((exchange) => exchange.status)).toEqual([200, 429]);
    expect(Number(exchanges[1]!.headers.get('retry-after'))).toBeGreaterThan(0);
    const rest = await api.request('GET', '/api/v1/products', { key: store.keys.sk_live, headers });
    expect(rest.status).toBe(429);
    expect(rest.body.error.code).toBe('rate_limited');
  });
});
