import { CouponsPage } from '../../coupons/coupons-list';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestCoupons({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <CouponsPage mode="test" searchParams={await searchParams} />;
}
