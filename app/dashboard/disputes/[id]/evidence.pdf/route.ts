import { disputeEvidenceResponse } from '../../evidence';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return disputeEvidenceResponse('live', (await params).id);
}
