import type { SearchParams } from '../list-query';
import { DisputesPage } from './disputes-list';

export const dynamic = 'force-dynamic';

export default async function LiveDisputes({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <DisputesPage mode="live" searchParams={await searchParams} />;
}
