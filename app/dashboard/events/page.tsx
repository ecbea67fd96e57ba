import { EventsPage } from './events-list';
import type { SearchParams } from '../list-query';

export const dynamic = 'force-dynamic';

export default async function LiveEvents({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <EventsPage mode="live" searchParams={await searchParams} />;
}
