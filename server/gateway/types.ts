/**
 * The payment gateway boundary: the one interface through which money moves. Two
 * implementations: the test-mode simulator (the test cards) and the live adapter to a
 * real acquirer. Every call that can move money carries a deterministic idempotency key
 * (`<purpose>:<object id>:<attempt>`), so a retry after a timeout or crash never charges twice.
 */
import { recognizeAcrossBundles } from '../errors';

/** Card data exists only in memory for one call: it is never stored or logged. */
export interface CardInput {
  number: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  cvc: string;
}

export type CardErrorCode = 'card_declined' | 'invalid_card_number' | 'invalid_expiry' | 'expired_card' | 'invalid_cvc';

export interface ChargeRequest {
  idempotencyKey: string;
  /** Cents, EUR. */
  amount: number;
  description: string;
  card: CardInput;
  /** Where a 3-D Secure challenge returns the customer to (live mode). */
  returnUrl: string;
  /** Set up a recurring contract with this first charge (subscriptions). */
  recurring?: boolean;
}

export type ChargeResult =
  | { status: 'succeeded'; paymentId: string; brand: string; last4: string; recurringId?: string }
  | { status: 'declined'; code: CardErrorCode | 'unsupported_test_card'; paymentId?: string; brand: string; last4: string }
  /** 3-D Secure challenge: send the customer to `redirectUrl`, then call `retrieveCharge`. */
  | { status: 'requires_action'; paymentId: string; redirectUrl: string; brand: string; last4: string };

/** What the caller knows of a charge it asks about, besides its key. */
export interface ChargeLookup {
  /** The gateway's id, once an answer carried it (a 3-D Secure challenge): fetched directly. */
  paymentId?: string;
  /** When the charge was recorded, just before it was sent: bounds a search by key. */
  sentAt: Date;
}

/** The lookup of a charge as our rows record it: created (wall clock) just before it was sent. */
export function chargeLookup(row: { gatewayPaymentId: string | null; createdAt: Date }): ChargeLookup {
  return row.gatewayPaymentId ? { paymentId: row.gatewayPaymentId, sentAt: row.createdAt } : { sentAt: row.createdAt };
}

export interface RecurringChargeRequest {
  idempotencyKey: string;
  recurringId: string;
  amount: number;
  description: string;
}

export interface RefundRequest {
  idempotencyKey: string;
  paymentId: string;
  amount: number;
}

export interface RefundResult {
  refundId: string;
  status: 'succeeded' | 'pending' | 'failed';
}

export interface RefundLookup {
  idempotencyKey: string;
  paymentId: string;
  /** The gateway's id, once an answer carried it (a refund answered `pending`). */
  refundId?: string;
}

/** The outcome is unknown (timeout, connection lost): reconcile with `retrieveCharge`, never re-charge blindly. */
export class GatewayTimeoutError extends Error {
  constructor(message = 'The payment gateway did not answer in time.') {
    super(message);
    this.name = 'GatewayTimeoutError';
  }
}
recognizeAcrossBundles(GatewayTimeoutError, 'GatewayTimeoutError');

/**
 * The gateway refused the request before any money moved (no credentials configured, a request
 * the acquirer rejects as invalid). Unlike a timeout the outcome is known: nothing was charged.
 */
export class GatewayRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayRejectedError';
  }
}
recognizeAcrossBundles(GatewayRejectedError, 'GatewayRejectedError');

export interface PaymentGateway {
  /**
   * Origins this gateway's 3-D Secure challenges (`redirectUrl`) are served from. A hosted page's
   * form redirects there, so its CSP `form-action` must list them (browsers check a form's
   * redirects against it).
   */
  readonly challengeOrigins: readonly string[];
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /**
   * The charge made under this idempotency key, or null when the gateway never received it (or
   * never confirmed it: nothing was charged). The answer must be current: callers that find
   * nothing record that nothing moved and may charge again under another key.
   */
  retrieveCharge(idempotencyKey: string, known: ChargeLookup): Promise<ChargeResult | null>;
  /**
   * Withdraws a charge still waiting for the customer (a 3-D Secure challenge never finished), so
   * it can no longer complete. Null when it is canceled: nothing was charged. When the customer
   * finished first, the charge's final result instead.
   */
  cancelCharge(paymentId: string): Promise<ChargeResult | null>;
  chargeRecurring(request: RecurringChargeRequest): Promise<ChargeResult>;
  cancelRecurring(recurringId: string): Promise<void>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * The refund made under this idempotency key, as it is now, or null when the gateway never
   * received it. Asked before a lost request is sent again: an acquirer forgets idempotency keys
   * after a while (Stripe: 24 h), and a key it has forgotten would refund a second time.
   */
  retrieveRefund(lookup: RefundLookup): Promise<RefundResult | null>;
}

/** Test and live never mix: each environment has its own gateway. */
export interface Gateways {
  test: PaymentGateway;
  live: PaymentGateway;
}
