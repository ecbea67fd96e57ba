import { OrdersPage } from '../../orders/orders-list';
import type { SearchParams } from '../../orders/query';

export const dynamic = 'force-dynamic';

export default async function TestOrders({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <OrdersPage mode="test" searchParams={await searchParams} />;
}
