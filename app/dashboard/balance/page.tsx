import type { SearchParams } from '../list-query';
import { BalancePage } from './balance-page';

export const dynamic = 'force-dynamic';

export default async function LiveBalance({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <BalancePage mode="live" searchParams={await searchParams} />;
}
