import { ProductPage } from '../../../products/product-detail';
import type { SearchParams } from '../../../list-query';

export const dynamic = 'force-dynamic';

export default function TestProduct({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <ProductPage mode="test" params={params} searchParams={searchParams} />;
}
