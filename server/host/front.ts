import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { newRequestId } from '../context';
import { ApiError } from '../errors';
import { errorField, log, requestLog } from '../observability/log';
import { countRequest, METRICS_CONTENT_TYPE, metricsText } from '../observability/metrics';

/**
 * What every request to `npm start` passes through, in one place (scripts/serve.ts hands it the
 * API handler and Next): its `Request-Id`, its log line and its metrics, the instance's bound on
 * requests in flight, the operator's endpoints (/healthz, /readyz, /metrics), and a stop that
 * lets every request already on a connection finish.
 */
export interface FrontOptions {
  /**
   * Serves a request (its id is in its `Request-Id` header, server/context.ts); resolves to the
   * route template it matched, when it knows it.
   */
  serve: (req: IncomingMessage, res: ServerResponse) => Promise<string | undefined>;
  /** Resolves when the database answers with its migrations applied; rejects otherwise. */
  checkDatabase: () => Promise<void>;
  metricsToken: string | undefined;
  /** Requests served at once; more wait their turn (createInFlightBound). */
  maxInFlight: number;
  /** The longest wait a request is queued for; one that cannot expect its turn within it is refused at once. */
  queueTimeoutMs: number;
}

export interface Front {
  /** From now on requests are served (until then they are answered 503, as while starting). */
  open(options: FrontOptions): void;
  /**
   * Stops accepting connections, answers the requests already received or arriving on open
   * connections (each answer closes its connection), and resolves once every connection is
   * gone; after `graceMs` the remaining ones are cut.
   */
  close(graceMs: number): Promise<void>;
}

const READINESS_TIMEOUT_MS = 2_000;
/**
 * How often, and at most how long, a stop waits for the kernel's queue of connections to empty.
 * A second without a new connection: clients on a loaded machine connect in bursts.
 */
const ACCEPT_CHECK_MS = 1_000;
const ACCEPT_DRAIN_MAX_MS = 8_000;
const BUSY_RETRY_AFTER_SECONDS = 1;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, error.toBody(), error.retryAfter === undefined ? headers : { ...headers, 'retry-after': String(error.retryAfter) });
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time: the token's bytes must not be learnable from how fast a wrong one is refused. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const sent = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  return sent !== undefined && timingSafeEqual(digest(sent), digest(token));
}

/** Resolves once the request's body has been read to its end (and dropped), or its connection is gone. */
function requestRead(req: IncomingMessage): Promise<void> {
  if (req.complete) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve).once('close', resolve).resume();
  });
}

/** Weight of each new interval between answers in the running mean: about the last ten count. */
const INTERVAL_SMOOTHING = 0.1;

/**
 * The instance's bound: `maxInFlight` requests are served at once, never refused; beyond them a
 * request waits its turn, first come, first served. The wait a newcomer can expect is the
 * requests ahead of it (in flight and waiting) times the recent mean interval between answers
 * while busy; one whose expected wait exceeds `queueTimeoutMs` is refused at once, so the queue
 * holds only what it can serve in time, however slow the machine is. One queued on a low
 * estimate is still refused when its turn has not come after `queueTimeoutMs`.
 * `now` is the clock in milliseconds (a test's own).
 */
export function createInFlightBound(maxInFlight: number, queueTimeoutMs: number, now: () => number = () => performance.now()) {
  let inFlight = 0;
  const waiting = new Set<{ start: () => void; timer: NodeJS.Timeout }>();
  const maxWaiting = maxInFlight * 4;
  /** Running mean of the milliseconds between answers while busy: from 0, so a fresh instance starts trusting. */
  let interval = 0;
  /** When the last answer left, or when the instance last became busy. */
  let since = 0;
  return {
    /** True when the request may start now, false when it is refused now, else when its turn comes or its wait ends. */
    enter(): boolean | Promise<boolean> {
      if (inFlight < maxInFlight) {
        if (inFlight === 0) since = now();
        inFlight += 1;
        return true;
      }
      if (waiting.size >= maxWaiting || (inFlight + waiting.size) * interval > queueTimeoutMs) return false;
      return new Promise<boolean>((resolve) => {
        const entry = {
          start: () => resolve(true),
          timer: setTimeout(() => {
            waiting.delete(entry);
            resolve(false);
          }, queueTimeoutMs),
        };
        waiting.add(entry);
      });
    },
    /** A request finished: its slot passes to the longest waiting one. */
    leave(): void {
      const answered = now();
      interval += (answered - since - interval) * INTERVAL_SMOOTHING;
      since = answered;
      const next = waiting.values().next().value;
      if (!next) {
        inFlight -= 1;
        return;
      }
      waiting.delete(next);
      clearTimeout(next.timer);
      next.start();
    },
  };
}

/**
 * `routeOf` names the route template of a path for logs and metrics (Next's pages; the API
 * handler names its own), never a raw path with its ids.
 */
export function createFront(server: Server, routeOf: (path: string) => string): Front {
  let options: FrontOptions | undefined;
  let bound: ReturnType<typeof createInFlightBound> | undefined;
  let stopping = false;
  /**
   * Open connections: the answer each is busy with, and whether it has answered one before (then,
   * without one in progress, it is an idle keep-alive connection). A connection that has not
   * sent its first request yet is neither: its request is on its way, and gets its answer.
   */
  const connections = new Map<Socket, { response: ServerResponse | undefined; served: boolean }>();

  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted += 1;
    connections.set(socket, { response: undefined, served: false });
    socket.once('close', () => connections.delete(socket));
  });

  /**
   * Connections the kernel has completed wait in its queue until the event loop takes them in,
   * which a loop kept busy (embedded PGlite computes on it) does late; closing the listener then
   * would reset them, requests sent and all. So a stop first takes in what is queued: once a
   * check finds nothing new taken in since the one before, the queue was empty at the loop's
   * last look. Each check comes after the loop has polled: a timer that fell due while the loop
   * was busy runs before the pending connections are taken in, so it alone would count too few.
   */
  async function acceptQueuedConnections(): Promise<void> {
    const until = Date.now() + ACCEPT_DRAIN_MAX_MS;
    let seen = -1;
    while (seen !== accepted && Date.now() < until) {
      seen = accepted;
      await new Promise((resolve) => setTimeout(resolve, ACCEPT_CHECK_MS));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async function answerReadiness(res: ServerResponse): Promise<void> {
    if (stopping || !options) {
      const failing = stopping ? { shutdown: 'in_progress' } : { database: 'starting' };
      return sendJson(res, 503, { status: 'not_ready', checks: failing });
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), READINESS_TIMEOUT_MS);
    });
    try {
      await Promise.race([options.checkDatabase(), timedOut]);
      sendJson(res, 200, { status: 'ready', checks: { database: 'ok' } });
    } catch (error) {
      log.warn({ err: errorField(error) }, 'readiness: the database check failed');
      sendJson(res, 503, { status: 'not_ready', checks: { database: 'failing' } });
    } finally {
      clearTimeout(timer);
    }
  }

  async function answerMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = options?.metricsToken;
    if (!token) return sendError(res, new ApiError('resource_missing', 'Metrics are off: set METRICS_TOKEN to serve them.'));
    if (!bearerMatches(req.headers.authorization, token)) {
      return sendError(res, new ApiError('invalid_api_key', 'Send `Authorization: Bearer <METRICS_TOKEN>`.'), { 'www-authenticate': 'Bearer' });
    }
    const text = await metricsText();
    res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' });
    res.end(text);
  }

  /** The operator's endpoints: never refused for load, so a busy instance still tells how it is. */
  const OPERATIONS: Record<string, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>> = {
    '/healthz': (_req, res) => sendJson(res, 200, { status: 'ok' }),
    '/readyz': (_req, res) => answerReadiness(res),
    '/metrics': answerMetrics,
  };

  /** Resolves to the route template the API handler matched, if it served the request. */
  async function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<string | undefined> {
    const operation = Object.hasOwn(OPERATIONS, path) ? OPERATIONS[path] : undefined;
    if (operation) return void (await operation(req, res));
    if (!options || !bound) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
      return void res.end('Starting, try again in a moment.\n');
    }
    const admitted = bound.enter();
    if (admitted !== true && !(await admitted)) {
      // The connection closes with the refusal: a client would otherwise send its next request at
      // once on it, before Retry-After, and a stop could end the idle connection as that one arrives.
      // Its body is read to the end first: closing with bytes unread resets the connection, and
      // the client may lose the answer.
      await requestRead(req);
      return void sendError(res, new ApiError('service_busy', 'This instance is too busy to take the request now; retry shortly.', { retryAfter: BUSY_RETRY_AFTER_SECONDS }), {
        connection: 'close',
      });
    }
    try {
      return await options.serve(req, res);
    } finally {
      bound.leave();
    }
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = newRequestId();
    const connection = connections.get(req.socket);
    if (connection) connection.response = res;
    // Replaces any id a client sent: the handlers behind answer and log under this one.
    req.headers['request-id'] = requestId;
    res.setHeader('request-id', requestId);
    // Keep-alive connections close after their answer once a stop has begun.
    if (stopping) res.setHeader('connection', 'close');
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const method = req.method ?? 'GET';
    let route: string | undefined;
    // The line is written once the answer is out and the route is known, whichever comes last.
    let pending = 2;
    const done = () => {
      if (--pending > 0) return;
      route ??= Object.hasOwn(OPERATIONS, path) ? path : routeOf(path);
      const seconds = (performance.now() - started) / 1000;
      countRequest(method, route, res.statusCode, seconds);
      const line = { request_id: requestId, method, route, status: res.statusCode, duration_ms: Math.round(seconds * 1000) };
      if (Object.hasOwn(OPERATIONS, path)) requestLog.debug(line, 'request');
      else requestLog.info(line, 'request');
    };
    res.once('close', () => {
      if (connection) {
        connection.response = undefined;
        connection.served = true;
      }
      if (stopping) req.socket.end();
      done();
    });
    serve(req, res, path)
      .then(
        (served) => {
          if (served) route = served;
        },
        (error: unknown) => {
          log.error({ request_id: requestId, err: errorField(error) }, 'request failed');
          if (!res.headersSent) sendError(res, new ApiError('internal_error', `An internal error occurred. Request id: ${requestId}.`));
          else res.end();
        },
      )
      .finally(done);
  });

  return {
    open(opened) {
      options = opened;
      bound = createInFlightBound(opened.maxInFlight, opened.queueTimeoutMs);
    },
    async close(graceMs) {
      stopping = true;
      await acceptQueuedConnections();
      // net.Server's own close only stops listening: http.Server's would also drop every
      // connection without a request in progress, those whose request is still on its way among
      // them, and their clients would see a reset instead of an answer.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      for (const [socket, { response, served }] of connections) {
        if (response && !response.headersSent) response.setHeader('connection', 'close');
        else if (!response && served) socket.end();
      }
      const grace = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(grace);
    },
  };
}
