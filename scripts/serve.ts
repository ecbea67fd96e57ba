/**
 * The production server behind `npm start` (scripts/start.mjs runs it after building):
 * migrations and bootstrap first, then Next behind a small node:http front. The public API
 * (REST under /api/v1, tRPC under /api/trpc) goes straight to its handler: through Next's
 * request pipeline it served a third less (checkout) to
 * half (product list) of the requests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import next from 'next';
import { migrateDatabase, openDatabase } from '@/db/client';
import { closeAppServices } from '@/server/app';
import { API_PREFIX } from '@/server/http/api-handler';
import { createApiPathMatcher } from '@/server/http/next-routes';
import { pathDecodes, undecodablePathResponse } from '@/server/http/path-decoding';
import { publishedApiHandler } from '@/server/http/published';
import { bootstrapDemoStore, ensureSecrets, formatDemoStoreBanner, saveDemoStoreTestKeys } from '@/server/bootstrap';
import { systemClock } from '@/server/clock';
import { loadConfig } from '@/server/config';
import { onStopSignal } from './stop-signals';

const SHUTDOWN_GRACE_MS = 10_000;

const config = loadConfig();
const trustProxy = process.env.TRUST_PROXY === 'true';

// Route handlers (bundled by Next, in this process) read both from the environment.
const secrets = await ensureSecrets(config);
process.env.ADMIN_TOKEN = secrets.adminToken;
process.env.AUTH_SECRET = secrets.authSecret;

/**
 * Per-IP rate limits read the first X-Forwarded-For entry (clientIp in server/context.ts), so a
 * client must not choose it. Without a trusted proxy it is the socket's address. Behind one, it
 * is the last entry: the address the proxy itself appended (earlier entries are the client's own
 * words, e.g. nginx's $proxy_add_x_forwarded_for keeps whatever the client sent).
 */
function setClientAddress(req: IncomingMessage): void {
  const forwarded = req.headers['x-forwarded-for'];
  const appendedByProxy = trustProxy ? String(forwarded ?? '').split(',').pop()?.trim() : undefined;
  req.headers['x-forwarded-for'] = appendedByProxy || req.socket.remoteAddress || 'unknown';
}

/** /api/trpc, and /api/v1 paths without a route file of their own (Next serves those, as `next dev` does). */
const isApiPath = createApiPathMatcher(path.join(process.cwd(), 'app'));

/** A fetch Response written to a node:http answer. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': String(body.byteLength) });
  res.end(body);
}

function answerInternalError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  console.error(`${req.method} ${req.url} failed:`, error);
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { type: 'api_error', code: 'internal_error', message: 'An internal error occurred.' } }));
}

let handleReady: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
const server = createServer((req, res) => {
  if (handleReady) return handleReady(req, res);
  res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
  res.end('Starting, try again in a moment.\n');
});

// The port is taken first: a second `npm start` then stops here, before it opens the data dir
// that the running one owns (PGlite does not guard against two processes).
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.port, () => resolve());
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  console.error(`Port ${config.port} is already in use (is the service running already?). Set PORT to use another.`);
  process.exit(1);
});

/** Migrations and bootstrap, then Next; resolves once requests are served. */
async function startApp() {
  // PGlite allows one owner of its data dir: this connection is closed before Next starts, and
  // the route handlers then open the app singleton (server/app.ts) lazily on their first request.
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir, poolSize: 1 });
  try {
    await migrateDatabase(database, config.databaseUrl);
    const demo = await bootstrapDemoStore({ db: database.db, clock: systemClock, maxProductsPerStore: config.maxProductsPerStore });
    if (demo) {
      await saveDemoStoreTestKeys(config.dataDir, demo);
      console.log(formatDemoStoreBanner(demo, config.publicBaseUrl));
    }
  } finally {
    await database.close();
  }
  if (stopping) return undefined;

  const app = next({ dev: false, dir: process.cwd(), hostname: 'localhost', port: config.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  handleReady = (req, res) => {
    setClientAddress(req);
    const requestPath = (req.url ?? '/').split('?', 1)[0]!;
    if (!pathDecodes(requestPath)) return void sendResponse(res, undecodablePathResponse(requestPath, API_PREFIX)).catch((error: unknown) => answerInternalError(req, res, error));
    // Next's build of the handler (the one the /api/v1 and /api/trpc route files serve): instrumentation.ts
    // publishes it when Next prepares its server, on the first request; until then Next routes.
    const getApiHandler = publishedApiHandler();
    const handled = getApiHandler && isApiPath(requestPath) ? getApiHandler().then((api) => api.node(req, res)) : handle(req, res);
    handled.catch((error: unknown) => answerInternalError(req, res, error));
  };
  // Live mode is on for every store unless switched off, and its payments need the acquirer.
  if (!config.gateway.secretKey) {
    console.warn('Warning: live mode has no payment gateway configured (GATEWAY_SECRET_KEY is unset): live payments are refused, nothing is charged, until it is set.');
  }
  console.log(`Payments service ready on http://localhost:${config.port} (database: ${config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.pgliteDir}`})`);
  return app;
}

let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  stopping = true;
  console.log(`${signal}: finishing requests in flight, then stopping.`);
  // A signal during start-up waits for it, so that a migration is never cut off halfway.
  const app = await starting.catch(() => undefined);
  // Idle keep-alive sockets would hold close() open, including those that fall idle once their
  // last response is sent; busy ones get the grace period.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleCloser = setInterval(() => server.closeIdleConnections(), 100);
  const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearInterval(idleCloser);
  clearTimeout(grace);
  try {
    await app?.close();
    await closeAppServices();
  } catch (error) {
    console.error('Error while stopping:', error);
    process.exitCode = 1;
  }
  console.log('Stopped.');
  // Timers Next keeps would otherwise hold the process open.
  process.exit();
}

onStopSignal((signal) => void shutdown(signal));

const starting = startApp();
await starting;
