import type { SearchParams } from '../../list-query';
import { WithdrawalsPage } from '../../withdrawals/withdrawals-list';

export const dynamic = 'force-dynamic';

export default async function TestWithdrawals({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <WithdrawalsPage mode="test" searchParams={await searchParams} />;
}
