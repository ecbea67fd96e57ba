import { ServiceProvider } from '@/packages/client';
import { DEMO_UNAVAILABLE, demoStore } from '../demo-store';
import { EmbeddedCheckout } from './embedded-checkout';

export const dynamic = 'force-dynamic';

/** GET /demo/embedded: SecureCheckoutForm and CheckoutForm on a merchant page. */
export default async function DemoEmbeddedPage() {
  const store = await demoStore();
  if (!store) return <p>{DEMO_UNAVAILABLE}</p>;
  return (
    <>
      <h1>Embedded checkout</h1>
      <p>
        Both forms confirm the same test session. The service requires 3-D Secure for every embedded payment today, so they end on a button that continues on the secure payment page.{' '}
        <a href="/demo">Back to the shop</a>
      </p>
      <ServiceProvider publishableKey={store.publishableKey} apiBaseUrl={store.apiBaseUrl}>
        <EmbeddedCheckout />
      </ServiceProvider>
    </>
  );
}
