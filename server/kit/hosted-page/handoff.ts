import { randomUUID } from 'node:crypto';

/**
 * What proxy.ts loaded for a hosted page, handed on to the page, so that one view reads its
 * session once and the page shows what the response headers (the CSP's form targets) were made
 * for. It stays in this process (on globalThis: proxy.ts and the pages are bundled apart),
 * found by a random token in a request header that proxy.ts sets; a token a client sends finds
 * nothing. An entry whose page never takes it is dropped by a later hand-off after KEEP_MS.
 */
const TOKEN_HEADER = 'x-hosted-page-handoff';
const KEEP_MS = 60_000;

interface Entry {
  /** Which page it is for, so that `take` hands each page only what its type says. */
  kind: string;
  loaded: unknown;
  keptUntil: number;
}

const holder = globalThis as typeof globalThis & { __hostedPageHandoffs?: Map<string, Entry> };
// In insertion order, which is also the order of `keptUntil`.
const pending = (holder.__hostedPageHandoffs ??= new Map());

function dropStale(now: number): void {
  for (const [token, entry] of pending) {
    if (entry.keptUntil > now) return;
    pending.delete(token);
  }
}

export interface Handoff<T> {
  /** Keeps `loaded` for the page; returns the request headers the page is to be rendered with. */
  give(loaded: T, requestHeaders: Headers): Headers;
  /** What proxy.ts handed on for this request (once); undefined when it handed nothing. */
  take(requestHeaders: Pick<Headers, 'get'>): T | undefined;
}

/** One per kind of page; `T` is what its proxy hands on. */
export function createHandoff<T>(kind: string): Handoff<T> {
  return {
    give(loaded, requestHeaders) {
      const now = Date.now();
      dropStale(now);
      const token = randomUUID();
      pending.set(token, { kind, loaded, keptUntil: now + KEEP_MS });
      const headers = new Headers(requestHeaders);
      headers.set(TOKEN_HEADER, token);
      return headers;
    },
    take(requestHeaders) {
      const token = requestHeaders.get(TOKEN_HEADER);
      const entry = token === null ? undefined : pending.get(token);
      if (!entry || entry.kind !== kind) return undefined;
      pending.delete(token!);
      return entry.loaded as T;
    },
  };
}
