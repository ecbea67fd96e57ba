import type { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { forEachOpenApiProcedure, getPathParameters, normalizePath, type OpenApiProcedureRecord, type OpenApiRouter } from 'trpc-to-openapi';
import { createContextInner, requestStateOf, type RequestState, type RpcCall, type RpcTransport, type Services } from '../context';
import { ApiError } from '../errors';
import type { ApiMeta, RpcErrorData } from '../trpc';
import { refuseUnsafeQuery, refuseUnsafeText } from '../kit/text-input';
import { readJsonBody } from './body';
import { apiErrorOf, internalError } from './procedure-errors';
import { keyInParams, refuseKeyInQuery } from './query-keys';
import type { ApiAnswer, ApiRequest } from './transport';

export const TRPC_PREFIX = '/api/trpc';

export function isTrpcPath(path: string): boolean {
  return path === TRPC_PREFIX || path.startsWith(`${TRPC_PREFIX}/`);
}

/** The names each procedure takes from its REST path (`id` of `/products/{id}`): not part of a REST body. */
function pathParametersByProcedure(router: OpenApiRouter): Map<string, string[]> {
  const names = new Map<string, string[]>();
  forEachOpenApiProcedure<ApiMeta>(router._def.procedures as OpenApiProcedureRecord, ({ path, meta }) => {
    names.set(path, getPathParameters(normalizePath(meta.openapi.path)));
  });
  return names;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What REST would have read as the body of this call: nothing for a query (a GET), the input
 * without its path parameters for a mutation. Idempotency hashes it; procedures that judge the
 * body itself (an `id` in a PATCH body, `amount` without amount mode) read it.
 */
function restBody(type: RpcCall['type'], input: unknown, pathParameters: readonly string[]): unknown {
  if (type === 'query') return undefined;
  if (!isObject(input)) return input ?? {};
  return Object.fromEntries(Object.entries(input).filter(([name]) => !pathParameters.includes(name)));
}

/**
 * The request as tRPC's fetch adapter reads it. Its body is read as REST reads one (capped, JSON
 * only): tRPC reads it when a call first asks for its input, so a refused body fails each call of
 * the batch with the API's code (413, 415, 400), after the call's key has been judged.
 */
function trpcRequest(request: ApiRequest): Request {
  const headers = new Headers(request.headers);
  if (request.method === 'POST') headers.set('content-type', 'application/json');
  return Object.create(Request.prototype, {
    method: { value: request.method },
    url: { value: request.url.toString() },
    headers: { value: headers },
    signal: { value: request.signal },
    text: { value: async () => JSON.stringify(await readJsonBody(request)) },
  }) as Request;
}

/** tRPC's own refusals of a request, worded by tRPC, as API errors; anything else is internal. */
function protocolError(error: TRPCError, state: RequestState): ApiError {
  switch (error.code) {
    // A wrong method is an unknown route on REST too.
    case 'NOT_FOUND':
    case 'METHOD_NOT_SUPPORTED':
      return new ApiError('resource_missing', error.message);
    case 'BAD_REQUEST':
      if (error.cause instanceof SyntaxError) return new ApiError('invalid_json', 'The `input` query parameter is not valid JSON.');
      return new ApiError('parameter_invalid', error.message);
    default:
      return internalError(state.id, `${state.method} ${state.path}`, error.cause ?? error);
  }
}

/**
 * The app router over tRPC's HTTP protocol (batching on, plain JSON) for internal developers:
 * the same procedures, key auth, limits, audit and error codes as REST. Each call of a batch
 * gets its own request state, so its status, idempotency body and audit path are its own.
 */
export function createTrpcAnswerer(router: OpenApiRouter, services: Services): (request: ApiRequest) => Promise<ApiAnswer> {
  const pathParameters = pathParametersByProcedure(router);

  return async (request) => {
    const state = requestStateOf(request.method, request.url.pathname, request.headers);
    const calls: RequestState[] = [];
    const rpc: RpcTransport = {
      async callRequest({ path, type, batchIndex, getRawInput }) {
        // First, as on REST: nothing (not even an audited refusal) is free of the per-IP limit.
        await services.rateLimits.consume('ip', state.ip);
        // A body that cannot be read fails where tRPC reads the input, after the key is judged.
        const input = await getRawInput().catch(() => undefined);
        const call: RequestState = {
          ...state,
          path: `${TRPC_PREFIX}/${path}`,
          body: restBody(type, input, pathParameters.get(path) ?? []),
          successStatus: undefined,
          responseHeaders: {},
        };
        calls[batchIndex] = call;
        // Before anything reads the input (a refused key in a query's input is audited).
        refuseUnsafeQuery(request.url);
        refuseUnsafeText(input);
        // A query's input travels in the URL, as REST's query string does.
        const queryKey = keyInParams(request.url.searchParams) ?? (type === 'query' && isObject(input) ? keyInParams(Object.entries(input)) : undefined);
        if (queryKey !== undefined) await refuseKeyInQuery(services, call, queryKey);
        return call;
      },
      apiErrorOf: (error) => apiErrorOf(error) ?? protocolError(error, state),
    };

    const response = await fetchRequestHandler({
      endpoint: TRPC_PREFIX,
      req: trpcRequest(request),
      router,
      createContext: () => Object.assign(createContextInner(services, state), { rpc }),
      // tRPC's rule for a batch: one status when every call answers it, 207 otherwise.
      responseMeta: ({ data, errors }) => {
        const statuses = new Set(data.map((response, index) => ('error' in response ? (response.error.data as RpcErrorData).httpStatus : (calls[index]?.successStatus ?? 200))));
        const headers: Record<string, string> = { 'cache-control': 'no-store', 'request-id': state.id };
        const retryAfter = Math.max(0, ...errors.map((error) => apiErrorOf(error)?.retryAfter ?? 0));
        if (retryAfter > 0) headers['retry-after'] = String(retryAfter);
        return { status: statuses.size === 1 ? [...statuses][0] : 207, headers };
      },
    });
    return { status: response.status, route: TRPC_PREFIX, headers: Object.fromEntries(response.headers), body: await response.text() };
  };
}
