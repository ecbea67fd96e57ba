import { subscriptionsCsvResponse } from '../../subscriptions/csv';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return subscriptionsCsvResponse('test', request);
}
