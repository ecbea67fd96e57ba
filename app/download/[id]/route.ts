import { getAppServices } from '@/server/app';
import { serveDownload } from '@/server/downloads/service';

export const dynamic = 'force-dynamic';

/** GET /download/{line id}?expires&signature: an order line's delivery file (server/downloads/service.ts). */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  return serveDownload(await getAppServices(), id, { expires: query.get('expires') ?? undefined, signature: query.get('signature') ?? undefined });
}
