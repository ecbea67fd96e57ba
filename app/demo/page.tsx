import { ServiceProvider } from '@/packages/client';
import { BuyButton } from './buy-button';
import { DEMO_UNAVAILABLE, demoProduct, demoStore } from './demo-store';
import { formatCents } from './format';

export const dynamic = 'force-dynamic';

/** GET /demo: a merchant's product page with a Buy button (browser client library). */
export default async function DemoPage() {
  const store = await demoStore();
  const product = store && (await demoProduct(store));
  if (!store || !product) return <p>{DEMO_UNAVAILABLE}</p>;
  return (
    <>
      <h1>Demo merchant</h1>
      <p>A merchant’s page using the browser client library, in test mode: pay with 4242 4242 4242 4242, any future expiry and any CVC.</p>
      <section className="demo-product" aria-labelledby="demo-product-name">
        <h2 id="demo-product-name">{product.name}</h2>
        {product.description ? <p>{product.description}</p> : null}
        <p className="demo-price">{formatCents(product.amount)}</p>
        <ServiceProvider publishableKey={store.publishableKey} apiBaseUrl={store.apiBaseUrl}>
          <BuyButton />
        </ServiceProvider>
      </section>
      <p>
        <a href="/demo/embedded">The embedded forms</a> (card fields on this page, or in a frame served by the service).
      </p>
    </>
  );
}
