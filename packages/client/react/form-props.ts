import type { ServiceError } from '../errors';
import type { CheckoutSession, Service } from '../service';

/** Form props, shared by CheckoutForm and SecureCheckoutForm. */
export interface CheckoutFormBaseProps {
  clientSecret: string;
  /** Derived from `clientSecret` when omitted. */
  sessionId?: string;
  /** Prefills the email field. */
  customerEmail?: string;
  /** Shows an Email field; default false. */
  collectEmail?: boolean;
  /** Default `Pay`. */
  submitLabel?: string;
  /** Default: redirect to `session.redirect_url` (scheme-checked). */
  onSuccess?: (session: CheckoutSession) => void;
  onError?: (error: ServiceError) => void;
  className?: string;
  /**
   * The session's hosted `url` (from its creation). The service answers confirm with
   * `three_d_secure_required` today; with this the form offers a button to continue there.
   */
  checkoutUrl?: string;
}

export function redirectOnSuccess(service: Service): (session: CheckoutSession) => void {
  return (session) => {
    if (session.redirect_url) void service.redirectToCheckout({ url: session.redirect_url });
  };
}
