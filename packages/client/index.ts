/**
 * The browser client library: publishable keys only. Import from
 * `@payments-service/client` (client/package.json); everything here is side-effect free, so unused
 * parts are dropped.
 */
export { formatCardNumber, luhnCheck, parseExpiry, validateCard } from './card';
export type { CardField, CardFieldError, CardInput, CardValidation, Expiry } from './card';
export { DEFAULT_API_BASE_URL, TEST_CARDS } from './constants';
export type { ServiceError, ServiceErrorType } from './errors';
export { loadService, Service } from './service';
export type { CheckoutSession, ConfirmParams, ConfirmResult, LoadServiceOptions } from './service';
export { isSafeRedirectUrl, sessionIdFromClientSecret } from './urls';
export { ServiceProvider, useService } from './react/context';
export type { ServiceProviderProps } from './react/context';
export { useCheckout } from './react/use-checkout';
export type { CheckoutState } from './react/use-checkout';
export { CheckoutForm } from './react/checkout-form';
export type { CheckoutFormProps } from './react/checkout-form';
export { SecureCheckoutForm } from './react/secure-checkout-form';
export type { SecureCheckoutFormProps } from './react/secure-checkout-form';
