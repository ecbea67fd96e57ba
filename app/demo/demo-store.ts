import { headers } from 'next/headers';
import { getApiHandler, getAppServices } from '@/server/app';
import { readDemoStoreTestKeys } from '@/server/bootstrap';

/**
 * The demo merchant's server side: it calls the public API with the demo store's test secret
 * key, exactly as a merchant's server would, only in-process (no network hop to itself).
 */
export interface DemoStore {
  publishableKey: string;
  apiBaseUrl: string;
  // biome-ignore lint/suspicious/noExplicitAny: the demo pages read the API's documented JSON as they find it
  api: (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; body: any }>;
}

/** Undefined when this data dir did not create the demo store (server/bootstrap.ts). */
export async function demoStore(): Promise<DemoStore | undefined> {
  const { config } = await getAppServices();
  const keys = await readDemoStoreTestKeys(config.dataDir);
  if (!keys) return undefined;
  // The customer's address, so the API's per-IP limits apply to them, not to the demo as a whole.
  const forwardedFor = (await headers()).get('x-forwarded-for') ?? 'unknown';
  return {
    publishableKey: keys.pk_test,
    apiBaseUrl: config.publicBaseUrl,
    async api(method, path, body) {
      const handler = await getApiHandler();
      const response = await handler(
        new Request(`${config.publicBaseUrl}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${keys.sk_test}`, 'x-forwarded-for': forwardedFor, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      return { status: response.status, body: await response.json() };
    },
  };
}

export interface DemoProduct {
  name: string;
  description: string | null;
  priceId: string;
  amount: number;
}

/** The demo store's first one-time product (the bootstrap's ebook), or undefined. */
export async function demoProduct(store: DemoStore): Promise<DemoProduct | undefined> {
  const listed = await store.api('GET', '/products?mode=one_time&limit=100');
  const products = (listed.status === 200 ? listed.body.data : []) as Array<{ name: string; description: string | null; price_id: string; amount: number; created: number }>;
  const oldest = products.at(-1);
  return oldest ? { name: oldest.name, description: oldest.description, priceId: oldest.price_id, amount: oldest.amount } : undefined;
}

export const DEMO_UNAVAILABLE = 'The demo needs the demo store that `npm start` creates on an empty database (its test keys are kept in the data dir). Start with an empty data dir to see it.';
