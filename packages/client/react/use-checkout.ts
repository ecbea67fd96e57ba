'use client';

import { useCallback, useRef, useState } from 'react';
import type { ServiceError } from '../errors';
import type { CheckoutSession, ConfirmParams, ConfirmResult } from '../service';
import { useService } from './context';

export interface CheckoutState {
  /** Resolves to `{ session }` or `{ error }`; never throws. */
  confirm: (params: ConfirmParams) => Promise<ConfirmResult>;
  processing: boolean;
  error: ServiceError | null;
  session: CheckoutSession | null;
}

/** Confirm with its state, for custom forms; must sit under ServiceProvider. */
export function useCheckout(): CheckoutState {
  const service = useService();
  const [processing, setProcessing] = useState(false);
  const [error, setError] = useState<ServiceError | null>(null);
  const [session, setSession] = useState<CheckoutSession | null>(null);
  const inFlight = useRef(0);

  const confirm = useCallback(
    async (params: ConfirmParams): Promise<ConfirmResult> => {
      inFlight.current += 1;
      setProcessing(true);
      const result = await service.confirmCheckoutSession(params);
      inFlight.current -= 1;
      // A dropped duplicate leaves the state to the confirm still in flight.
      if (result.error?.code !== 'confirm_in_progress') {
        setError(result.error ?? null);
        setSession(result.session ?? null);
      }
      if (inFlight.current === 0) setProcessing(false);
      return result;
    },
    [service],
  );

  return { confirm, processing, error, session };
}
