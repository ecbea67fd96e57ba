import type { SearchParams } from '../list-query';
import { WithdrawalsPage } from './withdrawals-list';

export const dynamic = 'force-dynamic';

export default async function LiveWithdrawals({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <WithdrawalsPage mode="live" searchParams={await searchParams} />;
}
