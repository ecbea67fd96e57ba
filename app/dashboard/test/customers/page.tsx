import { CustomersPage } from '../../customers/customers-list';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestCustomers({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <CustomersPage mode="test" searchParams={await searchParams} />;
}
