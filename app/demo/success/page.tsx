import { isCheckoutSessionId } from '@/server/ids';
import { DEMO_UNAVAILABLE, demoStore } from '../demo-store';
import { formatCents } from '../format';

export const dynamic = 'force-dynamic';

/**
 * GET /demo/success?session_id=…: the merchant's success page. The query proves nothing, so the
 * merchant's server retrieves the session and fulfils only when it is complete and paid.
 */
export default async function DemoSuccessPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { session_id: sessionId } = await searchParams;
  const store = await demoStore();
  if (!store) return <p>{DEMO_UNAVAILABLE}</p>;
  const retrieved = typeof sessionId === 'string' && isCheckoutSessionId(sessionId) ? await store.api('GET', `/checkout/sessions/${sessionId}`) : undefined;
  if (retrieved?.status !== 200) {
    return (
      <>
        <h1>Order not found</h1>
        <p>
          There is no checkout with this reference. <a href="/demo">Back to the shop</a>
        </p>
      </>
    );
  }
  const session = retrieved.body as { id: string; status: string; payment_status: string; amount_total: number; order_id: string };
  const paid = session.status === 'complete' && session.payment_status === 'paid';
  // What the purchase promised: the license keys the paid order issued.
  const order = paid ? await store.api('GET', `/orders/${session.order_id}`) : undefined;
  const licenseKeys = order?.status === 200 ? (order.body as { license_keys: string[] }).license_keys : [];
  return (
    <>
      <h1>{paid ? 'Thank you for your order' : 'Payment not received'}</h1>
      <p role="status">
        {paid ? `Paid: ${formatCents(session.amount_total)}. ` : `This checkout is ${session.status} and ${session.payment_status}. `}
        Checkout <code>{session.id}</code>.
      </p>
      {licenseKeys.length > 0 && (
        <section aria-labelledby="license-keys">
          <h2 id="license-keys">Your license {licenseKeys.length === 1 ? 'key' : 'keys'}</h2>
          <ul>
            {licenseKeys.map((key) => (
              <li key={key}>
                <code>{key}</code>
              </li>
            ))}
          </ul>
        </section>
      )}
      <p>
        <a href="/demo">Back to the shop</a>
      </p>
    </>
  );
}
