import { WebhooksPage } from './webhooks-list';
import type { SearchParams } from '../list-query';

export const dynamic = 'force-dynamic';

export default async function LiveWebhooks({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <WebhooksPage mode="live" searchParams={await searchParams} />;
}
