import type { SearchParams } from '../../list-query';
import { CustomerPage } from '../customer-detail';

export const dynamic = 'force-dynamic';

export default function LiveCustomer({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <CustomerPage mode="live" params={params} searchParams={searchParams} />;
}
