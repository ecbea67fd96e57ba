// A consumer of the `payments-service/trpc` export, compiled by test/trpc/typed-client.test.ts.
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from 'payments-service/trpc';

const client = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: 'http://127.0.0.1:3000/api/trpc', headers: { authorization: 'Bearer sk_test_…' } })],
});

export async function firstProductName(): Promise<string | undefined> {
  const page = await client.products.list.query({ limit: 1 });
  return page.data[0]?.name;
}

export async function createEndpoint(): Promise<string> {
  const endpoint = await client.webhookEndpoints.create.mutate({ url: 'https://example.com/hooks' });
  return endpoint.secret;
}

// @ts-expect-error `limit` is a number
export const wrongInput = () => client.products.list.query({ limit: 'one' });
