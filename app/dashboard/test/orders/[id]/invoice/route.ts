import { orderInvoiceResponse } from '../../../../orders/invoice';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return orderInvoiceResponse('test', (await params).id);
}
