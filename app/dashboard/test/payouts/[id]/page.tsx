import type { SearchParams } from '../../../list-query';
import { PayoutPage } from '../../../payouts/payout-detail';

export const dynamic = 'force-dynamic';

export default function TestPayout({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <PayoutPage mode="test" params={params} searchParams={searchParams} />;
}
