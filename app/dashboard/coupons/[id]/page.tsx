import { CouponPage } from '../coupon-detail';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default function LiveCoupon({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <CouponPage mode="live" params={params} searchParams={searchParams} />;
}
