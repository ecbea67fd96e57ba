'use client';

import { useState } from 'react';
import { useService } from '@/packages/client';
import { createDemoCheckout } from './actions';

/** Buy: the merchant's server creates the session, the library sends the customer to its hosted page. */
export function BuyButton() {
  const service = useService();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  async function buy() {
    setBusy(true);
    setProblem(null);
    const checkout = await createDemoCheckout();
    const redirect = 'error' in checkout ? { error: { message: checkout.error } } : await service.redirectToCheckout({ url: checkout.url });
    if (redirect.error) {
      setProblem(redirect.error.message);
      setBusy(false);
    }
  }

  return (
    <>
      <button type="button" onClick={() => void buy()} disabled={busy}>
        {busy ? 'Opening checkout…' : 'Buy'}
      </button>
      {problem ? <p role="alert">{problem}</p> : null}
    </>
  );
}
