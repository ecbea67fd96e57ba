import { EventPage } from '../../../events/event-detail';
import type { SearchParams } from '../../../list-query';

export const dynamic = 'force-dynamic';

export default function TestEvent({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <EventPage mode="test" params={params} searchParams={searchParams} />;
}
