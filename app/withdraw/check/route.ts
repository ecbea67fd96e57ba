import { getAppServices } from '@/server/app';
import { checkWithdrawalForm } from '@/server/orders/withdrawals/hosted';

export const dynamic = 'force-dynamic';

/** POST /withdraw/check: step one's form (server/orders/withdrawals/hosted.ts). */
export async function POST(request: Request) {
  return checkWithdrawalForm(await getAppServices(), request);
}
