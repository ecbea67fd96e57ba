import type { TRPCError } from '@trpc/server';
import type { Database } from '@/db/client';
import type { Actor } from './audit/service';
import type { Clock } from './clock';
import type { Config } from './config';
import type { ApiError } from './errors';
import type { Gateways } from './gateway/types';
import { randomBase62 } from './ids';
import type { BuyerClient } from './kit/hosted-page/request';
import type { RateLimits } from './rate-limit/service';

/** Long-lived dependencies, built once per process (or per test file). */
export interface Services {
  db: Database;
  /** Wall time; a key-authenticated procedure sees its store's clock here instead (server/trpc.ts). */
  clock: Clock;
  config: Config;
  rateLimits: RateLimits;
  /** The payment gateway of each environment (server/gateway). */
  gateways: Gateways;
}

/** What the HTTP layer knows about one request, and what procedures hand back to it. */
export interface RequestState {
  id: string;
  /** The operation's path template once the request is routed (logs and metrics). */
  route?: string;
  ip: string;
  method: string;
  path: string;
  headers: Headers;
  /** The parsed JSON body; the only way a DELETE's body reaches its procedure (its input is the query). */
  body: unknown;
  /** Set from the procedure's `successStatus` meta, or by a replay that answers 200. */
  successStatus: number | undefined;
  responseHeaders: Record<string, string>;
}

/** One call of a request over /api/trpc, as the procedure base sees it. */
export interface RpcCall {
  /** The procedure's path, `products.list`. */
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  /** Its place in the batch. */
  batchIndex: number;
  getRawInput(): Promise<unknown>;
}

/** What the /api/trpc handler adds to the context (server/http/trpc-handler.ts). */
export interface RpcTransport {
  /**
   * The request state of one call: a batch carries several, each with its own status and body
   * (its input). Throws when the call is refused before its procedure runs (the per-IP limit).
   */
  callRequest(call: RpcCall): Promise<RequestState>;
  /** The API error a failed call answers: errors over /api/trpc carry the API's codes. */
  apiErrorOf(error: TRPCError): ApiError;
}

export interface Context extends Services {
  request: RequestState;
  /** Who acts in this request: set by the key procedure base (server/trpc.ts) to its key; services audit changes with it. */
  actor?: Actor;
  /** Set for calls over /api/trpc only. */
  rpc?: RpcTransport;
}

/** Pure context construction, so tests can build one without HTTP. */
export function createContextInner(services: Services, request: RequestState): Context {
  // `request` first: a leading spread is slow.
  return { request, ...services };
}

/** The first address in `X-Forwarded-For`: the service's own front server sets it (scripts/serve.ts). */
export function clientIp(headers: Headers): string {
  return headers.get('x-forwarded-for')?.split(',')[0]?.trim() || 'unknown';
}

/** The longest user agent kept: real browsers send a few hundred characters. */
export const USER_AGENT_MAX_LENGTH = 500;

/** Who is paying, as a hosted form's POST shows them: the client address the rate limits count and the `User-Agent`. */
export function buyerClientOf(headers: Headers): BuyerClient {
  const ip = clientIp(headers);
  const userAgent = headers.get('user-agent')?.trim().slice(0, USER_AGENT_MAX_LENGTH);
  return { ip: ip === 'unknown' ? null : ip, userAgent: userAgent || null };
}

/** The id an answer carries in `Request-Id`, and the log lines of its request. */
export function newRequestId(): string {
  return `req_${randomBase62(16)}`;
}

const REQUEST_ID = /^req_[0-9A-Za-z]{16}$/;

/**
 * The front of `npm start` (server/host/front.ts) names every request and hands the id on in the
 * `Request-Id` request header, replacing whatever a client sent there, so the handlers behind it
 * (the API's and Next's routes) answer and log under the same id. Without it, a new one.
 */
function requestIdOf(headers: Headers): string {
  const given = headers.get('request-id');
  return given !== null && REQUEST_ID.test(given) ? given : newRequestId();
}

/** A new request's state, before any procedure has run. */
export function createRequestState(request: Request): RequestState {
  return requestStateOf(request.method, new URL(request.url).pathname, request.headers);
}

/** The same from its parts, for a request that never became a fetch `Request` (server/http/api-handler.ts). */
export function requestStateOf(method: string, path: string, headers: Headers): RequestState {
  return {
    id: requestIdOf(headers),
    ip: clientIp(headers),
    method,
    path,
    headers,
    body: undefined,
    successStatus: undefined,
    responseHeaders: {},
  };
}
