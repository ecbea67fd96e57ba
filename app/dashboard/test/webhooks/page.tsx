import { WebhooksPage } from '../../webhooks/webhooks-list';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default async function TestWebhooks({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <WebhooksPage mode="test" searchParams={await searchParams} />;
}
