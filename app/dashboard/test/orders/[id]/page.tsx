import { OrderPage } from '../../../orders/order-detail';
import type { SearchParams } from '../../../orders/query';

export const dynamic = 'force-dynamic';

export default function TestOrder({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <OrderPage mode="test" params={params} searchParams={searchParams} />;
}
