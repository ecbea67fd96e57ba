import type { SearchParams } from '../list-query';
import { SubscriptionsPage } from './subscriptions-list';

export const dynamic = 'force-dynamic';

export default async function LiveSubscriptions({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <SubscriptionsPage mode="live" searchParams={await searchParams} />;
}
