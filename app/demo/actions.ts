'use server';

import { demoProduct, demoStore } from './demo-store';

export type DemoCheckout = { id: string; url: string; clientSecret: string } | { error: string };

/**
 * The demo merchant's "tiny server action": creates a checkout session for the demo product
 * with the store's test secret key. The browser only ever sees the session's url and client secret.
 */
export async function createDemoCheckout(): Promise<DemoCheckout> {
  const store = await demoStore();
  const product = store && (await demoProduct(store));
  if (!store || !product) return { error: 'The demo store is not available.' };
  const created = await store.api('POST', '/checkout/sessions', {
    price_id: product.priceId,
    success_url: `${store.apiBaseUrl}/demo/success`,
    cancel_url: `${store.apiBaseUrl}/demo`,
    metadata: { source: 'demo' },
  });
  if (created.status !== 201) return { error: created.body?.error?.message ?? 'The checkout could not be created.' };
  return { id: created.body.id, url: created.body.url, clientSecret: created.body.client_secret };
}
