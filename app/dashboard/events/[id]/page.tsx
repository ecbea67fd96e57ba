import { EventPage } from '../event-detail';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default function LiveEvent({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <EventPage mode="live" params={params} searchParams={searchParams} />;
}
