import type { SearchParams } from '../../../list-query';
import { SubscriptionPage } from '../../../subscriptions/subscription-detail';

export const dynamic = 'force-dynamic';

export default function TestSubscription({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <SubscriptionPage mode="test" params={params} searchParams={searchParams} />;
}
