import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';

/** The service the client library talks to in unit tests: msw answering the confirm endpoint. */
export const API = 'https://pay.example';
export const SESSION_ID = 'cs_test_a1B2c3D4e5F6g7H8i9J0k1L2';
export const CLIENT_SECRET = `${SESSION_ID}_secret_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2`;
export const PK_TEST = 'pk_test_0123456789abcdefghijABCDEFGHIJ';
export const PK_LIVE = 'pk_live_0123456789abcdefghijABCDEFGHIJ';
export const CONFIRM_URL = `${API}/api/v1/checkout/sessions/:id/confirm`;
export const CARD = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' };

export interface SeenRequest {
  id: string;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

export const THREE_D_SECURE = {
  error: {
    type: 'invalid_request_error',
    code: 'three_d_secure_required',
    message: 'This payment needs 3-D Secure authentication: send the customer to the session’s hosted `url` to enter the card there.',
  },
};

export function sessionBody(overrides: Record<string, unknown> = {}) {
  return {
    id: SESSION_ID,
    object: 'checkout.session',
    url: null,
    client_secret: null,
    status: 'complete',
    payment_status: 'paid',
    livemode: false,
    currency: 'eur',
    amount_total: 1999,
    success_url: 'https://shop.example/thanks',
    ...overrides,
  };
}

/**
 * Starts msw for the file; every confirm request is recorded in `seen`, answered by `answer`
 * (default: the service's answer today, 400 three_d_secure_required).
 */
export function useConfirmApi() {
  const seen: SeenRequest[] = [];
  const state = { answer: (): Response | Promise<Response> => HttpResponse.json(THREE_D_SECURE, { status: 400 }) };
  const server = setupServer(
    http.post(CONFIRM_URL, async ({ request, params }) => {
      seen.push({ id: String(params.id), authorization: request.headers.get('authorization'), contentType: request.headers.get('content-type'), body: await request.json() });
      return state.answer();
    }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    seen.length = 0;
    state.answer = () => HttpResponse.json(THREE_D_SECURE, { status: 400 });
    vi.restoreAllMocks();
  });
  afterAll(() => server.close());
  return {
    seen,
    answer(respond: () => Response | Promise<Response>) {
      state.answer = respond;
    },
  };
}

/** Stops window.location.assign from navigating and records where it would have gone. */
export function spyOnNavigation() {
  return vi.spyOn(window.location, 'assign').mockImplementation(() => {});
}

/** A promise and its resolver, to hold a response in flight. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
