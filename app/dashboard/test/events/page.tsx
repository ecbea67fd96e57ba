import { EventsPage } from '../../events/events-list';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestEvents({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <EventsPage mode="test" searchParams={await searchParams} />;
}
