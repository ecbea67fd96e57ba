import { getAppServices } from '@/server/app';
import { declareWithdrawalForm } from '@/server/orders/withdrawals/hosted';

export const dynamic = 'force-dynamic';

/** POST /withdraw/declare: step two's confirmation (server/orders/withdrawals/hosted.ts). */
export async function POST(request: Request) {
  return declareWithdrawalForm(await getAppServices(), request);
}
