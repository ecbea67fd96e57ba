import { balanceTransactionsCsvResponse } from '../balance/csv';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return balanceTransactionsCsvResponse('live', request);
}
