import { ProductPage } from '../product-detail';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default function LiveProduct({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <ProductPage mode="live" params={params} searchParams={searchParams} />;
}
