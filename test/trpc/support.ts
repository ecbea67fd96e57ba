import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@/server/router';
import type { TestApi } from '../support/server';

export interface Exchange {
  url: string;
  status: number;
  headers: Headers;
}

/** Options of one client: its key, extra headers, and the HTTP exchanges it made (newest last). */
export interface ClientOptions {
  key?: string;
  headers?: Record<string, string>;
  exchanges?: Exchange[];
}

/** The real typed client against the test server's /api/trpc, batching as internal callers do. */
export function trpcClient(api: TestApi, options: ClientOptions = {}) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${api.baseUrl}/api/trpc`,
        headers: () => ({ ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }), ...options.headers }),
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          options.exchanges?.push({ url: String(url), status: response.status, headers: response.headers });
          return response;
        },
      }),
    ],
  });
}

/** The client error a call fails with; fails the test when the call succeeds. */
export async function rejection(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`Expected the call to fail, it answered ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof TRPCClientError)) throw outcome.error;
  return outcome.error as TRPCClientError<AppRouter>;
}

/** Field by field what REST's envelope says, as tRPC's `error.data` (plus the status) and message. */
export function asRpcError(rest: { status: number; body: { error: { type: string; code: string; message: string; param?: string } } }) {
  const { message, ...fields } = rest.body.error;
  return { message, data: { ...fields, httpStatus: rest.status } };
}

/** The parts of a client error that the API defines. */
export function rpcError(error: TRPCClientError<AppRouter>) {
  return { message: error.message, data: error.data };
}
