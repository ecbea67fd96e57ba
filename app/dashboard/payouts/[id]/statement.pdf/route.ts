import { payoutStatementResponse } from '../../statement';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return payoutStatementResponse('live', (await params).id);
}
