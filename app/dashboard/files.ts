import type { PdfFile } from '@/server/invoices/schemas';

/** A short answer for a file the person may not have (refused, missing, not ready), as plain text. */
export const plainTextResponse = (text: string, status: number) => new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/** A document the services rendered, shown in the browser rather than downloaded, never cached. */
export function pdfResponse(file: PdfFile): Response {
  return new Response(Buffer.from(file.content_base64, 'base64'), {
    headers: { 'content-type': file.content_type, 'content-disposition': `inline; filename="${file.filename}"`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });
}
