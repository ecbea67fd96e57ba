import type { IncomingMessage, ServerResponse } from 'node:http';
import { readIncomingText, readRequestText } from './body';

/** One API request, whichever server received it: Next's route handler, the test server or scripts/serve.ts. */
export interface ApiRequest {
  method: string;
  url: URL;
  headers: Headers;
  signal: AbortSignal;
  /** The capped body text (server/http/body.ts). */
  readText(): Promise<string>;
}

export interface ApiAnswer {
  status: number;
  /** The route template the request matched, for logs and metrics. */
  route: string;
  headers: Record<string, string>;
  /** JSON text, or a file's bytes (a PDF). */
  body: string | Buffer<ArrayBuffer>;
}

export interface ApiHandler {
  (request: Request): Promise<Response>;
  /**
   * The same handler straight on node:http, with no fetch Request/Response in between
   * (scripts/serve.ts); resolves to the route template it matched.
   */
  node(req: IncomingMessage, res: ServerResponse): Promise<string>;
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

/** Serves `answer` to fetch-style callers and straight on node:http. */
export function serveAnswers(answer: (request: ApiRequest) => Promise<ApiAnswer>): ApiHandler {
  const handleRequest = async (request: Request): Promise<Response> => {
    const result = await answer({
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      signal: request.signal,
      readText: () => readRequestText(request),
    });
    return new Response(result.body, { status: result.status, headers: result.headers });
  };

  return Object.assign(handleRequest, {
    async node(req: IncomingMessage, res: ServerResponse): Promise<string> {
      const headers = headersOf(req);
      const result = await answer({
        method: req.method ?? 'GET',
        url: new URL(`http://localhost${req.url ?? '/'}`),
        headers,
        signal: NEVER_ABORTED,
        readText: () => readIncomingText(req, headers),
      });
      // A known length spares the chunked framing: headers and body leave in one write.
      // The length first: a leading spread is slow.
      res.writeHead(result.status, { 'content-length': String(Buffer.byteLength(result.body)), ...result.headers });
      res.end(result.body);
      return result.route;
    },
  });
}
