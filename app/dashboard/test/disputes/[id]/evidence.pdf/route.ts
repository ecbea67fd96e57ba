import { disputeEvidenceResponse } from '../../../../disputes/evidence';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return disputeEvidenceResponse('test', (await params).id);
}
