import { pino, stdTimeFunctions, type Logger } from 'pino';

/**
 * The process's logger: a short line per entry for a person at a terminal, one JSON object per
 * line (`time`, `level`, `msg`, then the fields) for whatever collects the output otherwise;
 * LOG_FORMAT=pretty or json chooses. LOG_LEVEL (default `info`).
 * Nothing secret belongs in a field; the redaction below is a safety net for a field that slips
 * in, since a log is read by more people than the database.
 */
const SECRET_FIELDS = ['authorization', 'cookie', 'password', 'secret', 'client_secret', 'token', 'card_number', 'cvc', 'totp_secret'];

/** A human-readable line for a terminal: `12:00:01 INFO  msg key=value …`. */
const prettyDestination = {
  write(line: string): void {
    const { time, level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const rest = Object.entries(fields).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    process.stdout.write(`${String(time).slice(11, 19)} ${String(level).toUpperCase().padEnd(5)} ${String(msg ?? '')}${rest.length ? ` ${rest.join(' ')}` : ''}\n`);
  },
};

const LOG_BATCH_MS = 10;

/**
 * Standard output, at most one write every LOG_BATCH_MS: the lines logged meanwhile (a request
 * line each, under load many) leave together, since a system call per line, and then per turn of
 * the event loop, cost a few percent of a request's CPU. A line logged just before the process
 * exits is written on exit.
 */
function batchedStdout(): { write(line: string): void } {
  const stdout = pino.destination({ dest: 1, sync: true });
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    stdout.write(text);
  };
  process.on('exit', flush);
  return {
    write(line) {
      if (pending.push(line) === 1) setTimeout(flush, LOG_BATCH_MS);
    },
  };
}

interface Loggers {
  log: Logger;
  requestLog: Logger;
}

function createLoggers(env: Record<string, string | undefined>): Loggers {
  const options = {
    level: env.LOG_LEVEL || 'info',
    base: undefined,
    messageKey: 'msg',
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  const pretty = env.LOG_FORMAT ? env.LOG_FORMAT === 'pretty' : process.stdout.isTTY === true;
  const destination = pretty ? prettyDestination : batchedStdout();
  return {
    log: pino({ ...options, redact: { paths: SECRET_FIELDS.flatMap((name) => [name, `*.${name}`]), censor: '[redacted]' } }, destination),
    // The request line's fields are fixed (id, method, route, status, duration), so it skips the
    // redaction, which parses its paths again for every entry: four times the rest of the line's cost.
    requestLog: pino(options, destination),
  };
}

// On globalThis, like the metrics: the front and Next's build of the server code share them.
const LOGGERS = Symbol.for('payments-service:loggers');
const holder = globalThis as typeof globalThis & { [LOGGERS]?: Loggers };
const loggers = (holder[LOGGERS] ??= createLoggers(process.env));
export const log: Logger = loggers.log;
/** The line per request (server/host/front.ts), and nothing else: it is not redacted. */
export const requestLog: Logger = loggers.requestLog;

/** An error as a log field: its message and stack, not the values an error object may carry along. */
export function errorField(error: unknown): { message: string; stack?: string } {
  return error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
}
