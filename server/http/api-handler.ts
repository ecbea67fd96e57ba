import { getTRPCErrorFromUnknown, type AnyTRPCProcedure } from '@trpc/server';
import type { ZodObject, ZodRawShape } from 'zod/v4';
import {
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  normalizePath,
  unwrapZodType,
  type OpenApiProcedureRecord,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { authenticateRequest, type KeyAcceptance } from '../auth/service';
import { createContextInner, requestStateOf, type RequestState, type Services } from '../context';
import { ApiError } from '../errors';
import type { ApiMeta } from '../trpc';
import { refuseUnsafeQuery, refuseUnsafeText } from '../kit/text-input';
import { readJsonBody } from './body';
import { pathDecodes, undecodablePathError } from './path-decoding';
import { apiErrorOf, internalError } from './procedure-errors';
import { keyInParams, refuseKeyInQuery } from './query-keys';
import { serveAnswers, type ApiAnswer, type ApiHandler, type ApiRequest } from './transport';
import { createTrpcAnswerer, isTrpcPath } from './trpc-handler';

export const API_PREFIX = '/api/v1';

const unknownRoute = (state: RequestState) => new ApiError('resource_missing', `Unrecognized request URL (${state.method} ${state.path}).`);

interface Route {
  method: string;
  pattern: RegExp;
  /** For logs and metrics: the path as declared, `/api/v1/products/{id}`, never an id. */
  template: string;
  /** The keys the operation accepts (its procedure base sets this meta). */
  auth: KeyAcceptance | undefined;
  /** A file operation (ApiMeta.file): its answer's bytes are sent, not its JSON. */
  file: ApiMeta['file'];
  procedure: AnyTRPCProcedure;
  /** The procedure's dotted path in the router (`products.retrieve`). */
  procedurePath: string;
  /** Whether the procedure takes input at all (a `z.void()` input stays undefined). */
  takesInput: boolean;
}

/**
 * Whether the procedure takes input, as trpc-to-openapi decides it. An object input has its
 * numbers and booleans coerced from strings (the library's rule, switched on here once for every
 * procedure rather than by the first request that reaches it).
 */
function takesInput(procedure: AnyTRPCProcedure): boolean {
  const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser as Parameters<typeof unwrapZodType>[0], true);
  if (instanceofZodTypeLikeVoid(schema)) return false;
  if (instanceofZodTypeObject(schema)) coerceSchema(schema as unknown as ZodObject<ZodRawShape>);
  return true;
}

/** The query string as REST input: a parameter sent once is a string, sent more often a list (refused by a scalar field). */
function queryInput(params: URLSearchParams): Record<string, string | string[]> {
  const input: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    input[name] = values.length === 1 ? values[0]! : values;
  }
  return input;
}

/**
 * Finds the public operation a method and a normalized path name, matched as trpc-to-openapi
 * matches them, with the path's parameters as sent (still encoded). The route is decided before
 * the body is read, so an unknown route or method is 404 whatever its body.
 */
function createRouteMatcher(router: OpenApiRouter): (method: string, path: string) => { route: Route; pathParams: Record<string, string> } | undefined {
  const routes: Route[] = [];
  forEachOpenApiProcedure<ApiMeta>(router._def.procedures as OpenApiProcedureRecord, ({ meta, path: procedurePath, procedure }) => {
    const path = normalizePath(meta.openapi.path);
    routes.push({
      method: meta.openapi.method,
      pattern: getPathRegExp(path),
      template: `${API_PREFIX}${path}`,
      auth: meta.auth,
      file: meta.file,
      procedure: procedure as AnyTRPCProcedure,
      procedurePath,
      takesInput: takesInput(procedure as AnyTRPCProcedure),
    });
  });
  return (method, path) => {
    for (const route of routes) {
      const match = route.method === method ? route.pattern.exec(path) : null;
      if (match) return { route, pathParams: match.groups ?? {} };
    }
    return undefined;
  };
}

/** What a failure answers: the API error it stands for, or a generic 500 with its cause logged. */
function toApiError(error: unknown, state: RequestState): ApiError {
  if (error instanceof ApiError) return error;
  const failure = getTRPCErrorFromUnknown(error);
  return apiErrorOf(failure) ?? internalError(state.id, `${state.method} ${state.path}`, failure.cause ?? failure);
}

/** The route of a request no operation matched: one label for all of them, whatever their paths. */
const UNMATCHED_ROUTE = `${API_PREFIX}/{unmatched}`;

function jsonAnswer(body: string, status: number, state: RequestState, extra: Record<string, string> = {}): ApiAnswer {
  return {
    status,
    route: state.route ?? UNMATCHED_ROUTE,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'request-id': state.id,
      ...state.responseHeaders,
      ...extra,
    },
    body,
  };
}

/** A file operation's answer: the procedure's `{ filename, content_type, content_base64 }` as the file itself. */
function fileAnswer(file: { filename: string; content_type: string; content_base64: string }, state: RequestState): ApiAnswer {
  return {
    status: 200,
    route: state.route ?? UNMATCHED_ROUTE,
    headers: {
      'content-type': file.content_type,
      // The file name is the document's number: letters, digits and hyphens only.
      'content-disposition': `inline; filename="${file.filename}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'request-id': state.id,
      ...state.responseHeaders,
    },
    body: Buffer.from(file.content_base64, 'base64') as Buffer<ArrayBuffer>,
  };
}

function errorAnswer(error: ApiError, state: RequestState): ApiAnswer {
  const extra: Record<string, string> = {};
  if (error.retryAfter !== undefined) extra['retry-after'] = String(error.retryAfter);
  return jsonAnswer(JSON.stringify(error.toBody()), error.status, state, extra);
}

/**
 * The public REST surface: `/api/v1/*` routed to the procedures by the paths their OpenAPI meta
 * declares, the input read as trpc-to-openapi reads it (the query for GET and DELETE, the body
 * otherwise, and the path's parameters over both), and the procedure called directly, with its
 * own middlewares, input and output validation. Around it this adapter owns what our API
 * requires (body limits and parsing, the error envelope, statuses, headers).
 */
function createRestAnswerer(router: OpenApiRouter, services: Services): (request: ApiRequest) => Promise<ApiAnswer> {
  const findRoute = createRouteMatcher(router);

  async function answer(request: ApiRequest): Promise<ApiAnswer> {
    const url = request.url;
    const state = requestStateOf(request.method, url.pathname, request.headers);
    try {
      // First, so that nothing (not even an audited refusal) is free of the per-IP limit.
      await services.rateLimits.consume('ip', state.ip);
      if (!pathDecodes(url.pathname)) throw undecodablePathError();
      // Before anything reads the query (a refused key in it is audited).
      refuseUnsafeQuery(url);
      const queryKey = keyInParams(url.searchParams);
      if (queryKey !== undefined) await refuseKeyInQuery(services, state, queryKey);
      const routedPath = normalizePath(url.pathname.slice(API_PREFIX.length) || '/');
      // HEAD is a GET without the body (the server drops it); Next hands HEAD to this handler too.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const found = findRoute(method, routedPath);
      if (!found) throw unknownRoute(state);
      const { route, pathParams } = found;
      state.route = route.template;

      let body: Record<string, unknown> | undefined;
      try {
        // Path parameters are judged as they read, though handed on as sent.
        for (const [name, value] of Object.entries(pathParams)) refuseUnsafeText(decodeURIComponent(value), [name]);
        body = await readJsonBody(request);
        refuseUnsafeText(body);
      } catch (contentError) {
        // Credentials are judged before the path's ids and the body (as the procedure would): a
        // caller without a valid key learns nothing about its request. Only on this path, so auth runs once.
        if (route.auth) await authenticateRequest(createContextInner(services, state), route.auth);
        throw contentError;
      }
      // Idempotency hashes the body from here, and a DELETE's body reaches its procedure only this
      // way (its input is the query).
      state.body = body;
      const takesBody = method !== 'GET' && method !== 'DELETE';
      // Spreads, not Object.assign: a body's own `__proto__` member must stay a key (refused as
      // unknown), where an assignment would set the input's prototype.
      const input = route.takesInput ? { ...(takesBody ? (body ?? {}) : queryInput(url.searchParams)), ...pathParams } : undefined;

      const data = await route.procedure({
        path: route.procedurePath,
        type: route.procedure._def.type,
        ctx: createContextInner(services, state),
        getRawInput: async () => input,
        signal: request.signal,
        batchIndex: 0,
      });
      if (route.file && data !== undefined) return fileAnswer(data as Parameters<typeof fileAnswer>[0], state);
      return jsonAnswer(data === undefined ? '{}' : JSON.stringify(data), state.successStatus ?? 200, state);
    } catch (error) {
      return errorAnswer(toApiError(error, state), state);
    }
  }

  return answer;
}

/**
 * The API's front: REST under /api/v1, the same procedures over tRPC under /api/trpc. The app
 * hands the router in (server/app.ts), so this layer never imports the domains.
 */
export function createApiHandlerFor(router: OpenApiRouter, services: Services): ApiHandler {
  const rest = createRestAnswerer(router, services);
  const rpc = createTrpcAnswerer(router, services);
  return serveAnswers((request) => (isTrpcPath(request.url.pathname) ? rpc(request) : rest(request)));
}
