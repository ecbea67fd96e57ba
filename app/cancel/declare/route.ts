import { getAppServices } from '@/server/app';
import { declareCancelForm } from '@/server/subscriptions/cancel-page';

export const dynamic = 'force-dynamic';

/** POST /cancel/declare: step two's confirmation (server/subscriptions/cancel-page.ts). */
export async function POST(request: Request) {
  return declareCancelForm(await getAppServices(), request);
}
