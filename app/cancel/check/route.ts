import { getAppServices } from '@/server/app';
import { checkCancelForm } from '@/server/subscriptions/cancel-page';

export const dynamic = 'force-dynamic';

/** POST /cancel/check: step one's form (server/subscriptions/cancel-page.ts). */
export async function POST(request: Request) {
  return checkCancelForm(await getAppServices(), request);
}
