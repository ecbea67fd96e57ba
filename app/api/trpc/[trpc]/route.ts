import { getApiHandler } from '@/server/app';

export const dynamic = 'force-dynamic';

// The API handler serves /api/trpc beside /api/v1 (server/http/trpc-handler.ts).
async function handle(request: Request): Promise<Response> {
  const handler = await getApiHandler();
  return handler(request);
}

export { handle as GET, handle as POST };
