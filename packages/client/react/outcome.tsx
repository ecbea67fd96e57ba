'use client';

import type { ServiceError } from '../errors';
import { CONTINUE_LABEL, outcomeMessage } from '../messages';
import type { Service } from '../service';

export interface CheckoutOutcomeProps {
  error: ServiceError;
  service: Service;
  /** The session's hosted `url`: where the customer continues when the service needs it (3-D Secure). */
  checkoutUrl?: string;
}

/** The alert under a form after a failed confirm; with 3-D Secure, the way on to the hosted page. */
export function CheckoutOutcome({ error, service, checkoutUrl }: CheckoutOutcomeProps) {
  const message = outcomeMessage(error);
  return (
    <div role="alert" data-code={error.code}>
      <p>
        <strong>{message.title}</strong>
      </p>
      <p>{message.text}</p>
      {message.continueOnHostedPage && checkoutUrl ? (
        <button type="button" onClick={() => void service.redirectToCheckout({ url: checkoutUrl })}>
          {CONTINUE_LABEL}
        </button>
      ) : null}
    </div>
  );
}
