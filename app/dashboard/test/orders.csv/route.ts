import { ordersCsvResponse } from '../../orders/csv';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return ordersCsvResponse('test', request);
}
