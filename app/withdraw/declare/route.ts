import { getAppServices } from '@/server/app';
import { declareWithdrawalForm } from '@/server/withdrawals/hosted';

export const dynamic = 'force-dynamic';

/** POST /withdraw/declare: step two's confirmation (server/withdrawals/hosted.ts). */
export async function POST(request: Request) {
  return declareWithdrawalForm(await getAppServices(), request);
}
