import type { GatewayConfig } from '../config';
import { cardBrand, last4 } from './card-number';
import {
  GatewayRejectedError,
  GatewayTimeoutError,
  type CardErrorCode,
  type ChargeLookup,
  type ChargeRequest,
  type ChargeResult,
  type PaymentGateway,
  type RecurringChargeRequest,
  type RefundLookup,
  type RefundRequest,
  type RefundResult,
} from './types';

/**
 * The live-mode adapter: Stripe's PaymentIntents API (https://docs.stripe.com/api/payment_intents),
 * and its SetupIntents API (https://docs.stripe.com/api/setup_intents) for a card checked without
 * a charge.
 *
 * Why Stripe: it is the most widely documented acquirer API; every POST takes an
 * `Idempotency-Key` header (replays answer the original response for 24 h), which is exactly
 * the guarantee our `<purpose>:<object id>:<attempt>` keys rely on; 3-D Secure is a plain
 * `requires_action` status with `next_action.redirect_to_url`, which fits a hosted page that
 * works without client-side JavaScript; recurring charges are off-session PaymentIntents on a
 * saved PaymentMethod, and refunds are one call.
 *
 * A card check (a recurring contract asked with amount 0: a trial's start, a subscription's new
 * card, a first payment discounted to nothing) is a confirmed SetupIntent, because a PaymentIntent
 * must be of at least Stripe's minimum charge (50 cents in EUR; below it Stripe answers
 * `amount_too_small`). A SetupIntent checks the card with the bank, 3-D Secure included, and
 * saves it to the customer for off-session charges without moving money. Its id (`seti_…`) is the
 * charge's paymentId, so looking the check up and withdrawing it go to the SetupIntents API.
 *
 * Assumption: the account is enabled for raw card data in the server API (Stripe grants this to
 * PCI DSS level 1 merchants), so the hosted page may forward the PAN to Stripe in
 * `payment_method_data[card]`. The card goes nowhere else: it is never logged, stored or put in
 * an error message, and the request body is built only here.
 */

interface StripeCard {
  brand?: string;
  last4?: string;
}

interface StripeIntentError {
  code?: string;
  decline_code?: string;
  payment_method?: { card?: StripeCard } | null;
}

/** A PaymentIntent or a SetupIntent (a card check): the fields read here, which both have but for the last error's name. */
interface StripeIntent {
  id: string;
  object: 'payment_intent' | 'setup_intent';
  status: 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'requires_capture' | 'canceled' | 'succeeded';
  customer?: string | null;
  payment_method?: string | { id: string; card?: StripeCard } | null;
  next_action?: { type: string; redirect_to_url?: { url: string; return_url?: string } } | null;
  last_payment_error?: StripeIntentError | null;
  last_setup_error?: StripeIntentError | null;
  metadata?: Record<string, string> | null;
}

/** Why the intent's last confirmation failed (a refused card, a failed challenge). */
function lastErrorOf(intent: StripeIntent): StripeIntentError | null | undefined {
  return intent.object === 'setup_intent' ? intent.last_setup_error : intent.last_payment_error;
}

/** A charge's paymentId names a PaymentIntent (`pi_…`) or, for a card check, a SetupIntent (`seti_…`). */
function intentPath(paymentId: string): string {
  return `/v1/${paymentId.startsWith('seti_') ? 'setup_intents' : 'payment_intents'}/${encodeURIComponent(paymentId)}`;
}

interface StripeList<T> {
  data: T[];
  has_more: boolean;
}

/** How far before and after a charge's recorded send time its intent is looked for (findIntentByKey). */
const INTENT_WINDOW_BEFORE_SECONDS = 5 * 60;
const INTENT_WINDOW_AFTER_SECONDS = 30 * 60;

interface StripeRefund {
  id: string;
  object: 'refund';
  status: 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'canceled';
  metadata?: Record<string, string> | null;
}

/** A refund in our terms: anything not finished either way is still pending. */
function refundResult(refund: StripeRefund): RefundResult {
  const status: RefundResult['status'] = refund.status === 'succeeded' ? 'succeeded' : refund.status === 'failed' || refund.status === 'canceled' ? 'failed' : 'pending';
  return { refundId: refund.id, status };
}

interface StripeError {
  error: { type: string; code?: string; decline_code?: string; message?: string; payment_intent?: StripeIntent; setup_intent?: StripeIntent };
}

type Form = Array<[string, string]>;

/** Stripe's error codes → our card error codes; anything else a card refused is a decline. */
function cardErrorCode(code: string | undefined): CardErrorCode {
  switch (code) {
    case 'incorrect_number':
    case 'invalid_number':
      return 'invalid_card_number';
    case 'invalid_expiry_month':
    case 'invalid_expiry_year':
      return 'invalid_expiry';
    case 'expired_card':
      return 'expired_card';
    case 'incorrect_cvc':
    case 'invalid_cvc':
      return 'invalid_cvc';
    default:
      return 'card_declined';
  }
}

function paymentMethodId(intent: StripeIntent): string | undefined {
  const pm = intent.payment_method;
  return typeof pm === 'string' ? pm : pm?.id;
}

/** `recurringId` packs what an off-session charge needs: the Stripe customer and payment method. */
function recurringIdOf(intent: StripeIntent): string | undefined {
  const pm = paymentMethodId(intent);
  return intent.customer && pm ? `${intent.customer}/${pm}` : undefined;
}

function cardOf(intent: StripeIntent, fallback?: { brand: string; last4: string }): { brand: string; last4: string } {
  const card = (typeof intent.payment_method === 'object' && intent.payment_method?.card) || lastErrorOf(intent)?.payment_method?.card;
  return { brand: card?.brand ?? fallback?.brand ?? 'unknown', last4: card?.last4 ?? fallback?.last4 ?? '' };
}

/** An intent in our terms; `processing` and other in-between states mean "not known yet". */
function intentResult(intent: StripeIntent, fallback?: { brand: string; last4: string }, recurring = false): ChargeResult {
  const card = cardOf(intent, fallback);
  switch (intent.status) {
    case 'succeeded': {
      const result: ChargeResult = { status: 'succeeded', paymentId: intent.id, ...card };
      const recurringId = recurring ? recurringIdOf(intent) : undefined;
      if (recurringId) result.recurringId = recurringId;
      return result;
    }
    case 'requires_action': {
      const url = intent.next_action?.redirect_to_url?.url;
      if (!url) throw new GatewayRejectedError(`Stripe asked for an action this page cannot perform (${intent.next_action?.type ?? 'none'}).`);
      return { status: 'requires_action', paymentId: intent.id, redirectUrl: url, ...card };
    }
    case 'requires_payment_method':
    case 'canceled':
      // A failed 3-D Secure challenge or a refused card leaves the intent needing a new method.
      return { status: 'declined', code: cardErrorCode(lastErrorOf(intent)?.code), paymentId: intent.id, ...card };
    default:
      throw new GatewayTimeoutError(`Stripe payment ${intent.id} is still ${intent.status}.`);
  }
}

export interface LiveGatewayOptions extends GatewayConfig {
  fetch?: typeof fetch;
}

export function createLiveGateway(options: LiveGatewayOptions): PaymentGateway {
  // Looked up per call, not captured: instrumentation that wraps the global fetch (msw in
  // tests, tracing in production) must see these requests.
  const doFetch: typeof fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);

  /**
   * One Stripe call. Anything that leaves the outcome open (no answer within the timeout, a
   * dropped connection, a 5xx, which Stripe documents as indeterminate) is a GatewayTimeoutError,
   * so the caller reconciles instead of re-charging. A 4xx other than a card error means the
   * request was refused before any money moved.
   */
  async function call<T>(method: 'GET' | 'POST', path: string, form: Form, idempotencyKey?: string): Promise<{ status: number; body: T | StripeError }> {
    if (!options.secretKey) throw new GatewayRejectedError('Live payments are not configured (GATEWAY_SECRET_KEY is unset).');
    const body = new URLSearchParams(form).toString();
    const headers: Record<string, string> = { authorization: `Bearer ${options.secretKey}` };
    if (method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const url = method === 'GET' && body ? `${options.baseUrl}${path}?${body}` : `${options.baseUrl}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, { method, headers, body: method === 'POST' ? body : undefined, signal: AbortSignal.timeout(options.timeoutMs) });
      text = await response.text();
    } catch {
      // The error may quote the request; it is dropped so card data can never reach a log.
      throw new GatewayTimeoutError();
    }
    // A 5xx is indeterminate (Stripe's words). A 409 means another request with the same key is
    // still running, and a 429 that this one was not run: neither says what became of the intent,
    // so the caller asks again later instead of recording a refusal.
    if (response.status >= 500 || response.status === 409 || response.status === 429) {
      throw new GatewayTimeoutError(`Stripe answered ${response.status}; the outcome is unknown.`);
    }
    let parsed: T | StripeError;
    try {
      parsed = JSON.parse(text) as T | StripeError;
    } catch {
      throw new GatewayTimeoutError('Stripe answered something that is not JSON; the outcome is unknown.');
    }
    if (response.status >= 400 && response.status !== 402) {
      const error = (parsed as StripeError).error;
      throw new GatewayRejectedError(`Stripe refused the request (${response.status} ${error?.type ?? ''} ${error?.code ?? ''}).`);
    }
    return { status: response.status, body: parsed };
  }

  /**
   * The intent made under our key (Stripe has no look-up by idempotency key: the key is in its
   * metadata). Listed among the intents created around the time it was sent, page by page: the
   * list API is read-after-write, unlike search, which may miss a new intent for a minute or, in
   * an incident, far longer (https://stripe.com/docs/search, "Data freshness"). A miss is then
   * final, and a caller that finds nothing may safely charge again under another key. A card
   * check is a SetupIntent: looked for among those when no PaymentIntent carries the key.
   */
  async function findIntentByKey(idempotencyKey: string, sentAt: Date): Promise<StripeIntent | undefined> {
    const sent = Math.floor(sentAt.getTime() / 1000);
    // From before the send (clocks differ) to well after it (a renewal waits in its worker's queue before it is sent).
    const window: Form = [
      ['created[gte]', String(sent - INTENT_WINDOW_BEFORE_SECONDS)],
      ['created[lte]', String(sent + INTENT_WINDOW_AFTER_SECONDS)],
      ['limit', '100'],
      ['expand[]', 'data.payment_method'],
    ];
    return (await findKeyed<StripeIntent>('/v1/payment_intents', window, idempotencyKey)) ?? findKeyed<StripeIntent>('/v1/setup_intents', window, idempotencyKey);
  }

  /**
   * The object of a Stripe list (`path` with `query`) whose metadata carries our idempotency key,
   * page by page. Stripe's list APIs are read-after-write, unlike its search.
   */
  async function findKeyed<T extends { id: string; metadata?: Record<string, string> | null }>(path: string, query: Form, idempotencyKey: string): Promise<T | undefined> {
    let startingAfter: string | undefined;
    for (;;) {
      const form: Form = startingAfter ? [...query, ['starting_after', startingAfter]] : query;
      const page = (await call<StripeList<T>>('GET', path, form)).body as StripeList<T>;
      const found = page.data.find((item) => item.metadata?.idempotency_key === idempotencyKey);
      const last = page.data.at(-1);
      if (found || !page.has_more || !last) return found;
      startingAfter = last.id;
    }
  }

  /** A 200 with an intent, or a 402 card error that carries the refused intent. */
  function chargeOutcome(answer: { status: number; body: StripeIntent | StripeError }, fallback?: { brand: string; last4: string }, recurring = false): ChargeResult {
    if (answer.status === 402) {
      const error = (answer.body as StripeError).error;
      const intent = error.payment_intent ?? error.setup_intent;
      const card = intent ? cardOf(intent, fallback) : { brand: fallback?.brand ?? 'unknown', last4: fallback?.last4 ?? '' };
      const result: ChargeResult = { status: 'declined', code: cardErrorCode(error.code), ...card };
      if (intent) result.paymentId = intent.id;
      return result;
    }
    return intentResult(answer.body as StripeIntent, fallback, recurring);
  }

  return {
    // Stripe serves `next_action.redirect_to_url` from hooks.stripe.com, which then frames the bank's own page.
    challengeOrigins: ['https://hooks.stripe.com'],

    async charge(request: ChargeRequest): Promise<ChargeResult> {
      const digits = request.card.number;
      const known = { brand: cardBrand(digits), last4: last4(digits) };
      // What either kind of intent takes: the card, confirmed at once, under our key.
      const confirmedCard: Form = [
        ['description', request.description],
        ['confirm', 'true'],
        ['return_url', request.returnUrl],
        // Lets retrieveCharge find the intent by our key after a timeout (findIntentByKey).
        ['metadata[idempotency_key]', request.idempotencyKey],
        ['payment_method_data[type]', 'card'],
        ['payment_method_data[card][number]', digits],
        ['payment_method_data[card][exp_month]', String(request.card.expMonth)],
        ['payment_method_data[card][exp_year]', String(request.card.expYear)],
        ['payment_method_data[card][cvc]', request.card.cvc],
        ['expand[]', 'payment_method'],
      ];
      // A card check moves no money: a SetupIntent, since a PaymentIntent must be of at least Stripe's minimum charge.
      const cardCheck = request.recurring === true && request.amount === 0;
      const form: Form = cardCheck ? confirmedCard : [['amount', String(request.amount)], ['currency', 'eur'], ...confirmedCard];
      if (request.recurring) {
        // An off-session PaymentMethod must belong to a customer; the customer is created under
        // a key derived from the charge's, so a retried charge reuses it.
        const customer = await call<{ id: string }>('POST', '/v1/customers', [['description', request.description]], `${request.idempotencyKey}:customer`);
        form.push(['customer', (customer.body as { id: string }).id], cardCheck ? ['usage', 'off_session'] : ['setup_future_usage', 'off_session']);
      }
      const answer = await call<StripeIntent>('POST', cardCheck ? '/v1/setup_intents' : '/v1/payment_intents', form, request.idempotencyKey);
      return chargeOutcome(answer, known, request.recurring === true);
    },

    async retrieveCharge(idempotencyKey: string, known: ChargeLookup): Promise<ChargeResult | null> {
      let intent: StripeIntent | undefined;
      if (known.paymentId) {
        intent = (await call<StripeIntent>('GET', intentPath(known.paymentId), [['expand[]', 'payment_method']])).body as StripeIntent;
      } else {
        intent = await findIntentByKey(idempotencyKey, known.sentAt);
        if (!intent) return null;
      }
      // Created but never confirmed means the card never reached the acquirer: nothing charged.
      if (intent.status === 'requires_payment_method' && !lastErrorOf(intent)) return null;
      return intentResult(intent, undefined, true);
    },

    async cancelCharge(paymentId: string): Promise<ChargeResult | null> {
      const path = intentPath(paymentId);
      let intent: StripeIntent;
      try {
        const answer = await call<StripeIntent>(
          'POST',
          `${path}/cancel`,
          [
            ['cancellation_reason', 'abandoned'],
            ['expand[]', 'payment_method'],
          ],
          `cancel:${paymentId}`,
        );
        intent = answer.body as StripeIntent;
      } catch (error) {
        // Stripe refuses to cancel an intent that already succeeded (or is processing): what it became is the answer.
        if (!(error instanceof GatewayRejectedError)) throw error;
        intent = (await call<StripeIntent>('GET', path, [['expand[]', 'payment_method']])).body as StripeIntent;
        if (intent.status === 'requires_action') throw error;
      }
      return intent.status === 'canceled' ? null : intentResult(intent, undefined, true);
    },

    async chargeRecurring(request: RecurringChargeRequest): Promise<ChargeResult> {
      const [customer, paymentMethod] = request.recurringId.split('/');
      if (!customer || !paymentMethod) throw new GatewayRejectedError('Malformed recurring contract id.');
      const answer = await call<StripeIntent>(
        'POST',
        '/v1/payment_intents',
        [
          ['amount', String(request.amount)],
          ['currency', 'eur'],
          ['description', request.description],
          ['customer', customer],
          ['payment_method', paymentMethod],
          ['off_session', 'true'],
          ['confirm', 'true'],
          ['metadata[idempotency_key]', request.idempotencyKey],
          ['expand[]', 'payment_method'],
        ],
        request.idempotencyKey,
      );
      return chargeOutcome(answer);
    },

    async cancelRecurring(recurringId: string): Promise<void> {
      const paymentMethod = recurringId.split('/')[1];
      if (!paymentMethod) throw new GatewayRejectedError('Malformed recurring contract id.');
      await call('POST', `/v1/payment_methods/${encodeURIComponent(paymentMethod)}/detach`, [], `detach:${recurringId}`);
    },

    async refund(request: RefundRequest): Promise<RefundResult> {
      const answer = await call<StripeRefund>(
        'POST',
        '/v1/refunds',
        [
          ['payment_intent', request.paymentId],
          ['amount', String(request.amount)],
          // Lets retrieveRefund find the refund by our key (Stripe has no look-up by idempotency key).
          ['metadata[idempotency_key]', request.idempotencyKey],
        ],
        request.idempotencyKey,
      );
      return refundResult(answer.body as StripeRefund);
    },

    async retrieveRefund(lookup: RefundLookup): Promise<RefundResult | null> {
      if (lookup.refundId) {
        return refundResult((await call<StripeRefund>('GET', `/v1/refunds/${encodeURIComponent(lookup.refundId)}`, [])).body as StripeRefund);
      }
      // Among the payment's refunds (a payment has few).
      const found = await findKeyed<StripeRefund>(
        '/v1/refunds',
        [
          ['payment_intent', lookup.paymentId],
          ['limit', '100'],
        ],
        lookup.idempotencyKey,
      );
      return found ? refundResult(found) : null;
    },
  };
}
