import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delay, getResponse, http, HttpResponse } from 'msw';

/**
 * An msw replay of the parts of Stripe's API the live adapter uses, with response bodies shaped
 * as Stripe documents them (https://docs.stripe.com/api/payment_intents/object,
 * https://docs.stripe.com/error-codes, https://docs.stripe.com/payments/3d-secure). The card
 * number picks the scenario, like Stripe's own test cards:
 *   4242424242424242 approved · 4000000000000002 card_declined · 4000000000000127 incorrect_cvc
 *   4000000000003220 3-D Secure challenge · 4000000000000259 never answers (timeout; its key stays in use: 409)
 *   4000000000000119 500 processing error (outcome unknown)
 */
export const STRIPE_BASE_URL = 'https://api.stripe.test';
export const STRIPE_KEY = 'sk_live_gatewaytest';

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  form: URLSearchParams;
}

type Intent = Record<string, unknown> & { id: string; status: string; metadata: Record<string, string> };
type StripeRefund = { id: string; object: 'refund'; amount: number; payment_intent: string | null; status: string; currency: string; metadata: Record<string, string> };

/** `now` is Stripe's clock: intents are stamped `created` by it (tests on a test clock pass theirs). */
export function createStripeReplay(options: { now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date());
  const calls: RecordedCall[] = [];
  const intents = new Map<string, Intent>();
  /** Stripe answers an idempotent replay with the first response (https://docs.stripe.com/api/idempotent_requests). */
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let counter = 0;
  /** Keys of requests Stripe is still running (the never-answering card's). */
  const inFlight = new Set<string>();
  let rateLimitedRequests = 0;
  const refunds = new Map<string, StripeRefund>();
  /** What a new refund answers: Stripe refunds some payment methods asynchronously (`pending`). */
  let refundStatus = 'succeeded';

  const paymentMethod = (last4: string, brand = 'visa') => ({
    id: `pm_${++counter}`,
    object: 'payment_method',
    type: 'card',
    card: { brand, last4, exp_month: 12, exp_year: 2030, funding: 'credit', country: 'US' },
  });

  function intent(form: URLSearchParams, status: string, extra: Record<string, unknown> = {}): Intent {
    const id = `pi_${++counter}${'x'.repeat(20)}`;
    const created: Intent = {
      id,
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      amount_received: status === 'succeeded' ? Number(form.get('amount')) : 0,
      currency: form.get('currency'),
      description: form.get('description'),
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      client_secret: `${id}_secret_abc`,
      created: Math.floor(now().getTime() / 1000),
      customer: form.get('customer'),
      livemode: true,
      metadata: { idempotency_key: form.get('metadata[idempotency_key]') ?? '' },
      next_action: null,
      last_payment_error: null,
      payment_method: paymentMethod((form.get('payment_method_data[card][number]') ?? '0000').slice(-4)),
      setup_future_usage: form.get('setup_future_usage'),
      status,
      ...extra,
    };
    intents.set(id, created);
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
      return found ? HttpResponse.json(found) : missing();
    });

  const handlers = [
    http.post(`${STRIPE_BASE_URL}/v1/payment_intents`, async ({ request }) => {
      const call = await record(request, '/v1/payment_intents');
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
      const number = call.form.get('payment_method_data[card][number]');
      let answer: { status: number; body: unknown };
      if (number === '4000000000000259') {
        if (key) inFlight.add(key);
        await delay('infinite');
        return HttpResponse.json({});
      } else if (number === '4000000000000119') {
        answer = { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
      } else if (number === '4000000000000002' || number === '4000000000000127') {
        const code = number.endsWith('0002') ? 'card_declined' : 'incorrect_cvc';
        const lastPaymentError = { type: 'card_error', code, decline_code: code === 'card_declined' ? 'generic_decline' : undefined, message: 'Your card was declined.' };
        const refused = intent(call.form, 'requires_payment_method', { last_payment_error: lastPaymentError, payment_method: null });
        answer = { status: 402, body: { error: { ...lastPaymentError, doc_url: `https://docs.stripe.com/error-codes/${code}`, payment_intent: refused } } };
      } else if (number === '4000000000003220') {
        const pending = intent(call.form, 'requires_action', {
          next_action: {
            type: 'redirect_to_url',
            redirect_to_url: { url: 'https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&payment_intent=pi_3ds', return_url: call.form.get('return_url') },
          },
        });
        answer = { status: 200, body: pending };
      } else if (call.form.get('off_session') === 'true') {
        answer = { status: 200, body: intent(call.form, 'succeeded', { payment_method: paymentMethod('4242') }) };
      } else {
        answer = { status: 200, body: intent(call.form, 'succeeded') };
      }
      if (key) idempotent.set(key, answer);
      return HttpResponse.json(answer.body as object, { status: answer.status });
    }),
    // https://docs.stripe.com/api/payment_intents/list: newest first, filtered on `created`, paginated with starting_after.
    http.get(`${STRIPE_BASE_URL}/v1/payment_intents`, async ({ request }) => {
      const call = await record(request, '/v1/payment_intents');
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const from = Number(call.form.get('created[gte]') ?? -Infinity);
      const to = Number(call.form.get('created[lte]') ?? Infinity);
      const all = [...intents.values()].filter((pi) => (pi.created as number) >= from && (pi.created as number) <= to).reverse();
      return HttpResponse.json(page('/v1/payment_intents', all, call.form));
    }),
    retrieve('payment_intents', intents),
    // https://docs.stripe.com/api/payment_intents/cancel: an intent that succeeded or was canceled cannot be.
    http.post(`${STRIPE_BASE_URL}/v1/payment_intents/:id/cancel`, async ({ request, params }) => {
      const call = await record(request, `/v1/payment_intents/${params.id}/cancel`);
      if (call.headers.authorization !== `Bearer ${STRIPE_KEY}`) return unauthorized();
      const found = intents.get(String(params.id));
      if (!found) return missing();
      if (found.status === 'succeeded' || found.status === 'canceled') {
        const message = `You cannot cancel this PaymentIntent because it has a status of ${found.status}.`;
        return HttpResponse.json({ error: { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message, payment_intent: found } }, { status: 400 });
      }
      const canceled = { ...found, status: 'canceled', next_action: null, cancellation_reason: call.form.get('cancellation_reason'), canceled_at: 1780000100 };
      intents.set(found.id, canceled);
      return HttpResponse.json(canceled);
    }),
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
    intents,
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
    /** The customer passed the 3-D Secure challenge: the intent moves on as Stripe's would. */
    completeChallenge(id: string, outcome: 'succeeded' | 'failed') {
      const pending = intents.get(id)!;
      if (outcome === 'succeeded') intents.set(id, { ...pending, status: 'succeeded', next_action: null, amount_received: pending.amount });
      else {
        intents.set(id, {
          ...pending,
          status: 'requires_payment_method',
          next_action: null,
          last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.' },
        });
      }
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
