import { CustomerPage } from '../../../customers/customer-detail';
import type { SearchParams } from '../../../list-query';

export const dynamic = 'force-dynamic';

export default function TestCustomer({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <CustomerPage mode="test" params={params} searchParams={searchParams} />;
}
