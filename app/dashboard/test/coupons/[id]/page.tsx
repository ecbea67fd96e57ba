import { CouponPage } from '../../../coupons/coupon-detail';
import type { SearchParams } from '../../../list-query';

export const dynamic = 'force-dynamic';

export default function TestCoupon({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <CouponPage mode="test" params={params} searchParams={searchParams} />;
}
