import { OrderPage } from '../order-detail';
import type { SearchParams } from '../query';

export const dynamic = 'force-dynamic';

export default function LiveOrder({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <OrderPage mode="live" params={params} searchParams={searchParams} />;
}
