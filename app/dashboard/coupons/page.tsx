import { CouponsPage } from './coupons-list';
import type { SearchParams } from '../list-query';

export const dynamic = 'force-dynamic';

export default async function LiveCoupons({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <CouponsPage mode="live" searchParams={await searchParams} />;
}
