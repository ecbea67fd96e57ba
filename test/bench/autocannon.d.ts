/** The part of autocannon 9 that test/bench/run.ts uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
    /** Each request of the sequence; `setupRequest` may rewrite it before it is sent (a fresh header). */
    requests?: { setupRequest?: (request: RequestParams) => RequestParams }[];
  }
  interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number } | undefined>;
  }
  export type { Result };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
