import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler, forEachOpenApiProcedure, getPathRegExp, normalizePath, type OpenApiProcedureRecord, type OpenApiRouter } from 'trpc-to-openapi';
import { recordAudit } from '../audit/service';
import { authenticateRequest, keyHint, type KeyAcceptance } from '../auth/service';
import { createContextInner, requestStateOf, type RequestState, type Services } from '../context';
import { ApiError } from '../errors';
import type { ApiMeta } from '../trpc';
import { readIncomingText, readJsonBody, readRequestText } from './body';
import { apiErrorFromZod } from './zod-errors';

export const API_PREFIX = '/api/v1';

const QUERY_KEY_NAMES = new Set(['api_key', 'apikey', 'key']);
/** The form of a key; shorter values such as `sk_blue` are ordinary (a SKU filter). */
const KEY_SHAPED_VALUE = /^(sk|pk)_(test|live)_[0-9A-Za-z]{16,}$/;

/**
 * A key in the query string (a parameter named like one, or a key-shaped value) is refused even
 * beside a valid header.
 */
function keyInQuery(url: URL): string | undefined {
  for (const [name, value] of url.searchParams) {
    if (QUERY_KEY_NAMES.has(name.toLowerCase()) || KEY_SHAPED_VALUE.test(value)) return value;
  }
  return undefined;
}

const unknownRoute = (state: RequestState) => new ApiError('resource_missing', `Unrecognized request URL (${state.method} ${state.path}).`);

interface Route {
  method: string;
  pattern: RegExp;
  /** The keys the operation accepts (its procedure base sets this meta). */
  auth: KeyAcceptance | undefined;
}

/**
 * Finds the public operation a method and path name, matched as the library matches them. The
 * route is decided before the body is read, so an unknown route or method is 404 whatever its body.
 */
function createRouteMatcher(router: OpenApiRouter): (method: string, path: string) => Route | undefined {
  const routes: Route[] = [];
  forEachOpenApiProcedure<ApiMeta>(router._def.procedures as OpenApiProcedureRecord, ({ meta }) => {
    routes.push({ method: meta.openapi.method, pattern: getPathRegExp(normalizePath(meta.openapi.path)), auth: meta.auth });
  });
  return (method, path) => {
    const normalized = normalizePath(path);
    return routes.find((route) => route.method === method && route.pattern.test(normalized));
  };
}

function toApiError(error: TRPCError, state: RequestState): ApiError {
  const cause = error.cause;
  if (cause instanceof ApiError) return cause;
  if (error.code === 'BAD_REQUEST' && cause && 'issues' in cause && Array.isArray(cause.issues)) {
    return apiErrorFromZod(cause as Parameters<typeof apiErrorFromZod>[0]);
  }
  switch (error.code) {
    case 'NOT_FOUND':
      return unknownRoute(state);
    case 'PARSE_ERROR':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send JSON with `Content-Type: application/json`.');
    case 'PAYLOAD_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large.');
    default:
      // Never leak a stack, SQL or driver message: log it under the request id instead.
      console.error(`[${state.id}] ${state.method} ${state.path} failed:`, cause ?? error);
      return new ApiError('internal_error', `An internal error occurred. Request id: ${state.id}.`);
  }
}

/** One API request, whichever server received it: Next's route handler, the test server or scripts/serve.ts. */
interface ApiRequest {
  method: string;
  url: URL;
  headers: Headers;
  signal: AbortSignal;
  /** The capped body text (server/http/body.ts). */
  readText(): Promise<string>;
}

interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function jsonAnswer(body: string, status: number, state: RequestState, extra: Record<string, string> = {}): ApiAnswer {
  return {
    status,
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

/** Headers of a node:http request as a fetch `Headers` (what procedures read). */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** A node:http request is never aborted for a procedure: nothing here streams or cancels. */
const NEVER_ABORTED = new AbortController().signal;

export interface ApiHandler {
  (request: Request): Promise<Response>;
  /** The same handler straight on node:http, with no fetch Request/Response in between (scripts/serve.ts). */
  node(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * The public REST surface: trpc-to-openapi routes `/api/v1/*` to the procedures; around it this
 * adapter owns what the library does not do as our API requires (body limits and parsing, the
 * error envelope, statuses, headers). The library's handler is built once, not per request.
 * The app hands the router in (server/app.ts), so this layer never imports the domains.
 */
export function createApiHandlerFor(router: OpenApiRouter, services: Services): ApiHandler {
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
      const queryKey = keyInQuery(url);
      if (queryKey !== undefined) {
        await recordAudit(services.db, { action: 'auth.failed', code: 'invalid_api_key', keyHint: keyHint(queryKey), ip: state.ip, method: state.method, path: state.path });
        throw new ApiError('invalid_api_key', 'API keys must be sent in the Authorization header, never in the query string. Roll this key: it may have been logged.');
      }
      const routedUrl = new URL(url);
      routedUrl.pathname = url.pathname.slice(API_PREFIX.length) || '/';
      // HEAD is a GET without the body (the server drops it); Next hands HEAD to this handler too.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const route = findRoute(method, routedUrl.pathname);
      if (!route) throw unknownRoute(state);

      let body: Record<string, unknown> | undefined;
      try {
        body = await readJsonBody(request);
      } catch (bodyError) {
        // Credentials are judged before the body (as the procedure would): a caller without a
        // valid key learns nothing about its request. Only on this path, so auth runs once.
        if (route.auth) await authenticateRequest(createContextInner(services, state), route.auth);
        throw bodyError;
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
      return jsonAnswer(payload ?? '{}', state.successStatus ?? 200, state);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : toApiError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error }), state);
      return errorAnswer(apiError, state);
    }
  }

  const handleApiRequest = async (request: Request): Promise<Response> => {
    const result = await answer({
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      signal: request.signal,
      readText: () => readRequestText(request),
    });
    return new Response(result.body, { status: result.status, headers: result.headers });
  };

  return Object.assign(handleApiRequest, {
    async node(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const headers = headersOf(req);
      const result = await answer({
        method: req.method ?? 'GET',
        url: new URL(`http://localhost${req.url ?? '/'}`),
        headers,
        signal: NEVER_ABORTED,
        readText: () => readIncomingText(req, headers),
      });
      // A known length spares the chunked framing: headers and body leave in one write.
      res.writeHead(result.status, { ...result.headers, 'content-length': String(Buffer.byteLength(result.body)) });
      res.end(result.body);
    },
  });
}
