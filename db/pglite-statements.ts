import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

/**
 * Distinct statements kept prepared at most: the hot ones are few and recur; beyond this many,
 * statements run unprepared, so odd one-off texts cannot fill the database session's memory.
 */
const MAX_PREPARED = 200;

type Message = Parameters<typeof parse.parseResults>[0][number];
interface Prepared {
  name: string;
  parameterTypes: number[];
  /** Sent once by Describe, absent for a statement that returns no rows. */
  rowDescription: Message | undefined;
}

type Parsers = Parameters<typeof parse.parseResults>[1];

const mergedParsers = new WeakMap<object, Parsers>();

/**
 * A query's own parsers over PGlite's defaults. PGlite's parseResults merges them with an object
 * spread of its 318 defaults on every call (85 µs here), and Drizzle passes its parsers with every
 * query; a prototype chain gives the same lookups, built once per Drizzle query object.
 */
function parsersOver(defaults: Parsers, own: NonNullable<QueryOptions['parsers']>): Parsers {
  let merged = mergedParsers.get(own);
  if (!merged) {
    merged = Object.assign(Object.create(defaults) as Parsers, own);
    mergedParsers.set(own, merged);
  }
  return merged;
}

/** The internals of PGlite's own `query` that a statement of ours must respect as well. */
interface PGliteInternals {
  serializers: Record<number, (value: unknown) => string>;
  parsers: Parsers;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

/** How long statements may run in one turn of the event loop before the rest wait for the next. */
const SLICE_MS = 4;
/** Statements waiting for their turn, first come first served: one queue for the process's one event loop, whatever the client. */
const waiting: (() => void)[] = [];
let sliceStarted = 0;
let sliceOpen = false;

/**
 * Resolves when a statement may run: PGlite computes on this thread and answers through promises
 * alone, so statements chained that way would keep the event loop from turning until every
 * request in flight is done, and a new connection (the loop takes in one per turn) or a queued
 * request would wait unseen for seconds. So each statement waits for a turn of the loop, and a
 * turn runs statements for at most SLICE_MS; the others go on in the next turn, in order.
 */
function nextSlice(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    setImmediate(startNext);
  });
}

/** One per waiting statement: starts the longest waiting one, or waits for the next turn once this turn's slice is spent. */
function startNext(): void {
  const now = performance.now();
  if (!sliceOpen) {
    sliceOpen = true;
    sliceStarted = now;
    // Queued before anything deferred from this turn: it opens the next turn's slice.
    setImmediate(() => (sliceOpen = false));
  }
  if (now - sliceStarted > SLICE_MS) setImmediate(startNext);
  else waiting.shift()?.();
}

/**
 * PGlite with its `query` running each statement prepared under a name of its own: PGlite's
 * `query` parses, describes and plans the text again on every call, in six calls into the
 * database where a prepared statement needs one (bind, execute, sync together); on the embedded
 * database that computes on the process's own thread, this halves the cost of a hot statement.
 * Drizzle calls `query` outside transactions (inside one it is handed PGlite's transaction, whose
 * statements run as before). Answers and errors are those of PGlite's `query`.
 */
export function withPreparedStatements(client: PGlite): PGlite {
  const internals = client as unknown as PGliteInternals;
  const prepared = new Map<string, Prepared>();
  const { serialize } = protocol;

  async function prepare(text: string): Promise<Prepared> {
    const name = `pglite_s${prepared.size}`;
    const messages = await client.execProtocolStream(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages), rowDescription: messages.find((message) => message.name === 'rowDescription') };
    prepared.set(text, statement);
    return statement;
  }

  async function run<T>(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    let statement: Prepared;
    let messages: Message[];
    try {
      statement = prepared.get(text) ?? (await prepare(text));
      const types = statement.parameterTypes;
      const values = params.map((value, index) => {
        if (value === null || value === undefined) return null;
        const serializer = options?.serializers?.[types[index]!] ?? internals.serializers[types[index]!];
        return serializer ? serializer(value) : String(value);
      });
      messages = await client.execProtocolStream(concat([serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync()]), {
        syncToFs: false,
        onNotice: options?.onNotice,
      });
    } catch (error) {
      // As PGlite's own query reports a failed statement.
      Object.assign(error as object, { query: text, params, queryOptions: options });
      throw error;
    }
    if (!client.isInTransaction()) await client.syncToFs();
    const answer = statement.rowDescription ? [statement.rowDescription, ...messages] : messages;
    const parsers = options?.parsers ? parsersOver(internals.parsers, options.parsers) : internals.parsers;
    return parse.parseResults(answer, parsers, options && { rowMode: options.rowMode })[0] as Results<T>;
  }

  const query = async <T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => {
    await nextSlice();
    if (options?.blob || options?.paramTypes || (!prepared.has(text) && prepared.size >= MAX_PREPARED)) return client.query<T>(text, params, options);
    // The same two locks as PGlite's own query: one statement at a time, none inside another's transaction.
    return internals._runExclusiveTransaction(() => internals._runExclusiveQuery(() => run<T>(text, params, options)));
  };

  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
