/**
 * tRPC setup, read top to bottom: the context every procedure sees, the meta each public
 * operation carries (its OpenAPI route, success status, idempotency), and the procedure bases
 * that add authentication, rate limits, the store's clock and the `Idempotency-Key`.
 */
import { initTRPC, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { z } from 'zod';
import type { KeyActor } from './audit/service';
import { authenticateRequest, type KeyAcceptance, type Subject } from './auth/service';
import { readIdempotencyKey, type IdempotentRequest } from './kit/idempotency';
import { storeClock } from './clock';
import type { Context, RequestState, RpcCall } from './context';
import type { ErrorBody, ErrorCode } from './errors';

export interface ApiMeta extends OpenApiMeta {
  /** Status of a successful answer; 201 on creates. */
  successStatus?: 200 | 201;
  /** Which bucket of the stricter write limit this operation spends, if any. */
  writeLimit?: 'product';
  /** The keys this operation accepts; set by the procedure base, so the OpenAPI security cannot drift from it. */
  auth?: KeyAcceptance;
  /**
   * Codes this operation answers beyond those server/openapi/errors.ts derives for every
   * operation of its kind (auth, validation, body, lookup by id, rate limit): e.g. `sku_unavailable`.
   */
  errors?: ErrorCode[];
  /**
   * Accepts the `Idempotency-Key` header: a replay answers 200, a reused key 409. The
   * procedure base checks the header and hands the create `ctx.idempotency`.
   */
  idempotent?: true;
  /**
   * The REST answer is a file of this type, not JSON: the procedure answers `{ filename,
   * content_type, content_base64 }` (what /api/trpc callers get) and the REST handler sends the
   * bytes themselves, so the file is served through the same key checks, limits and scoping.
   */
  file?: 'application/pdf';
  /**
   * The body as the OpenAPI document states it, where the input schema cannot say it: "exactly
   * one of" several fields becomes a `oneOf` of one object per mode. Requests are still validated
   * by `.input()`, whose refusals name the field and the fix.
   */
  documentedBody?: z.ZodType;
}

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** The tRPC error code of an HTTP status. */
export function trpcErrorCode(status: number): TRPC_ERROR_CODE_KEY {
  return TRPC_CODE_BY_STATUS[status] ?? 'INTERNAL_SERVER_ERROR';
}

/** `error.data` over /api/trpc: the API's error envelope without its message, and the status it answers. */
export type RpcErrorData = Omit<ErrorBody['error'], 'message'> & { httpStatus: number };

const t = initTRPC
  .context<Context>()
  .meta<ApiMeta>()
  .create({
    // No stack trace in any error, in development neither.
    isDev: false,
    errorFormatter: ({ shape, error, ctx }) => {
      // The operator's router keeps tRPC's own shape.
      if (!ctx?.rpc) return shape;
      const apiError = ctx.rpc.apiErrorOf(error);
      const { message, ...fields } = apiError.toBody().error;
      const data: RpcErrorData = { ...fields, httpStatus: apiError.status };
      return { code: TRPC_ERROR_CODES_BY_KEY[trpcErrorCode(apiError.status)], message, data };
    },
  });

export const createRouter = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

function recordSuccessStatus(request: RequestState, meta: ApiMeta | undefined): void {
  if (meta?.successStatus && request.successStatus === undefined) request.successStatus = meta.successStatus;
}

/** This call's request state: the request's own on REST; over /api/trpc each call of a batch has one. */
function callRequest(ctx: Context, call: RpcCall): Promise<RequestState> | RequestState {
  return ctx.rpc ? ctx.rpc.callRequest(call) : ctx.request;
}

/** No API key: the admin router adds its own token check. */
export const publicProcedure = t.procedure.use(async ({ ctx, meta, next, ...call }) => {
  const request = await callRequest(ctx, call);
  recordSuccessStatus(request, meta);
  return next({ ctx: { request } });
});

/** Whether the store may use an operation at all (a switch of the platform or of the store); throws if not. */
type Gate = (ctx: Context, subject: Subject) => void;

/** The header of an `idempotent` operation: undefined without a key, which then creates as usual. */
function idempotentRequest(request: RequestState): IdempotentRequest | undefined {
  const key = readIdempotencyKey(request.headers);
  return key === undefined ? undefined : { key, body: request.body, replayed: false };
}

/**
 * In order (after the call's own request state over /api/trpc): the key, its rate limits, the
 * operation's gate, then the `Idempotency-Key` of an `idempotent` operation, all before the body
 * is validated. A key names one store and environment, and is the request's one actor
 * (`ctx.actor`, which services audit their changes with). From here on `ctx.clock` is that
 * store's clock (its test clock in test mode) and `ctx.wallClock` the real time, for work that runs on the wall clock (webhook delivery, moving
 * the test clock itself). A create that replays its key answers 200.
 *
 * One middleware for all of it: each tRPC middleware layer copies the call's options, on every
 * request.
 */
function keyProcedure(accept: KeyAcceptance, gate?: Gate) {
  return t.procedure.meta({ auth: accept }).use(async ({ ctx: requestCtx, meta, next, ...call }) => {
    const request = await callRequest(requestCtx, call);
    // Not `{ ...requestCtx, request }`: a leading spread is slow.
    const ctx = request === requestCtx.request ? requestCtx : Object.assign({}, requestCtx, { request });
    recordSuccessStatus(request, meta);
    const subject = await authenticateRequest(ctx, accept);
    await ctx.rateLimits.consume('key', subject.keyId);
    if (meta?.writeLimit === 'product') await ctx.rateLimits.consume('productWrite', subject.keyId);
    gate?.(ctx, subject);
    const idempotency = meta?.idempotent ? idempotentRequest(request) : undefined;
    const actor: KeyActor = { kind: 'key', keyId: subject.keyId, hint: subject.keyHint, livemode: subject.livemode, ip: request.ip, method: request.method, path: request.path };
    const result = await next({ ctx: { request, subject, actor, clock: storeClock(ctx.clock, subject), wallClock: ctx.clock, idempotency } });
    if (idempotency?.replayed) request.successStatus = 200;
    return result;
  });
}

const SECRET_KEYS: KeyAcceptance = { kinds: ['secret'], allowXApiKey: false };
/** Catalog and other server-side operations: secret keys only. */
export const secretKeyProcedure = keyProcedure(SECRET_KEYS);
/** Secret-key operations that a switch can close; the gate runs before the request is read. */
export const gatedSecretKeyProcedure = (gate: Gate) => keyProcedure(SECRET_KEYS, gate);
/** Checkout session endpoints also accept `X-Api-Key`. */
export const checkoutSecretKeyProcedure = keyProcedure({ kinds: ['secret'], allowXApiKey: true });
/** Browser-side operations (embedded confirm). */
export const publishableKeyProcedure = keyProcedure({ kinds: ['publishable'], allowXApiKey: false });
