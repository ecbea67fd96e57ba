import type { SearchParams } from '../../list-query';
import { SubscriptionsPage } from '../../subscriptions/subscriptions-list';

export const dynamic = 'force-dynamic';

export default async function TestSubscriptions({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <SubscriptionsPage mode="test" searchParams={await searchParams} />;
}
