'use client';

import { useState } from 'react';
import { CheckoutForm, SecureCheckoutForm, type ServiceError } from '@/packages/client';
import { createDemoCheckout, type DemoCheckout } from '../actions';

/**
 * The embedded forms for one fresh session. Today the service answers every embedded confirm
 * with three_d_secure_required, so each form offers to continue on the session's hosted page.
 */
export function EmbeddedCheckout() {
  const [checkout, setCheckout] = useState<DemoCheckout | null>(null);
  const [lastError, setLastError] = useState<ServiceError | null>(null);

  if (!checkout) {
    return (
      <button type="button" onClick={() => void createDemoCheckout().then(setCheckout)}>
        Start an embedded checkout
      </button>
    );
  }
  if ('error' in checkout) return <p role="alert">{checkout.error}</p>;
  return (
    <>
      <section aria-labelledby="secure-form">
        <h2 id="secure-form">Card in a secure frame (SecureCheckoutForm)</h2>
        <SecureCheckoutForm className="demo-secure" clientSecret={checkout.clientSecret} checkoutUrl={checkout.url} collectEmail onError={setLastError} />
      </section>
      <section aria-labelledby="page-form">
        <h2 id="page-form">Card fields in this page (CheckoutForm)</h2>
        <CheckoutForm className="demo-form" clientSecret={checkout.clientSecret} checkoutUrl={checkout.url} submitLabel="Pay now" onError={setLastError} />
      </section>
      {lastError ? (
        <p>
          Last <code>onError</code>: <code>{lastError.type}</code> / <code>{lastError.code}</code>
        </p>
      ) : null}
    </>
  );
}
