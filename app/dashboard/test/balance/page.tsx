import { BalancePage } from '../../balance/balance-page';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestBalance({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <BalancePage mode="test" searchParams={await searchParams} />;
}
