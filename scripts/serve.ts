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
import { openMigratedDatabase } from '@/db/client';
import { closeAppServices } from '@/server/app-singleton';
import { API_PREFIX } from '@/server/http/api-handler';
import type { ApiHandler } from '@/server/http/transport';
import { createFront } from '@/server/host/front';
import { createApiPathMatcher, createRouteTemplates } from '@/server/host/next-routes';
import { createPageContexts } from '@/server/host/page-contexts';
import { dropForbiddenScripts } from '@/server/host/page-scripts';
import { pathDecodes, undecodablePathResponse } from '@/server/http/path-decoding';
import { publishedApp } from '@/server/host/published';
import { bootstrapDemoStore, ensureSecrets, formatDemoStoreBanner, saveDemoStoreTestKeys } from '@/server/bootstrap';
import { systemClock } from '@/server/clock';
import { errorField, log } from '@/server/observability/log';
import { loadConfigOrExit } from './config-or-exit';
import { onStopSignal } from './stop-signals';

/** Requests in flight when a stop begins get this long to finish; the exit follows within 30 s. */
const SHUTDOWN_GRACE_MS = 20_000;
/** Next's and React's request contexts are switched off once no page has been in flight this long. */
const PAGE_CONTEXTS_IDLE_MS = 1_000;

/**
 * The TypeScript loader turns on source maps for the whole process, and Node then keeps the map of
 * every module it loads, Next's built chunks included (with their sources): some 50 MB of a
 * server's memory for nicer stack traces. Off unless the operator asks with --enable-source-maps.
 */
if (!/--enable-source-maps\b/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`)) process.setSourceMapsEnabled(false);

const config = loadConfigOrExit();
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
  const appendedByProxy = trustProxy
    ? String(forwarded ?? '')
        .split(',')
        .pop()
        ?.trim()
    : undefined;
  req.headers['x-forwarded-for'] = appendedByProxy || req.socket.remoteAddress || 'unknown';
}

const appDir = path.join(process.cwd(), 'app');

/** /api/trpc, and /api/v1 paths without a route file of their own (Next serves those, as `next dev` does). */
const isApiPath = createApiPathMatcher(appDir);

/** A fetch Response written to a node:http answer. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': String(body.byteLength) });
  res.end(body);
}

const server = createServer();
// Before Next renders its first page.
const pageContexts = createPageContexts(PAGE_CONTEXTS_IDLE_MS);
const front = createFront(server, createRouteTemplates(appDir));

// The port is taken before the database is opened (scripts/start.mjs checked it and holds the
// data directory's lock; another program may still have taken the port meanwhile).
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.port, () => resolve());
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  log.error(`Port ${config.port} is already in use (is the service running already?). Set PORT to use another.`);
  process.exit(1);
});

/** Migrations and bootstrap, then Next; resolves once requests are served. */
async function startApp() {
  // PGlite allows one owner of its data dir: this connection is closed before Next starts, and
  // the route handlers then open the app singleton (server/app.ts) lazily on their first request.
  const database = await openMigratedDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir, poolSize: 1 });
  try {
    const demo = await bootstrapDemoStore({ db: database.db, clock: systemClock, maxProductsPerStore: config.maxProductsPerStore });
    if (demo) {
      await saveDemoStoreTestKeys(config.dataDir, demo);
      // Not a log line: the first start shows a person the demo store's keys (the quick start).
      console.log(formatDemoStoreBanner(demo, config.publicBaseUrl));
    }
  } finally {
    await database.close();
  }
  if (stopping) return undefined;

  const app = next({ dev: false, dir: process.cwd(), hostname: 'localhost', port: config.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  let apiHandler: ApiHandler | undefined;
  front.open({
    serve: (req, res) => {
      setClientAddress(req);
      const requestPath = (req.url ?? '/').split('?', 1)[0]!;
      // A path that does not decode is nobody's: answered here, before Next would fail on it.
      if (!pathDecodes(requestPath)) return sendResponse(res, undecodablePathResponse(requestPath, API_PREFIX)).then(() => undefined);
      // Next's build of the handler (the one the /api/v1 and /api/trpc route files serve), once
      // instrumentation.ts has published it; until then Next routes. Kept once started: a
      // promise and a turn less for every API request.
      if (isApiPath(requestPath)) {
        if (apiHandler) return apiHandler.node(req, res);
        const published = publishedApp();
        if (published) {
          return published.getApiHandler().then((api) => {
            apiHandler = api;
            return api.node(req, res);
          });
        }
      }
      // A page whose CSP allows no script (or only its own, by hash) is sent without Next's.
      dropForbiddenScripts(res);
      pageContexts.track(res);
      return handle(req, res).then(() => undefined);
    },
    checkDatabase: () => publishedApp()?.checkDatabase() ?? Promise.reject(new Error('Next has not started its server yet')),
    metricsToken: config.metricsToken,
    maxInFlight: config.maxInFlight,
    queueTimeoutMs: config.queueTimeoutMs,
  });
  // Next starts its server, which runs instrumentation.ts (publishing the app), on its first
  // request: one now, so that /readyz can answer before anyone has asked Next for a page.
  await fetch(`http://127.0.0.1:${config.port}/`, { method: 'HEAD' }).catch(() => undefined);
  // Live mode is on for every store unless switched off, and its payments need the acquirer.
  if (!config.gateway.secretKey) {
    log.warn('Live mode has no payment gateway configured (GATEWAY_SECRET_KEY is unset): live payments are refused, nothing is charged, until it is set.');
  }
  log.info(`Payments service ready on http://localhost:${config.port} (database: ${config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.pgliteDir}`})`);
  return app;
}

let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  stopping = true;
  log.info(`${signal}: finishing requests in flight, then stopping.`);
  // At once /readyz answers 503; then no new connection is accepted, and requests already received finish.
  const closed = front.close(SHUTDOWN_GRACE_MS);
  // A signal during start-up waits for it, so that a migration is never cut off halfway.
  const app = await starting.catch(() => undefined);
  await closed;
  try {
    await app?.close();
    // Background work stops once its run in progress is done, then the database closes.
    await closeAppServices();
  } catch (error) {
    log.error({ err: errorField(error) }, 'Error while stopping');
    process.exitCode = 1;
  }
  log.info('Stopped.');
  // Timers Next keeps would otherwise hold the process open.
  process.exit();
}

onStopSignal((signal) => void shutdown(signal));

const starting = startApp();
await starting;
