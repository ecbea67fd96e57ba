import type { SearchParams } from '../../list-query';
import { PayoutPage } from '../payout-detail';

export const dynamic = 'force-dynamic';

export default function LivePayout({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <PayoutPage mode="live" params={params} searchParams={searchParams} />;
}
