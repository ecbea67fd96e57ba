import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delay, getResponse, http, HttpResponse } from 'msw';

/**
 * An msw replay of the parts of Stripe's API the live adapter uses, with response bodies shaped
 * as Stripe documents them (https://docs.stripe.com/api/payment_intents/object,
 * https://docs.stripe.com/api/setup_intents/object, https://docs.stripe.com/error-codes,
 * https://docs.stripe.com/payments/3d-secure). PaymentIntents and SetupIntents answer the same
 * card numbers, like Stripe's own test cards:
 *   4242424242424242 approved · 4000000000000002 card_declined · 4000000000000127 incorrect_cvc
 *   4000000000003220 3-D Secure challenge · 4000000000000259 never answers (timeout; its key stays in use: 409)
 *   4000000000000119 500 processing error (outcome unknown)
 * A PaymentIntent below Stripe's minimum charge (50 cents in EUR) is refused: amount_too_small.
 */
export const STRIPE_BASE_URL = 'https://api.stripe.test';
export const STRIPE_KEY = 'sk_live_gatewaytest';

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  form: URLSearchParams;
}

type IntentObject = 'payment_intent' | 'setup_intent';
/** A PaymentIntent or a SetupIntent as stored: its payment method by id, expanded when a request asks. */
type Intent = Record<string, unknown> & { id: string; object: IntentObject; status: string; metadata: Record<string, string>; payment_method: string | null };
type PaymentMethod = { id: string; object: 'payment_method'; type: 'card'; card: { brand: string; last4: string; exp_month: number; exp_year: number; funding: string; country: string } };
type StripeRefund = { id: string; object: 'refund'; amount: number; payment_intent: string | null; status: string; currency: string; metadata: Record<string, string> };
type Answer = { status: number; body: unknown };

/** What tells the two kinds of intent apart in Stripe's API: their path, id prefix, name and the field of their last error. */
const INTENT_KINDS = {
  payment_intent: { resource: 'payment_intents', prefix: 'pi', name: 'PaymentIntent', lastError: 'last_payment_error' },
  setup_intent: { resource: 'setup_intents', prefix: 'seti', name: 'SetupIntent', lastError: 'last_setup_error' },
} as const;

/** Stripe's smallest charge in EUR, in cents (https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). */
const MINIMUM_CHARGE = 50;

const docUrl = (code: string) => `https://docs.stripe.com/error-codes/${code.replaceAll('_', '-')}`;

/** `now` is Stripe's clock: intents are stamped `created` by it (tests on a test clock pass theirs). */
export function createStripeReplay(options: { now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date());
  const calls: RecordedCall[] = [];
  const intents = new Map<string, Intent>();
  const setupIntents = new Map<string, Intent>();
  const stores: Record<IntentObject, Map<string, Intent>> = { payment_intent: intents, setup_intent: setupIntents };
  const paymentMethods = new Map<string, PaymentMethod>();
  /** Stripe answers an idempotent replay with the first response (https://docs.stripe.com/api/idempotent_requests). */
  const idempotent = new Map<string, Answer>();
  let counter = 0;
  /** Keys of requests Stripe is still running (the never-answering card's). */
  const inFlight = new Set<string>();
  let rateLimitedRequests = 0;
  const refunds = new Map<string, StripeRefund>();
  /** What a new refund answers: Stripe refunds some payment methods asynchronously (`pending`). */
  let refundStatus = 'succeeded';

  function paymentMethod(last4: string, brand = 'visa'): PaymentMethod {
    const created: PaymentMethod = {
      id: `pm_${++counter}`,
      object: 'payment_method',
      type: 'card',
      card: { brand, last4, exp_month: 12, exp_year: 2030, funding: 'credit', country: 'US' },
    };
    paymentMethods.set(created.id, created);
    return created;
  }

  /** `object` with its payment method expanded when the request asked for `field` (`expand[]`), as Stripe answers. */
  function expanded<T extends object>(object: T, expand: string[], field = 'payment_method'): T {
    const id = (object as { payment_method?: unknown }).payment_method;
    return typeof id === 'string' && expand.includes(field) ? { ...object, payment_method: paymentMethods.get(id) } : object;
  }

  /** The payment method the create request's form describes (`payment_method_data[card]`). */
  const formPaymentMethod = (form: URLSearchParams) => paymentMethod((form.get('payment_method_data[card][number]') ?? '0000').slice(-4));

  /** A new intent of `kind` made from the create request's form, stored as Stripe keeps it. */
  function intent(kind: IntentObject, form: URLSearchParams, status: string, { payment_method = formPaymentMethod(form).id, ...extra }: Partial<Intent> = {}): Intent {
    const { prefix, lastError } = INTENT_KINDS[kind];
    const id = `${prefix}_${++counter}${'x'.repeat(20)}`;
    const own =
      kind === 'payment_intent'
        ? {
            amount: Number(form.get('amount')),
            amount_received: status === 'succeeded' ? Number(form.get('amount')) : 0,
            currency: form.get('currency'),
            capture_method: 'automatic',
            confirmation_method: 'automatic',
            setup_future_usage: form.get('setup_future_usage'),
          }
        : { payment_method_types: ['card'], usage: form.get('usage') ?? 'off_session' };
    const created: Intent = {
      id,
      object: kind,
      cancellation_reason: null,
      client_secret: `${id}_secret_abc`,
      created: Math.floor(now().getTime() / 1000),
      customer: form.get('customer'),
      description: form.get('description'),
      livemode: true,
      metadata: { idempotency_key: form.get('metadata[idempotency_key]') ?? '' },
      next_action: null,
      [lastError]: null,
      payment_method,
      status,
      ...own,
      ...extra,
    };
    stores[kind].set(id, created);
    return created;
  }

  async function record(request: Request, path: string): Promise<RecordedCall> {
    const form = new URLSearchParams(request.method === 'GET' ? new URL(request.url).search : await request.text());
    const call = { method: request.method, path, headers: Object.fromEntries(request.headers), form };
    calls.push(call);
    return call;
  }

  const unauthorized = () => HttpResponse.json({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_live_****' } }, { status: 401 });
  const missing = () => HttpResponse.json({ error: { type: 'invalid_request_error', code: 'resource_missing' } }, { status: 404 });

  /** One page of a Stripe list (newest first): `limit` items after `starting_after`. */
  function page<T extends { id: string }>(url: string, all: T[], query: URLSearchParams) {
    const after = query.get('starting_after');
    const from = after ? all.findIndex((item) => item.id === after) + 1 : 0;
    const limit = Number(query.get('limit') ?? 10);
    return { object: 'list', url, data: all.slice(from, from + limit), has_more: from + limit < all.length };
  }

  /** GET /v1/<resource>/:id: the object as it is now, or Stripe's 404. */
  const retrieve = (resource: string, objects: Map<string, object>) =>
    http.get(`${STRIPE_BASE_URL}/v1/${resource}/:id`, async ({ request, params }) => {
      const call = await record(request, `/v1/${resource}/${params.id}`);
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const found = objects.get(String(params.id));
      return found ? HttpResponse.json(expanded(found, call.form.getAll('expand[]'))) : missing();
    });

  /** The card number's scenario for a new intent of `kind`; undefined: the request never gets an answer. */
  async function confirmCard(kind: IntentObject, call: RecordedCall): Promise<Answer | undefined> {
    const { prefix, lastError } = INTENT_KINDS[kind];
    const expand = call.form.getAll('expand[]');
    const number = call.form.get('payment_method_data[card][number]');
    if (number === '4000000000000259') {
      const key = call.headers['idempotency-key'];
      if (key) inFlight.add(key);
      await delay('infinite');
      return undefined;
    }
    if (number === '4000000000000119') return { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
    if (number === '4000000000000002' || number === '4000000000000127') {
      const code = number.endsWith('0002') ? 'card_declined' : 'incorrect_cvc';
      // A refused card leaves the intent without a payment method; the error carries the one refused.
      const error = {
        type: 'card_error',
        code,
        decline_code: code === 'card_declined' ? 'generic_decline' : undefined,
        message: 'Your card was declined.',
        payment_method: formPaymentMethod(call.form),
      };
      const refused = intent(kind, call.form, 'requires_payment_method', { [lastError]: error, payment_method: null });
      return { status: 402, body: { error: { ...error, doc_url: docUrl(code), [kind]: refused } } };
    }
    if (number === '4000000000003220') {
      const pending = intent(kind, call.form, 'requires_action', {
        next_action: {
          type: 'redirect_to_url',
          redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&${kind}=${prefix}_3ds`, return_url: call.form.get('return_url') },
        },
      });
      return { status: 200, body: expanded(pending, expand) };
    }
    // An off-session charge names a saved payment method instead of a card.
    const paymentMethodId = call.form.get('payment_method');
    return { status: 200, body: expanded(intent(kind, call.form, 'succeeded', paymentMethodId ? { payment_method: paymentMethodId } : {}), expand) };
  }

  /**
   * POST /v1/<resource> creating a confirmed intent of `kind`; `invalid` answers a request Stripe
   * refuses before running it (not saved under its key, as Stripe documents).
   */
  const createIntent = (kind: IntentObject, invalid: (form: URLSearchParams) => Answer | undefined = () => undefined) => {
    const path = `/v1/${INTENT_KINDS[kind].resource}`;
    return http.post(`${STRIPE_BASE_URL}${path}`, async ({ request }) => {
      const call = await record(request, path);
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const key = call.headers['idempotency-key'];
      const replay = key ? idempotent.get(key) : undefined;
      if (replay) return HttpResponse.json(replay.body as object, { status: replay.status, headers: { 'idempotent-replayed': 'true' } });
      // https://docs.stripe.com/error-low-level#idempotency: a key whose first request is still running.
      if (key && inFlight.has(key)) {
        return HttpResponse.json(
          { error: { type: 'idempotency_error', code: 'idempotency_key_in_use', message: 'There is currently another in-progress request using this Idempotency Key.' } },
          { status: 409 },
        );
      }
      if (rateLimitedRequests > 0) {
        rateLimitedRequests -= 1;
        return HttpResponse.json({ error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' } }, { status: 429 });
      }
      const refused = invalid(call.form);
      if (refused) return HttpResponse.json(refused.body as object, { status: refused.status });
      const answer = await confirmCard(kind, call);
      if (!answer) return HttpResponse.json({});
      if (key) idempotent.set(key, answer);
      return HttpResponse.json(answer.body as object, { status: answer.status });
    });
  };

  /** https://docs.stripe.com/api/<resource>/list: newest first, filtered on `created`, paginated with starting_after. */
  const listIntents = (kind: IntentObject) => {
    const path = `/v1/${INTENT_KINDS[kind].resource}`;
    return http.get(`${STRIPE_BASE_URL}${path}`, async ({ request }) => {
      const call = await record(request, path);
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const from = Number(call.form.get('created[gte]') ?? -Infinity);
      const to = Number(call.form.get('created[lte]') ?? Infinity);
      const all = [...stores[kind].values()].filter((item) => (item.created as number) >= from && (item.created as number) <= to).reverse();
      const listed = page(path, all, call.form);
      return HttpResponse.json({ ...listed, data: listed.data.map((item) => expanded(item, call.form.getAll('expand[]'), 'data.payment_method')) });
    });
  };

  /** https://docs.stripe.com/api/<resource>/cancel: an intent that succeeded or was canceled cannot be. */
  const cancelIntent = (kind: IntentObject) => {
    const { resource, name } = INTENT_KINDS[kind];
    return http.post(`${STRIPE_BASE_URL}/v1/${resource}/:id/cancel`, async ({ request, params }) => {
      const call = await record(request, `/v1/${resource}/${params.id}/cancel`);
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const found = stores[kind].get(String(params.id));
      if (!found) return missing();
      if (found.status === 'succeeded' || found.status === 'canceled') {
        const message = `You cannot cancel this ${name} because it has a status of ${found.status}.`;
        return HttpResponse.json({ error: { type: 'invalid_request_error', code: `${kind}_unexpected_state`, message, [kind]: found } }, { status: 400 });
      }
      const canceled: Intent = {
        ...found,
        status: 'canceled',
        next_action: null,
        cancellation_reason: call.form.get('cancellation_reason'),
        ...(kind === 'payment_intent' ? { canceled_at: 1780000100 } : {}),
      };
      stores[kind].set(found.id, canceled);
      return HttpResponse.json(expanded(canceled, call.form.getAll('expand[]')));
    });
  };

  /** https://docs.stripe.com/api/payment_intents/create: an amount below the currency's minimum charge is refused. */
  const belowMinimum = (form: URLSearchParams): Answer | undefined =>
    Number(form.get('amount')) < MINIMUM_CHARGE
      ? {
          status: 400,
          body: { error: { type: 'invalid_request_error', code: 'amount_too_small', param: 'amount', message: 'Amount must be at least €0.50 eur', doc_url: docUrl('amount_too_small') } },
        }
      : undefined;

  const handlers = [
    createIntent('payment_intent', belowMinimum),
    listIntents('payment_intent'),
    retrieve('payment_intents', intents),
    cancelIntent('payment_intent'),
    createIntent('setup_intent'),
    listIntents('setup_intent'),
    retrieve('setup_intents', setupIntents),
    cancelIntent('setup_intent'),
    http.post(`${STRIPE_BASE_URL}/v1/customers`, async ({ request }) => {
      await record(request, '/v1/customers');
      return HttpResponse.json({ id: `cus_${++counter}`, object: 'customer' });
    }),
    http.post(`${STRIPE_BASE_URL}/v1/payment_methods/:id/detach`, async ({ request, params }) => {
      await record(request, `/v1/payment_methods/${params.id}/detach`);
      return HttpResponse.json({ id: params.id, object: 'payment_method', customer: null });
    }),
    http.post(`${STRIPE_BASE_URL}/v1/refunds`, async ({ request }) => {
      const call = await record(request, '/v1/refunds');
      const key = call.headers['idempotency-key'];
      const replay = key ? idempotent.get(key) : undefined;
      if (replay) return HttpResponse.json(replay.body as object, { status: replay.status });
      const body: StripeRefund = {
        id: `re_${++counter}`,
        object: 'refund',
        amount: Number(call.form.get('amount')),
        payment_intent: call.form.get('payment_intent'),
        status: refundStatus,
        currency: 'eur',
        metadata: { idempotency_key: call.form.get('metadata[idempotency_key]') ?? '' },
      };
      refunds.set(body.id, body);
      if (key) idempotent.set(key, { status: 200, body });
      return HttpResponse.json(body);
    }),
    // https://docs.stripe.com/api/refunds/list: newest first, paginated with starting_after.
    http.get(`${STRIPE_BASE_URL}/v1/refunds`, async ({ request }) => {
      const call = await record(request, '/v1/refunds');
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const all = [...refunds.values()].filter((refund) => refund.payment_intent === call.form.get('payment_intent')).reverse();
      return HttpResponse.json(page('/v1/refunds', all, call.form));
    }),
    retrieve('refunds', refunds),
  ];

  return {
    handlers,
    calls,
    /** PaymentIntents by id. */
    intents,
    /** SetupIntents (card checks) by id. */
    setupIntents,
    refunds,
    /** The status new refunds are created with, until changed again. */
    answerRefundsWith(status: 'succeeded' | 'pending') {
      refundStatus = status;
    },
    /** The next `count` charge requests are refused with 429, as Stripe's rate limiter does. */
    rateLimitNext(count = 1) {
      rateLimitedRequests = count;
    },
    /** A day has passed: Stripe prunes idempotency keys after 24 h, and a reused one makes a new object. */
    forgetIdempotencyKeys() {
      idempotent.clear();
    },
    /** The acquirer finishes a pending refund. */
    finishRefund(id: string, status: 'succeeded' | 'failed') {
      refunds.set(id, { ...refunds.get(id)!, status });
    },
    /** The customer passed or failed the 3-D Secure challenge of a PaymentIntent (`pi_…`) or SetupIntent (`seti_…`): it moves on as Stripe's would. */
    completeChallenge(id: string, outcome: 'succeeded' | 'failed') {
      const kind: IntentObject = id.startsWith(`${INTENT_KINDS.setup_intent.prefix}_`) ? 'setup_intent' : 'payment_intent';
      const pending = stores[kind].get(id)!;
      if (outcome === 'succeeded') {
        stores[kind].set(id, { ...pending, status: 'succeeded', next_action: null, ...(kind === 'payment_intent' ? { amount_received: pending.amount } : {}) });
        return;
      }
      // A failed authentication leaves the intent without a payment method; its last error carries the one that failed.
      stores[kind].set(id, {
        ...pending,
        status: 'requires_payment_method',
        next_action: null,
        payment_method: null,
        [INTENT_KINDS[kind].lastError]: {
          type: 'card_error',
          code: `${kind}_authentication_failure`,
          message: 'The provided PaymentMethod has failed authentication.',
          payment_method: paymentMethods.get(pending.payment_method!),
        },
      });
    },
  };
}

/** A replay's handlers behind a local HTTP origin, for a service process's GATEWAY_BASE_URL. */
export async function serveStripeReplay(replay: ReturnType<typeof createStripeReplay>): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(`${STRIPE_BASE_URL}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : Buffer.concat(chunks) });
    const response = (await getResponse(replay.handlers, request)) ?? new Response('{"error":{"type":"invalid_request_error"}}', { status: 404 });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
