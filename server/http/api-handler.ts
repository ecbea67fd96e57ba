import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler, forEachOpenApiProcedure, getPathRegExp, normalizePath, type OpenApiProcedureRecord, type OpenApiRouter } from 'trpc-to-openapi';
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
}

/**
 * Finds the public operation a method and path name, matched as the library matches them. The
 * route is decided before the body is read, so an unknown route or method is 404 whatever its body.
 */
function createRouteMatcher(router: OpenApiRouter): (method: string, path: string) => Route | undefined {
  const routes: Route[] = [];
  forEachOpenApiProcedure<ApiMeta>(router._def.procedures as OpenApiProcedureRecord, ({ meta }) => {
    const path = normalizePath(meta.openapi.path);
    routes.push({ method: meta.openapi.method, pattern: getPathRegExp(path), template: `${API_PREFIX}${path}`, auth: meta.auth, file: meta.file });
  });
  return (method, path) => {
    const normalized = normalizePath(path);
    return routes.find((route) => route.method === method && route.pattern.test(normalized));
  };
}

function toApiError(error: TRPCError, state: RequestState): ApiError {
  const known = apiErrorOf(error);
  if (known) return known;
  if (error.code === 'NOT_FOUND') return unknownRoute(state);
  return internalError(state.id, `${state.method} ${state.path}`, error.cause ?? error);
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
function fileAnswer(payload: string, state: RequestState): ApiAnswer {
  const file = JSON.parse(payload) as { filename: string; content_type: string; content_base64: string };
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
 * What the library's node handler reads of a request (method, url, headers, body, signal): it
 * takes the fetch branch for a `Request` instance, and the parsed body as given.
 */
function routedRequest(parts: { method: string; url: string; headers: Headers; body: unknown; signal: AbortSignal }): Request {
  return Object.create(Request.prototype, {
    method: { value: parts.method },
    url: { value: parts.url },
    headers: { value: parts.headers },
    body: { value: parts.body },
    signal: { value: parts.signal },
  }) as Request;
}

/**
 * The public REST surface: trpc-to-openapi routes `/api/v1/*` to the procedures; around it this
 * adapter owns what the library does not do as our API requires (body limits and parsing, the
 * error envelope, statuses, headers). The library's handler is built once, not per request.
 */
function createRestAnswerer(router: OpenApiRouter, services: Services): (request: ApiRequest) => Promise<ApiAnswer> {
  const states = new WeakMap<object, RequestState>();
  const findRoute = createRouteMatcher(router);
  const handleOpenApi = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req }: { req: object }) => createContextInner(services, states.get(req) as RequestState),
    onError: ({ error, req }: { error: TRPCError; req: object }) => {
      const state = states.get(req);
      if (state && !state.error) state.error = toApiError(error, state);
    },
  } as Parameters<typeof createOpenApiNodeHttpHandler>[0]);

  async function answer(request: ApiRequest): Promise<ApiAnswer> {
    const url = request.url;
    const state = requestStateOf(request.method, url.pathname, request.headers);
    try {
      // First, so that nothing (not even an audited refusal) is free of the per-IP limit.
      await services.rateLimits.consume('ip', state.ip);
      if (!pathDecodes(url.pathname)) throw undecodablePathError();
      // Before anything reads the query (a refused key in it is audited).
      refuseUnsafeQuery(url.searchParams);
      const queryKey = keyInParams(url.searchParams);
      if (queryKey !== undefined) await refuseKeyInQuery(services, state, queryKey);
      const routedUrl = new URL(url);
      routedUrl.pathname = url.pathname.slice(API_PREFIX.length) || '/';
      // HEAD is a GET without the body (the server drops it); Next hands HEAD to this handler too.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const route = findRoute(method, routedUrl.pathname);
      if (!route) throw unknownRoute(state);
      state.route = route.template;

      let body: Record<string, unknown> | undefined;
      try {
        // The library hands path parameters on as sent (still encoded): judged as they read.
        for (const [name, value] of Object.entries(route.pattern.exec(normalizePath(routedUrl.pathname))?.groups ?? {})) {
          refuseUnsafeText(decodeURIComponent(value), [name]);
        }
        body = await readJsonBody(request);
        refuseUnsafeText(body);
      } catch (contentError) {
        // Credentials are judged before the path's ids and the body (as the procedure would): a
        // caller without a valid key learns nothing about its request. Only on this path, so auth runs once.
        if (route.auth) await authenticateRequest(createContextInner(services, state), route.auth);
        throw contentError;
      }
      state.body = body;
      const headers = new Headers(request.headers);
      if (body !== undefined) headers.set('content-type', 'application/json');
      const routed = routedRequest({ method, url: routedUrl.toString(), headers, body: body ?? {}, signal: request.signal });
      states.set(routed, state);

      const payload = await new Promise<string | undefined>((resolve, reject) => {
        const res = {
          statusCode: 200,
          setHeader: () => {},
          end: (chunk?: string) => resolve(chunk),
        };
        Promise.resolve(handleOpenApi(routed as unknown as IncomingMessage, res as unknown as ServerResponse)).catch(reject);
      });
      if (state.error) return errorAnswer(state.error, state);
      if (route.file && payload !== undefined) return fileAnswer(payload, state);
      return jsonAnswer(payload ?? '{}', state.successStatus ?? 200, state);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : toApiError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error }), state);
      return errorAnswer(apiError, state);
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
