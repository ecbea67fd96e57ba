import { payoutStatementResponse } from '../../../../payouts/statement';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return payoutStatementResponse('test', (await params).id);
}
