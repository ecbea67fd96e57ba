import { ProductsPage } from './products-list';
import type { SearchParams } from '../list-query';

export const dynamic = 'force-dynamic';

export default async function LiveProducts({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <ProductsPage mode="live" searchParams={await searchParams} />;
}
