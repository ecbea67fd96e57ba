import type { SearchParams } from '../../list-query';
import { SubscriptionPage } from '../subscription-detail';

export const dynamic = 'force-dynamic';

export default function LiveSubscription({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <SubscriptionPage mode="live" params={params} searchParams={searchParams} />;
}
