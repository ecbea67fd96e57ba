import { ProductsPage } from '../../products/products-list';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestProducts({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <ProductsPage mode="test" searchParams={await searchParams} />;
}
