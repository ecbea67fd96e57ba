/**
 * `npm run listen -- --forward-to URL [--events t1,t2] [--api-key sk_…] [--service-url URL]`:
 * follows the store's events over the API (GET /api/v1/events, so a remote service works too) and
 * posts each one to URL as a webhook delivery would, signed with a secret of its own. The secret
 * and where it got to are kept in a state file per service and key, so a restart continues after
 * the last event it forwarded, under the same secret. Exit codes: 0 stopped, 1 key refused,
 * 2 the command line is wrong.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { epochSeconds } from '@/server/clock';
import { sha256Hex } from '@/server/ids';
import { isAbsoluteHttpUrl } from '@/server/kit/fields';
import { DELIVERY_TIMEOUT_MS, webhookHeaders } from '@/server/webhooks/delivery';
import { EVENT_TYPES } from '@/server/webhooks/events';
import { isEventTypeFilter } from '@/server/events/schemas';
import { sendWebhook } from '@/server/webhooks/sender';
import { onStopSignal } from './stop-signals';

const POLL_MS = 1_000;
const API_TIMEOUT_MS = 10_000;
/**
 * A transaction may record an event before another and commit after it, so an event can appear
 * behind one already read. Reading resumes after the newest event seen SETTLE_MS ago or more, and
 * the ids seen since are remembered (WINDOW_MS) to forward each of them once.
 */
const SETTLE_MS = 10_000;
const WINDOW_MS = 30_000;

const USAGE = 'Usage: npm run listen -- --forward-to URL [--events type1,type2] [--api-key sk_…] [--service-url URL]';

interface ListedEvent {
  id: string;
  type: string;
  [field: string]: unknown;
}

interface EventPage {
  data: ListedEvent[];
  has_more: boolean;
  livemode: boolean;
}

interface State {
  secret: string;
  /** Reading resumes after this event; null when the store had none yet. */
  cursor: string | null;
  /** Ids seen after or shortly before the cursor, with when (epoch ms). */
  recent: [string, number][];
}

/** Stops the command with one line and an exit code. */
class Exit extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** A non-2xx answer of the API. */
class ApiAnswer extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: { 'forward-to': { type: 'string' }, events: { type: 'string' }, 'api-key': { type: 'string' }, 'service-url': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new Exit(`${(error as Error).message}\n${USAGE}`, 2);
  }
  const forwardTo = parsed['forward-to'];
  if (!forwardTo || !isAbsoluteHttpUrl(forwardTo)) throw new Exit(`--forward-to needs the absolute http(s) URL of your webhook handler.\n${USAGE}`, 2);
  const apiKey = parsed['api-key'] || process.env.SERVICE_API_KEY;
  if (!apiKey) throw new Exit(`No API key: pass --api-key sk_test_… or set SERVICE_API_KEY (the secret key of the store to follow).\n${USAGE}`, 2);
  const serviceUrl = (parsed['service-url'] || process.env.SERVICE_URL || `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, '');
  const events = parsed.events
    ?.split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  // One type, or a prefix of types ending in `.*`, as the API's `type` filter takes them.
  const matches = (filter: string, type: string) => type === filter || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1)));
  const unknown = events?.filter((filter) => !isEventTypeFilter(filter));
  if (unknown?.length) throw new Exit(`Unknown event type ${unknown.join(', ')}; the types are: ${EVENT_TYPES.join(', ')}.`, 2);
  return { forwardTo, apiKey, serviceUrl, wanted: (type: string) => !events?.length || events.some((filter) => matches(filter, type)) };
}

const { forwardTo, apiKey, serviceUrl, wanted } = (() => {
  try {
    return options();
  } catch (error) {
    console.error((error as Error).message);
    process.exit((error as Exit).code);
  }
})();

onStopSignal(() => process.exit(0));

async function listEvents(query: Record<string, string>): Promise<EventPage> {
  const response = await fetch(`${serviceUrl}/api/v1/events?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${apiKey}` },
    signal: AbortSignal.timeout(API_TIMEOUT_MS),
  });
  const body = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
  if (!response.ok) throw new ApiAnswer(response.status, body?.error?.code, body?.error?.message ?? response.statusText);
  return body as EventPage;
}

/** Why the service could not be asked: the connection's error code, or its answer. */
function unreachableBecause(error: unknown): string {
  if (error instanceof ApiAnswer) return `it answered ${error.status}${error.code ? ` ${error.code}` : ''}`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** A refused key ends the command: retrying cannot help. */
function refusedKey(error: unknown): Exit | undefined {
  if (!(error instanceof ApiAnswer) || error.status !== 401) return undefined;
  const hint = error.code === 'wrong_key_type' ? 'events are read with a secret key (sk_test_… or sk_live_…), not a publishable one' : error.message;
  return new Exit(`The service at ${serviceUrl} refused the API key (${error.code ?? 401}): ${hint}`, 1);
}

/** One line when the service stops answering, one when it is back; none per failed poll. */
let outage = false;
async function whenReachable<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const result = await call();
      if (outage) console.log(`${time()}  The service at ${serviceUrl} answers again; following on.`);
      outage = false;
      return result;
    } catch (error) {
      const refused = refusedKey(error);
      if (refused || (error instanceof ApiAnswer && error.status === 404)) throw refused ?? error;
      if (!outage) console.log(`${time()}  Cannot follow the service at ${serviceUrl} (${unreachableBecause(error)}); trying again every ${POLL_MS / 1000} s.`);
      outage = true;
      await sleep(POLL_MS);
    }
  }
}

const time = () => new Date().toTimeString().slice(0, 8);

const stateFile = path.join(process.env.LISTEN_STATE_DIR || path.join('.data', 'listen'), `${sha256Hex(`${serviceUrl}\n${apiKey}`)}.json`);

function readState(): State | undefined {
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8')) as State;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Written before each forward (a replaced file, never a torn one): an event being sent when the command stops is not sent again. */
function saveState(state: State): void {
  mkdirSync(path.dirname(stateFile), { recursive: true });
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
  renameSync(`${stateFile}.tmp`, stateFile);
}

/** The newest event now: following starts after it. */
async function newestEvent(): Promise<string | null> {
  return (await whenReachable(() => listEvents({ limit: '1' }))).data[0]?.id ?? null;
}

/** Every event recorded after `cursor` (the whole log when null), oldest first. */
async function eventsAfter(cursor: string | null): Promise<ListedEvent[]> {
  const events: ListedEvent[] = [];
  let page: EventPage;
  if (cursor === null) {
    do {
      page = await listEvents({ limit: '100', ...(events[0] ? { starting_after: events[0].id } : {}) });
      events.unshift(...page.data.reverse());
    } while (page.has_more);
  } else {
    do {
      page = await listEvents({ limit: '100', ending_before: events.at(-1)?.id ?? cursor });
      events.push(...page.data.reverse());
    } while (page.has_more);
  }
  return events;
}

async function forward(event: ListedEvent): Promise<void> {
  const body = JSON.stringify(event);
  // The receiver is the developer's own: loopback and private addresses are fine, as in test mode.
  const answer = await sendWebhook({
    url: forwardTo,
    livemode: false,
    allowPrivate: true,
    headers: webhookHeaders(state.secret, event.id, epochSeconds(new Date()), body),
    body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
  });
  console.log(`${time()}  ${event.type}  ${event.id}  ${answer.status !== null ? `→ ${answer.status}` : `→ failed: ${answer.error}`}`);
}

let state: State;

async function follow(): Promise<never> {
  for (;;) {
    let events: ListedEvent[];
    try {
      events = await whenReachable(() => eventsAfter(state.cursor));
    } catch (error) {
      if (!(error instanceof ApiAnswer && error.code === 'resource_missing')) throw error;
      console.log(`${time()}  The service no longer knows the last event followed (${state.cursor}): was its database reset? Following from now.`);
      state = { ...state, cursor: await newestEvent(), recent: [] };
      saveState(state);
      continue;
    }
    const now = Date.now();
    const seen = new Map(state.recent);
    for (const event of events) {
      if (seen.has(event.id)) continue;
      seen.set(event.id, now);
      state.recent = [...seen];
      saveState(state);
      if (wanted(event.type)) await forward(event);
    }
    const settled = events.findLast((event) => seen.get(event.id)! <= now - SETTLE_MS);
    // Every id after the new cursor was seen less than SETTLE_MS ago, so this keeps them all.
    state = { ...state, cursor: settled?.id ?? state.cursor, recent: [...seen].filter(([, at]) => at > now - WINDOW_MS) };
    saveState(state);
    await sleep(POLL_MS);
  }
}

try {
  // The first call checks the key, and on a first run gives where to start.
  const start = await whenReachable(() => listEvents({ limit: '1' }));
  state = readState() ?? { secret: `whsec_${randomBytes(32).toString('base64')}`, cursor: start.data[0]?.id ?? null, recent: [] };
  saveState(state);
  console.log(`Ready! Forwarding ${start.livemode ? 'live' : 'test'}-mode events from ${serviceUrl} to ${forwardTo}. Webhook signing secret: ${state.secret} (Ctrl-C to stop)`);
  await follow();
} catch (error) {
  console.error(error instanceof Exit ? error.message : `Error: ${(error as Error).message}`);
  process.exit(error instanceof Exit ? error.code : 1);
}
