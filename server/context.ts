import type { Database } from '@/db/client';
import type { Clock } from './clock';
import type { Config } from './config';
import type { ApiError } from './errors';
import type { RateLimits } from './rate-limit/service';

/** Long-lived dependencies, built once per process (or per test file). */
export interface Services {
  db: Database;
  clock: Clock;
  config: Config;
  rateLimits: RateLimits;
}

/** What the HTTP layer knows about one request, and what procedures hand back to it. */
export interface RequestState {
  id: string;
  ip: string;
  method: string;
  path: string;
  headers: Headers;
  /** The parsed JSON body; the only way DELETE bodies reach a procedure (the library drops them). */
  body: unknown;
  /** Set from the procedure's `successStatus` meta, or by a replay that answers 200. */
  successStatus: number | undefined;
  error: ApiError | undefined;
  responseHeaders: Record<string, string>;
}

export interface Context extends Services {
  request: RequestState;
}

/** Pure context construction, so tests can build one without HTTP. */
export function createContextInner(services: Services, request: RequestState): Context {
  return { ...services, request };
}
