import { DisputesPage } from '../../disputes/disputes-list';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestDisputes({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <DisputesPage mode="test" searchParams={await searchParams} />;
}
