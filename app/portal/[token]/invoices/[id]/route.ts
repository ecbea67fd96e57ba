import { getAppServices } from '@/server/app';
import { openPortalDocument } from '@/server/portal/page';
import { portalDocumentResponse, portalLinkInvalidResponse } from '@/server/portal/responses';

export const dynamic = 'force-dynamic';

/** GET /portal/{token}/invoices/{id}: an invoice of what the link shows, as a PDF (proxy.ts limits and checks the link first). */
export async function GET(_request: Request, { params }: { params: Promise<{ token: string; id: string }> }) {
  const { token, id } = await params;
  const document = await openPortalDocument(await getAppServices(), token, 'invoice', id);
  return document ? portalDocumentResponse(document) : portalLinkInvalidResponse();
}
