import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { getOrder } from '@/server/orders/service';
import { invoicePdf } from '@/server/invoices/service';
import { requireDashboard, type DashboardMode } from '../access';
import { pdfResponse, plainTextResponse } from '../files';

const notFound = () => plainTextResponse('No invoice for this order.', 404);

/** orders/{id}/invoice: the order's invoice as a PDF, for anyone who may read the store's orders. */
export async function orderInvoiceResponse(mode: DashboardMode, orderId: string): Promise<Response> {
  const access = await requireDashboard('read');
  if (!access.current) return plainTextResponse('Your role may not read this store.', 403);
  const { db } = await getAppServices();
  const scope = { storeId: access.current.storeId, livemode: mode === 'live' };
  try {
    const order = await getOrder(db, scope, orderId);
    if (!order.invoice_id) return notFound();
    return pdfResponse(await invoicePdf(db, scope, order.invoice_id));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_missing') return notFound();
    throw error;
  }
}
