import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { getOrder } from '@/server/orders/service';
import { invoicePdf } from '@/server/invoices/service';
import { requireDashboard, type DashboardMode } from '../access';

const notFound = () => new Response('No invoice for this order.\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/** orders/{id}/invoice: the order's invoice as a PDF, for anyone who may read the store's orders. */
export async function orderInvoiceResponse(mode: DashboardMode, orderId: string): Promise<Response> {
  const access = await requireDashboard('read');
  if (!access.current) return new Response('Your role may not read this store.\n', { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const { db } = await getAppServices();
  const scope = { storeId: access.current.storeId, livemode: mode === 'live' };
  try {
    const order = await getOrder(db, scope, orderId);
    if (!order.invoice_id) return notFound();
    const file = await invoicePdf(db, scope, order.invoice_id);
    return new Response(Buffer.from(file.content_base64, 'base64'), {
      headers: { 'content-type': file.content_type, 'content-disposition': `inline; filename="${file.filename}"`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_missing') return notFound();
    throw error;
  }
}
