import { getApiHandler } from '@/server/app';

export const dynamic = 'force-dynamic';

async function handle(request: Request): Promise<Response> {
  const handler = await getApiHandler();
  return handler(request);
}

export { handle as GET, handle as POST, handle as PATCH, handle as PUT, handle as DELETE };
