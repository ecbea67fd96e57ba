import { OrdersPage } from './orders-list';
import type { SearchParams } from './query';

export const dynamic = 'force-dynamic';

export default async function LiveOrders({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <OrdersPage mode="live" searchParams={await searchParams} />;
}
