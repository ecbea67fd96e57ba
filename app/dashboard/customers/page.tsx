import type { SearchParams } from '../list-query';
import { CustomersPage } from './customers-list';

export const dynamic = 'force-dynamic';

export default async function LiveCustomers({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <CustomersPage mode="live" searchParams={await searchParams} />;
}
